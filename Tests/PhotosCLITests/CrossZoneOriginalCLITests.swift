import Foundation
import PhotosTestSupport
import XCTest

/// Issue 31 A1: the duplicate rule ("two photos of one original become one") holds within one
/// record zone. A read-write participant (ann) imports into the share a file the owner (olga)
/// holds privately, with a private tag and rating; after the round trip the owner has two
/// photos of that file, her private one unchanged in her default zone and ann's in the share,
/// on one file in external data; ann keeps her photo; a read-only participant (bob) sees ann's
/// photo and none of the owner's private tag or rating. Whichever uniqueName is smaller (before,
/// the outcome flipped with it: ann's photo deleted, or the owner's moved into the share).
/// Run on SQLite, and on PostgreSQL with `PHOTOS_TEST_DATABASE_URL` (every library made by
/// `init`, `import` or `share accept` then is one).
final class CrossZoneOriginalCLITests: BinaryTestCase {
    override var label: String { "photos-cross-zone-original" }

    let small = "00000000-0000-4000-8000-0000000000A1"
    let large = "FFFFFFFF-FFFF-4FFF-8FFF-FFFFFFFFFFA1"

    @discardableResult
    override func ok(_ lib: String, _ args: [String], file: StaticString = #filePath, line: UInt = #line) throws
        -> String
    {
        let r = try photos(lib, args)
        XCTAssertEqual(r.status, 0, "\(lib) \(args): \(r.stderr)", file: file, line: line)
        return r.stdout
    }

    func photos(_ lib: String, _ args: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        var environment = ProcessInfo.processInfo.environment
        environment["PHOTOS_OWNER"] = "olga@example.org"
        return try runProcess(try binary(), ["--library", lib] + args, environment: environment)
    }

    /// `uniqueName zone tags(sorted, comma-separated) rating(-)` of every photo, sorted.
    func rows(_ lib: String) throws -> [String] {
        try ok(lib, ["list", "--json"]).split(separator: "\n").map { line in
            let o = try json(String(line))
            let tags = ((o["tags"] as? [String]) ?? []).sorted().joined(separator: ",")
            let rating = (o["rating"] as? NSNumber).map { "\($0)" } ?? "-"
            return "\(o["uniqueName"] ?? "") \(o["zone"] ?? "") [\(tags)] \(rating)"
        }.sorted()
    }

    /// `author value` of each rating of `photo`.
    func ratings(_ lib: String, _ photo: String) throws -> [String] {
        try ok(lib, ["rating", "list", photo, "--json"]).split(separator: "\n").map {
            let o = try json(String($0))
            return "\(o["author"] as? String ?? "-") \(o["value"] ?? "")"
        }.sorted()
    }

    func verifyClean(_ libs: [String], file: StaticString = #filePath, line: UInt = #line) throws {
        for lib in libs {
            let report = try ok(lib, ["verify"], file: file, line: line)
            XCTAssertTrue(report.contains("0 problems"), "\(lib): \(report)", file: file, line: line)
        }
    }

    /// A folder holding `sample` with a sidecar naming `uniqueName` (the photo's identity).
    func input(_ folder: String, _ sample: String, uniqueName: String) throws -> String {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: samplesDir + "/" + sample, toPath: folder + "/" + sample)
        let text = """
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
            <rdf:Description rdf:about="" xmlns:photos="https://photos.invalid/ns/1.0/"
             photos:uniqueName="\(uniqueName)"/></rdf:RDF></x:xmpmeta>
            """
        XCTAssertTrue(FileManager.default.createFile(atPath: folder + "/" + sample + ".xmp", contents: Data(text.utf8)))
        return folder
    }

    /// Regular files under `lib`'s external data.
    func originals(_ lib: String) -> [String] {
        let root = lib + "/ExternalData"
        let names = (FileManager.default.enumerator(atPath: root)?.allObjects as? [String]) ?? []
        return names.filter {
            var isDir: ObjCBool = false
            return FileManager.default.fileExists(atPath: root + "/" + $0, isDirectory: &isDir) && !isDir.boolValue
                && !$0.contains(".tmp") && !originalsRootBookkeeping.contains($0)
        }.sorted()
    }

    /// The owner with kite.png private (tag Private, her rating 1) and a share of storm.jpg
    /// with ann (read-write) and bob (read-only) accepted.
    func threeLibraries(_ root: String, owner ownerName: String) throws -> (
        owner: String, ann: String, bob: String, share: String
    ) {
        let owner = root + "/olga", ann = root + "/ann", bob = root + "/bob"
        try ok(owner, ["import", "-q", samplesDir + "/storm.jpg"])
        try ok(owner, ["import", "-q", try input(root + "/olga-in", "kite.png", uniqueName: ownerName)])
        try ok(owner, ["tag", "add", "Private", ownerName])
        try ok(owner, ["rate", "--author", "me", ownerName, "1"])
        let storm = try XCTUnwrap(try rows(owner).first { !$0.hasPrefix(ownerName) }?.split(separator: " ").first)
        try ok(owner, ["share", "create", "--title", "Kites", String(storm)])
        let share = try XCTUnwrap(try json(try ok(owner, ["share", "list", "--json"]))["id"] as? String)
        try ok(owner, ["share", "invite", share, "ann@example.org", "--permission", "read-write"])
        try ok(owner, ["share", "invite", share, "bob@example.org", "--permission", "read-only"])
        try ok(owner, ["share", "export", share, "--for", "ann@example.org", "-o", root + "/to-ann-1"])
        try ok(owner, ["share", "export", share, "--for", "bob@example.org", "-o", root + "/to-bob-1"])
        try ok(ann, ["share", "accept", root + "/to-ann-1"])
        try ok(bob, ["share", "accept", root + "/to-bob-1"])
        return (owner, ann, bob, share)
    }

    func testAParticipantsImportOfTheOwnersPrivateFileStaysApartInEitherOrderOfNames() throws {
        for (round, (ownerName, annName)) in [(small, large), (large, small)].enumerated() {
            try participantImportsTheOwnersPrivateFile(dir + "/round\(round)", owner: ownerName, ann: annName)
        }
    }

    private func participantImportsTheOwnersPrivateFile(_ root: String, owner ownerName: String, ann annName: String)
        throws
    {
        let (owner, ann, bob, share) = try threeLibraries(root, owner: ownerName)
        let privateRow = "\(ownerName) default [Private] 1"
        let beforeOwner = try rows(owner)
        XCTAssertTrue(beforeOwner.contains(privateRow), beforeOwner.joined(separator: "\n"))

        try ok(ann, ["import", "-q", try input(root + "/ann-in", "kite.png", uniqueName: annName), "--share", share])
        try ok(ann, ["share", "export", share, "-o", root + "/from-ann-1"])
        let applied = try photos(owner, ["sync", "--apply", root + "/from-ann-1"])
        XCTAssertEqual(applied.status, 0, applied.stderr)
        XCTAssertEqual(applied.stderr, "", "nothing deleted, nothing to say")

        // The owner: her private photo as it was, ann's beside it in the share, one file.
        let afterOwner = try rows(owner)
        XCTAssertTrue(afterOwner.contains(privateRow), afterOwner.joined(separator: "\n"))
        XCTAssertTrue(afterOwner.contains("\(annName) \(share) [] -"), afterOwner.joined(separator: "\n"))
        XCTAssertEqual(afterOwner.count, 3, afterOwner.joined(separator: "\n"))
        XCTAssertEqual(try ratings(owner, ownerName), ["me 1"])
        XCTAssertEqual(try ratings(owner, annName), [])
        XCTAssertEqual(originals(owner).count, 2, "storm and kite: \(originals(owner))")
        try verifyClean([owner, ann])

        // The read-only participant sees ann's photo, none of the owner's private values.
        try ok(owner, ["share", "export", share, "--for", "bob@example.org", "-o", root + "/to-bob-2"])
        try ok(bob, ["sync", "--apply", root + "/to-bob-2"])
        let bobs = try rows(bob)
        XCTAssertEqual(bobs.count, 2, bobs.joined(separator: "\n"))
        XCTAssertTrue(bobs.contains("\(annName) \(share) [] -"), bobs.joined(separator: "\n"))
        XCTAssertFalse(bobs.joined().contains(ownerName), bobs.joined(separator: "\n"))
        XCTAssertEqual(try ratings(bob, annName), [])
        XCTAssertFalse(try ok(bob, ["tag", "list"]).contains("Private"))
        XCTAssertEqual(try photos(bob, ["show", ownerName]).status, 66)

        // Ann keeps her photo after the owner's next changeset.
        try ok(owner, ["share", "export", share, "--for", "ann@example.org", "-o", root + "/to-ann-2"])
        try ok(ann, ["sync", "--apply", root + "/to-ann-2"])
        let anns = try rows(ann)
        XCTAssertTrue(anns.contains("\(annName) \(share) [] -"), anns.joined(separator: "\n"))
        XCTAssertEqual(anns.count, 2)
        try verifyClean([owner, ann, bob])

        // The owner deletes the share's kite: her private one keeps its file (an original goes
        // only when no row of any zone references it); the deletion reaches ann.
        try ok(owner, ["delete", "--yes", annName])
        XCTAssertEqual(try rows(owner).filter { $0.hasPrefix(annName) }, [])
        XCTAssertTrue(try rows(owner).contains(privateRow))
        XCTAssertEqual(originals(owner).count, 2, "\(originals(owner))")
        try verifyClean([owner])
        try ok(owner, ["share", "export", share, "--for", "ann@example.org", "-o", root + "/to-ann-3"])
        try ok(ann, ["sync", "--apply", root + "/to-ann-3"])
        let annsAfter = try rows(ann)
        XCTAssertEqual(annsAfter.count, 1, annsAfter.joined(separator: "\n"))
        XCTAssertEqual(originals(ann).count, 1, "ann's kite file goes with her last photo of it")
        try verifyClean([owner, ann])
    }

    /// Into this library's own zones (default and its shares) a file held in any of them is a
    /// duplicate (importing a folder again never makes a second photo of one moved into a
    /// share); asked into a share with `--share`, it says so on stderr, naming the photo and
    /// how to move it. Nothing changes.
    func testImportIntoAnOwnZoneOfAFileHeldInAnotherIsADuplicateSaidSo() throws {
        let lib = dir + "/lib"
        try ok(lib, ["import", "-q", samplesDir + "/storm.jpg", samplesDir + "/path.jpg"])
        let named = try ok(lib, ["list", "--json"]).split(separator: "\n").map { try json(String($0)) }
        let path = try XCTUnwrap(named.first { $0["displayName"] as? String == "path.jpg" }?["uniqueName"] as? String)
        let storm = try XCTUnwrap(named.first { $0["displayName"] as? String == "storm.jpg" }?["uniqueName"] as? String)
        try ok(lib, ["share", "create", "--title", "S", path])
        let share = try XCTUnwrap(try json(try ok(lib, ["share", "list", "--json"]))["id"] as? String)
        let before = try LibrarySnapshot.dumpCatalog(lib)
        let into = try photos(lib, ["--json", "import", samplesDir + "/storm.jpg", "--share", share])
        XCTAssertEqual(into.status, 0, into.stderr)
        XCTAssertEqual(try json(into.stdout)["duplicates"] as? Int, 1)
        XCTAssertEqual(try json(into.stdout)["imported"] as? Int, 0)
        XCTAssertTrue(
            into.stderr.contains(
                "storm.jpg: not imported into share \(share): it is photo \(storm) (storm.jpg) of zone default already; 'photos share add \(share) \(storm)' moves it there"
            ), into.stderr)
        let back = try photos(lib, ["--json", "import", samplesDir + "/path.jpg"])
        XCTAssertEqual(try json(back.stdout)["duplicates"] as? Int, 1)
        XCTAssertEqual(back.stderr, "", "into the default zone a photo of one's own share is a plain duplicate")
        XCTAssertEqual(try LibrarySnapshot.dumpCatalog(lib), before)
        try verifyClean([lib])
    }

    /// Into a zone shared with this library, only a photo of that zone makes a file a
    /// duplicate: a participant holding the file privately imports it into the share as a new
    /// photo on the same file, her private photo unchanged; the owner then holds it in the
    /// share only, and the participant's private photo never travels.
    func testAParticipantsImportIntoTheShareOfAFileSheHoldsPrivately() throws {
        let root = dir + "/p"
        let (owner, ann, _, share) = try threeLibraries(root, owner: small)
        try ok(ann, ["import", "-q", try input(root + "/ann-private", "kite.png", uniqueName: large)])
        try ok(ann, ["tag", "add", "Mine", large])
        let imported = try json(
            try ok(ann, ["--json", "import", samplesDir + "/kite.png", "--share", share]))
        XCTAssertEqual(imported["imported"] as? Int, 1)
        let anns = try rows(ann)
        XCTAssertEqual(anns.count, 3, anns.joined(separator: "\n"))
        XCTAssertTrue(anns.contains("\(large) default [Mine] -"), anns.joined(separator: "\n"))
        XCTAssertEqual(originals(ann).count, 2, "storm and one kite file for two photos")
        try verifyClean([ann])
        let annShared = try XCTUnwrap(
            anns.first { $0.contains(" \(share) ") && !$0.hasPrefix(large) && $0.contains("[]") }?.split(separator: " ")
                .first
        ).description
        try ok(ann, ["share", "export", share, "-o", root + "/from-ann"])
        try ok(owner, ["sync", "--apply", root + "/from-ann"])
        let owners = try rows(owner)
        XCTAssertTrue(owners.contains("\(annShared) \(share) [] -"), owners.joined(separator: "\n"))
        XCTAssertFalse(owners.joined().contains(large), owners.joined(separator: "\n"))
        XCTAssertTrue(owners.contains("\(small) default [Private] 1"), owners.joined(separator: "\n"))
        try verifyClean([owner, ann])
    }

    /// `share add` / `share create` of a private photo whose original a photo of the share
    /// already has (a participant's, come in by sync): refused with 65 naming both, nothing
    /// moved (one photo per original in a zone).
    func testMovingAPhotoIntoAZoneHoldingItsOriginalIsRefused() throws {
        let root = dir + "/m"
        let (owner, ann, _, share) = try threeLibraries(root, owner: small)
        try ok(ann, ["import", "-q", try input(root + "/ann-in", "kite.png", uniqueName: large), "--share", share])
        try ok(ann, ["share", "export", share, "-o", root + "/from-ann"])
        try ok(owner, ["sync", "--apply", root + "/from-ann"])
        let before = try LibrarySnapshot.dumpCatalog(owner)
        let refused = try photos(owner, ["share", "add", share, small])
        XCTAssertEqual(refused.status, 65, refused.stderr)
        XCTAssertTrue(
            refused.stderr.contains(
                "photo \(small) has the same original as photo \(large), which is in zone \(share)"),
            refused.stderr)
        XCTAssertEqual(try LibrarySnapshot.dumpCatalog(owner), before)
        let created = try photos(owner, ["share", "create", small, large, "--move"])
        XCTAssertEqual(created.status, 65, created.stderr)
        XCTAssertEqual(try LibrarySnapshot.dumpCatalog(owner), before)
        try verifyClean([owner])
    }

    /// `share accept` by a participant holding privately a file of the share: the share's
    /// photo comes in beside the private one (which keeps its tag and stays private: the
    /// participant's next changeset does not carry it).
    func testAcceptingAShareOfAFileHeldPrivatelyKeepsBoth() throws {
        let root = dir + "/accept"
        let owner = root + "/olga", bob = root + "/bob"
        try ok(owner, ["import", "-q", samplesDir + "/storm.jpg"])
        let storm = try XCTUnwrap(try rows(owner).first?.split(separator: " ").first).description
        try ok(owner, ["share", "create", "--title", "S", storm])
        let share = try XCTUnwrap(try json(try ok(owner, ["share", "list", "--json"]))["id"] as? String)
        try ok(owner, ["share", "invite", share, "bob@example.org", "--permission", "read-write"])
        try ok(owner, ["share", "export", share, "--for", "bob@example.org", "-o", root + "/to-bob"])
        try ok(bob, ["import", "-q", try input(root + "/bob-in", "storm.jpg", uniqueName: large)])
        try ok(bob, ["tag", "add", "Mine", large])
        try ok(bob, ["rate", "--author", "bob", large, "5"])
        try ok(bob, ["share", "accept", root + "/to-bob"])
        let bobs = try rows(bob)
        XCTAssertEqual(
            bobs, ["\(large) default [Mine] 5", "\(storm) \(share) [] -"].sorted(), bobs.joined(separator: "\n"))
        XCTAssertEqual(originals(bob).count, 1)
        try verifyClean([bob])
        try ok(bob, ["share", "export", share, "-o", root + "/from-bob"])
        try ok(owner, ["sync", "--apply", root + "/from-bob"])
        XCTAssertFalse(try rows(owner).joined().contains(large))
        XCTAssertEqual(try rows(owner), ["\(storm) \(share) [] -"])
    }

    /// `share stop` moves the share's photos back into the default zone: with ann's photo of
    /// the owner's private file in it, that would be two photos of one original there, so it
    /// is refused with 65 naming both and nothing changes; once the owner deleted one, it stops
    /// and the file stays for the other.
    func testStoppingAShareHoldingAPrivateOriginalIsRefusedUntilOneIsDeleted() throws {
        let root = dir + "/stop"
        let (owner, ann, _, share) = try threeLibraries(root, owner: small)
        try ok(ann, ["import", "-q", try input(root + "/ann-in", "kite.png", uniqueName: large), "--share", share])
        try ok(ann, ["share", "export", share, "-o", root + "/from-ann"])
        try ok(owner, ["sync", "--apply", root + "/from-ann"])
        let before = try LibrarySnapshot.dumpCatalog(owner)
        let refused = try photos(owner, ["share", "stop", share])
        XCTAssertEqual(refused.status, 65, refused.stderr)
        XCTAssertTrue(
            refused.stderr.contains("photo \(large) has the same original as photo \(small), which is in zone default"),
            refused.stderr)
        XCTAssertEqual(try LibrarySnapshot.dumpCatalog(owner), before)
        try ok(owner, ["delete", "--yes", small])
        try ok(owner, ["share", "stop", share])
        let after = try rows(owner)
        XCTAssertEqual(after.count, 2, after.joined(separator: "\n"))
        XCTAssertTrue(after.contains("\(large) default [] -"), after.joined(separator: "\n"))
        XCTAssertEqual(originals(owner).count, 2)
        try verifyClean([owner])
    }

    /// Within one zone the rule still merges, and says so: two own libraries that imported
    /// one file each keep the photo of the smaller uniqueName; the apply that deletes the other
    /// names it on stderr and in `--json` (`photosMerged`), with its tag moved to the survivor.
    func testAMergeOfTwoPhotosOfOneOriginalInAZoneIsSaid() throws {
        let a = dir + "/a", b = dir + "/b"
        try ok(a, ["import", "-q", try input(dir + "/a-in", "kite.png", uniqueName: large)])
        try ok(a, ["tag", "add", "Alpha", large])
        try ok(b, ["import", "-q", try input(dir + "/b-in", "kite.png", uniqueName: small)])
        let synced = try photos(a, ["sync", "--from", b])
        XCTAssertEqual(synced.status, 0, synced.stderr)
        XCTAssertTrue(
            synced.stderr.contains(
                "photo \(large) deleted: photo \(small) of zone default has the same original, and takes its tags and ratings"
            ), synced.stderr)
        XCTAssertEqual(try rows(a), ["\(small) default [Alpha] -"])
        let back = try json(try ok(b, ["--json", "sync", "--from", a]))
        XCTAssertEqual((back["photosMerged"] as? [Any])?.count, 0, "b had only the survivor")
        XCTAssertEqual(try rows(b), ["\(small) default [Alpha] -"])
        try verifyClean([a, b])
    }

    /// merge: a library whose share holds a file this library holds privately is a duplicate
    /// of the private photo by import's rule (`DuplicateScope.forPhotos`: a file held in any zone
    /// of this library's own), so it does not come in beside it; and the private photo stays
    /// private with its tag (a match by the original alone never moves a photo, issue 31 A1).
    func testMergeMatchesOriginalsAsImportDoesAndMovesNoPrivatePhoto() throws {
        let a = dir + "/a", b = dir + "/b"
        try ok(a, ["import", "-q", samplesDir + "/storm.jpg"])
        let privatePhoto = try XCTUnwrap(try rows(a).first?.split(separator: " ").first).description
        try ok(a, ["tag", "add", "Private", privatePhoto])
        try ok(b, ["import", "-q", samplesDir + "/storm.jpg"])
        let bPhoto = try XCTUnwrap(try rows(b).first?.split(separator: " ").first).description
        try ok(b, ["share", "create", "--title", "S", bPhoto])
        try ok(a, ["merge", "--from", b])
        let after = try rows(a)
        XCTAssertEqual(after, ["\(privatePhoto) default [Private] -"])
        XCTAssertEqual(originals(a).count, 1)
        try verifyClean([a])
        // Import says the same of that file, in the default zone and into the share.
        let share = try XCTUnwrap(try json(try ok(a, ["share", "list", "--json"]))["id"] as? String)
        XCTAssertEqual(try json(try ok(a, ["--json", "import", samplesDir + "/storm.jpg"]))["duplicates"] as? Int, 1)
        XCTAssertEqual(
            try json(try ok(a, ["--json", "import", samplesDir + "/storm.jpg", "--share", share]))["duplicates"]
                as? Int,
            1)
        // Merging again: nothing new.
        try ok(a, ["merge", "--from", b])
        XCTAssertEqual(try rows(a), after)
    }

    /// The other way: this library moved its photo into a share, another own library holds the
    /// same file (another uniqueName) in its default zone; merge, as import, takes it as the
    /// share's photo (before: it came in again beside it, a second photo of one file in the
    /// private store).
    func testMergeOfAFileThisLibraryMovedIntoAShareIsADuplicate() throws {
        let a = dir + "/a", b = dir + "/b"
        try ok(a, ["import", "-q", samplesDir + "/storm.jpg"])
        let aPhoto = try XCTUnwrap(try rows(a).first?.split(separator: " ").first).description
        try ok(a, ["share", "create", "--title", "S", aPhoto])
        try ok(b, ["import", "-q", samplesDir + "/storm.jpg"])
        try ok(a, ["merge", "--from", b])
        let after = try rows(a)
        XCTAssertEqual(after.count, 1, after.joined(separator: "\n"))
        XCTAssertTrue(after[0].hasPrefix(aPhoto + " ") && !after[0].contains(" default "), "\(after)")
        XCTAssertEqual(try json(try ok(a, ["--json", "import", samplesDir + "/storm.jpg"]))["duplicates"] as? Int, 1)
        try verifyClean([a])
    }

    /// A whole-library `sync --apply` between two own libraries: the same file in the default
    /// zone of one and in a share of the other stays two photos on both.
    func testWholeLibrarySyncKeepsAPhotoPerZone() throws {
        let a = dir + "/a", b = dir + "/b"
        try ok(a, ["import", "-q", samplesDir + "/storm.jpg"])
        let aPhoto = try XCTUnwrap(try rows(a).first?.split(separator: " ").first).description
        try ok(a, ["rate", "--author", "me", aPhoto, "2"])
        try ok(b, ["import", "-q", samplesDir + "/storm.jpg"])
        let bPhoto = try XCTUnwrap(try rows(b).first?.split(separator: " ").first).description
        try ok(b, ["share", "create", "--title", "S", bPhoto])
        try ok(a, ["sync", "--from", b, "-q"])
        try ok(b, ["sync", "--from", a, "-q"])
        let rowsA = try rows(a)
        XCTAssertEqual(rowsA.count, 2, rowsA.joined(separator: "\n"))
        XCTAssertEqual(try rows(b), rowsA)
        XCTAssertTrue(rowsA.contains("\(aPhoto) default [] 2"), rowsA.joined(separator: "\n"))
        try verifyClean([a, b])
    }
}
