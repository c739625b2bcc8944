import Foundation
import PhotosCore
import PhotosImaging
import PhotosTestSupport
import XCTest

/// Issue 27 item 3 through the binary, on both backends: `duplicates --resolve` on a group made
/// of a corpus photo and its resized, recompressed copies whose members carry different tags,
/// ratings by two authors and a capture time set by hand. The keeper ends with the union (rows in
/// the catalog), the others are gone with their originals, the one history transaction's deletes
/// are those `delete` records, and a peer that syncs holds the same photos, tags and ratings.
/// `--dry-run` and every refused argument change nothing (the catalog dumped before and after).
final class DuplicatesResolveCLITests: BinaryTestCase {
    override var label: String { "photos-duplicates-resolve" }
    var lib: String { dir + "/lib" }

    @discardableResult
    private func ok(_ args: [String], library: String? = nil, file: StaticString = #filePath, line: UInt = #line)
        throws -> String
    {
        let r = try run(["--library", library ?? lib] + args)
        XCTAssertEqual(r.status, 0, "\(args): \(r.stderr)", file: file, line: line)
        return r.stdout
    }

    /// kite.jpg (2560×1600, from the corpus), kite-half.jpg (1280×800, quality 60),
    /// kite-quarter.jpg (640×400, quality 80) and aqua.jpg (another corpus photo), imported.
    /// - Returns: uniqueName by display name.
    private func makeGroup() throws -> [String: String] {
        try ok(["import", "-q", try makeGroupFiles()])
        return try listedByDisplayName(lib).compactMapValues { $0["uniqueName"] as? String }
    }

    /// The files of `makeGroup`, not imported.
    /// - Returns: the folder holding them.
    private func makeGroupFiles() throws -> String {
        let bench = try requireCorpus() + "/bench"
        let input = dir + "/in"
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        let source = bench + "/plasma_Kite_2560x1600.jpg"
        try FileManager.default.copyItem(atPath: source, toPath: input + "/kite.jpg")
        try FileManager.default.copyItem(atPath: bench + "/mate_Aqua.jpg", toPath: input + "/aqua.jpg")
        let bytes = try XCTUnwrap(FileManager.default.contents(atPath: source).map { [UInt8]($0) })
        let decoded = try bytes.withUnsafeBytes {
            try ImageDecoder.decode($0, format: .jpeg, targetEdge: 1280, maxPixels: 100_000_000)
        }
        let half = try Resampler.areaAverage(decoded.pixels, width: 1280, height: 800)
        XCTAssertTrue(
            FileManager.default.createFile(
                atPath: input + "/kite-half.jpg", contents: Data(try ImageDecoder.encodeJPEG(half, quality: 60))))
        let quarter = try Resampler.areaAverage(decoded.pixels, width: 640, height: 400)
        XCTAssertTrue(
            FileManager.default.createFile(
                atPath: input + "/kite-quarter.jpg", contents: Data(try ImageDecoder.encodeJPEG(quarter, quality: 80))))
        return input
    }

    /// Writes `tags` (exiftool assignments) into `file` in place with Debian's exiftool.
    private func exiftool(_ file: String, _ tags: [String]) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/exiftool")
        p.arguments = ["-q", "-m", "-overwrite_original"] + tags + [file]
        try p.run()
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 0, "exiftool \(tags) \(file)")
    }

    /// The tag names of a photo, sorted, from the catalog's rows.
    private func tags(_ catalog: TestCatalog, _ photo: String) throws -> [String] {
        try catalog.rows(
            "SELECT t.name FROM photo_tag pt JOIN tag t ON t.id = pt.tag_id JOIN photo p ON p.id = pt.photo_id WHERE p.unique_name = ?",
            [photo]
        ).compactMap { $0[0] }.sorted()
    }

    /// `author=value` of a photo's ratings, sorted, from the catalog's rows.
    private func ratings(_ catalog: TestCatalog, _ photo: String) throws -> [String] {
        try catalog.rows(
            "SELECT r.author, r.value FROM rating r JOIN photo p ON p.id = r.photo_id WHERE p.unique_name = ?", [photo]
        ).map { "\($0[0] ?? "-")=\($0[1] ?? "?")" }.sorted()
    }

    /// The last history transaction, as `history --json` prints it.
    private func lastTransaction(_ library: String? = nil) throws -> [String: Any] {
        let lines = try ok(["history", "--json"], library: library).split(separator: "\n")
        return try json(String(try XCTUnwrap(lines.last)))
    }

    /// entity → the sorted tombstone keys of its deletes in `transaction`, and the deleted ids.
    private func deletes(_ transaction: [String: Any]) throws -> (keys: [String: [String]], ids: [String: [String]]) {
        var keys: [String: [String]] = [:]
        var ids: [String: [String]] = [:]
        for change in try XCTUnwrap(transaction["changes"] as? [[String: Any]])
        where change["type"] as? String == "delete" {
            let entity = try XCTUnwrap(change["entity"] as? String)
            keys[entity] = ((change["tombstone"] as? [String: Any]) ?? [:]).keys.sorted()
            ids[entity, default: []].append(try XCTUnwrap(change["id"] as? String))
        }
        return (keys, ids)
    }

    func testResolveGivesTheKeeperTheUnionAndDeletesTheOthersAsDeleteDoes() throws {
        let names = try makeGroup()
        let kite = try XCTUnwrap(names["kite.jpg"]), half = try XCTUnwrap(names["kite-half.jpg"])
        let quarter = try XCTUnwrap(names["kite-quarter.jpg"]), aqua = try XCTUnwrap(names["aqua.jpg"])
        try ok(["tag", "add", "kite", kite, half])
        try ok(["tag", "add", "sky", kite])
        try ok(["tag", "add", "beach", half])
        try ok(["tag", "add", "sunset", quarter])
        try ok(["tag", "add", "other", aqua])
        // alice: 2 on the keeper, then 5 on a copy (later: 5 wins). bob: 1 on one copy, then 3 on
        // the other (later: 3). carol only on a copy: the keeper gains it.
        try ok(["--author", "alice", "rate", kite, "2"])
        try ok(["--author", "bob", "rate", quarter, "1"])
        try ok(["--author", "alice", "rate", half, "5"])
        try ok(["--author", "bob", "rate", half, "3"])
        try ok(["--author", "carol", "rate", quarter, "4"])
        try ok(["--author", "bob", "rate", aqua, "2"])
        try ok(["date", "set", quarter, "1975-05-01T10:00:00+02:00"])
        let peer = dir + "/peer"
        try ok(["init", "-q"], library: peer)
        try ok(["sync", "--from", lib], library: peer)

        let catalog = try TestCatalog(root: lib)
        let shaOf = { (photo: String) in
            try catalog.scalarString(
                "SELECT d.sha256 FROM photo_data d JOIN photo p ON p.id = d.photo_id WHERE p.unique_name = ?", [photo])
        }
        let halfSHA = try XCTUnwrap(try shaOf(half)), quarterSHA = try XCTUnwrap(try shaOf(quarter))
        let fileOf = { (sha: String) in self.lib + "/ExternalData/" + sha.prefix(2) + "/" + sha }
        XCTAssertTrue(FileManager.default.fileExists(atPath: fileOf(halfSHA)))

        // --dry-run: the plan, exactly; nothing changes (catalog and files).
        let before = try LibrarySnapshot.dumpCatalog(lib)
        let filesBefore = LibrarySnapshot.fileTree(lib + "/ExternalData")
        let dry = try run(["--library", lib, "--json", "duplicates", "--resolve", "--dry-run"])
        XCTAssertEqual(dry.status, 0, dry.stderr)
        let plan = try json(dry.stdout)
        XCTAssertEqual(plan["dryRun"] as? Bool, true)
        XCTAssertEqual(plan["deleted"] as? Int, 2)
        XCTAssertTrue(plan["token"] is NSNull)
        let group = try XCTUnwrap((plan["groups"] as? [[String: Any]])?.first)
        XCTAssertEqual(group["keeper"] as? String, kite)
        XCTAssertEqual(
            (group["deleted"] as? [[String: Any]])?.compactMap { $0["uniqueName"] as? String }.sorted(),
            [half, quarter].sorted())
        XCTAssertEqual(group["tagsAdded"] as? [String], ["beach", "sunset"])
        let planned = try XCTUnwrap(group["ratings"] as? [[String: Any]]).map {
            "\($0["author"] as? String ?? "-"):\($0["before"] as? Int ?? 0)→\($0["after"] as? Int ?? 0)"
        }
        XCTAssertEqual(planned, ["alice:2→5", "bob:0→3", "carol:0→4"])
        let capture = try XCTUnwrap(group["capture"] as? [String: Any])
        XCTAssertEqual(capture["after"] as? String, "1975-05-01T10:00:00+02:00")
        XCTAssertEqual(capture["source"] as? String, "manual")
        XCTAssertEqual(capture["from"] as? String, quarter)
        let dryText = try run(["--library", lib, "duplicates", "--resolve", "--dry-run"])
        XCTAssertEqual(dryText.status, 0, dryText.stderr)
        XCTAssertTrue(dryText.stdout.contains("keep \(kite)  kite.jpg\n"), dryText.stdout)
        XCTAssertTrue(dryText.stdout.contains("  would add tags: beach, sunset\n"), dryText.stdout)
        XCTAssertTrue(dryText.stdout.contains("  would set rating by alice: 2 → 5 (from \(half))\n"), dryText.stdout)
        XCTAssertTrue(dryText.stdout.contains("  would delete \(half)  kite-half.jpg\n"), dryText.stdout)
        XCTAssertTrue(dryText.stdout.contains("Would delete 2 photos in 1 group\n"), dryText.stdout)
        XCTAssertEqual(try LibrarySnapshot.dumpCatalog(lib), before)
        XCTAssertEqual(LibrarySnapshot.fileTree(lib + "/ExternalData"), filesBefore)

        // Refused arguments: 64, nothing changed.
        let bad: [([String], String)] = [
            (["--keep", "biggest"], "--keep takes a rule (pixels, raw, earliest, first-imported)"),
            (["--keep", "raw,biggest"], "unknown rule 'biggest'"),
            (["--keep", kite, "--keep", kite], "twice"),
            (["--keep", kite, "--keep", half], "two keepers of one group"),
            (["--keep", aqua], "is in no duplicate group"),
            (["--keep", "0000ffff"], "--keep takes a rule")
        ]
        for (args, words) in bad {
            let refused = try run(["--library", lib, "duplicates", "--resolve", "--yes"] + args)
            XCTAssertEqual(refused.status, 64, "\(args): \(refused.stderr)")
            XCTAssertTrue(refused.stderr.contains(words), "\(args): \(refused.stderr)")
            XCTAssertEqual(refused.stdout, "")
        }
        for args in [["--keep", "raw"], ["--dry-run"], ["--yes"]] {
            let refused = try run(["--library", lib, "duplicates"] + args)
            XCTAssertEqual(refused.status, 64, "\(args): \(refused.stderr)")
            XCTAssertTrue(refused.stderr.contains("is an option of --resolve"), refused.stderr)
        }
        XCTAssertEqual(try LibrarySnapshot.dumpCatalog(lib), before)

        // --keep PHOTO and --keep RULE choose another keeper (dry runs).
        let named = try json(try ok(["--json", "duplicates", "--resolve", "--dry-run", "--keep", quarter]))
        XCTAssertEqual((named["groups"] as? [[String: Any]])?.first?["keeper"] as? String, quarter)
        let earliest = try json(try ok(["--json", "duplicates", "--resolve", "--dry-run", "--keep", "earliest"]))
        XCTAssertEqual((earliest["groups"] as? [[String: Any]])?.first?["keeper"] as? String, quarter)

        // The resolution (no terminal, no --yes: it goes on, as `delete` does).
        // One history transaction more (PostgreSQL draws tokens outside transactions, so the dry
        // runs moved its sequence: the count, not the token, is compared).
        let transactionsBefore = try XCTUnwrap(try catalog.scalarInt("SELECT count(*) FROM history_transaction"))
        let resolved = try run(["--library", lib, "--json", "duplicates", "--resolve"])
        XCTAssertEqual(resolved.status, 0, resolved.stderr)
        let result = try json(resolved.stdout)
        XCTAssertEqual(result["deleted"] as? Int, 2)
        XCTAssertEqual(try catalog.scalarInt("SELECT count(*) FROM history_transaction"), transactionsBefore + 1)
        XCTAssertEqual(result["token"] as? Int, try catalog.scalarInt("SELECT max(token) FROM history_transaction"))
        XCTAssertEqual(
            try catalog.rows("SELECT unique_name FROM photo").compactMap { $0[0] }.sorted(), [kite, aqua].sorted())
        XCTAssertEqual(try tags(catalog, kite), ["beach", "kite", "sky", "sunset"])
        XCTAssertEqual(try ratings(catalog, kite), ["alice=5", "bob=3", "carol=4"])
        XCTAssertEqual(
            try catalog.rows(
                "SELECT capture_date, capture_offset, capture_source FROM photo WHERE unique_name = ?", [kite]
            )
            .first, ["1975-05-01T10:00:00", "120", "manual"])
        XCTAssertEqual(try tags(catalog, aqua), ["other"])
        XCTAssertEqual(try ratings(catalog, aqua), ["bob=2"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: fileOf(halfSHA)))
        XCTAssertFalse(FileManager.default.fileExists(atPath: fileOf(quarterSHA)))
        XCTAssertEqual(try catalog.scalarInt("SELECT count(*) FROM photo_data"), 2)
        XCTAssertEqual(try catalog.scalarInt("SELECT count(*) FROM thumbnail"), 2)
        let verified = try run(["--library", lib, "verify"])
        XCTAssertEqual(verified.status, 0, verified.stdout + verified.stderr)

        // One history transaction; its deletes are those `delete` records (deleting aqua, which
        // has a rating and a tag, for comparison).
        let transaction = try lastTransaction()
        XCTAssertEqual(transaction["context"] as? String, "duplicates --resolve")
        XCTAssertEqual(transaction["author"] as? String, "duplicates")
        let resolution = try deletes(transaction)
        XCTAssertEqual(resolution.ids["Photo"]?.sorted(), [half, quarter].sorted())
        XCTAssertEqual(resolution.ids["PhotoData"]?.count, 2)
        XCTAssertEqual(resolution.ids["Thumbnail"]?.count, 2)
        XCTAssertEqual(resolution.ids["Rating"]?.count, 4)
        let photoDeletes = try XCTUnwrap(transaction["changes"] as? [[String: Any]]).filter {
            $0["entity"] as? String == "Photo" && $0["type"] as? String == "delete"
        }
        XCTAssertEqual(
            photoDeletes.compactMap { ($0["tombstone"] as? [String: Any])?["sha256"] as? String }.sorted(),
            [halfSHA, quarterSHA].sorted())

        // The peer that syncs holds the same photos, tags and ratings.
        try ok(["sync", "--from", lib], library: peer)
        XCTAssertEqual(try CanonicalDump.of(peer), try CanonicalDump.of(lib))
        let peerCatalog = try TestCatalog(root: peer)
        XCTAssertEqual(try tags(peerCatalog, kite), ["beach", "kite", "sky", "sunset"])
        XCTAssertEqual(try ratings(peerCatalog, kite), ["alice=5", "bob=3", "carol=4"])
        XCTAssertEqual(
            try peerCatalog.rows("SELECT capture_date, capture_source FROM photo WHERE unique_name = ?", [kite]).first,
            ["1975-05-01T10:00:00", "manual"])

        try ok(["delete", aqua])
        let deleted = try deletes(try lastTransaction())
        XCTAssertEqual(deleted.keys, resolution.keys)
        XCTAssertEqual(Set(deleted.keys.keys), ["Photo", "PhotoData", "Thumbnail", "Rating"])

        // Nothing left to resolve.
        let again = try run(["--library", lib, "duplicates", "--resolve"])
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertTrue(again.stdout.contains("Deleted 0 photos in 0 groups"), again.stdout)
    }

    /// Zones (a photo is in one): a keeper of the default zone joins the one share of this
    /// library its duplicates are in (its participants keep the picture), with its tags made the
    /// share's; the default zone's copy is deleted too.
    func testTheKeeperJoinsTheShareOfItsDuplicates() throws {
        let names = try makeGroup()
        let kite = try XCTUnwrap(names["kite.jpg"]), half = try XCTUnwrap(names["kite-half.jpg"])
        let quarter = try XCTUnwrap(names["kite-quarter.jpg"])
        try ok(["tag", "add", "beach", half])
        let share = try XCTUnwrap(
            try json(try ok(["--json", "share", "create", half, "--title", "Trip"]))["id"] as? String)
        let resolved = try json(try ok(["--json", "duplicates", "--resolve", "--yes"]))
        let group = try XCTUnwrap((resolved["groups"] as? [[String: Any]])?.first)
        XCTAssertEqual(group["zoneBefore"] as? String, "default")
        XCTAssertEqual(group["zone"] as? String, share)
        XCTAssertEqual(resolved["deleted"] as? Int, 2)
        let listed = try listedByDisplayName(lib)
        XCTAssertEqual(listed.keys.sorted(), ["aqua.jpg", "kite.jpg"])
        XCTAssertEqual(listed["kite.jpg"]?["zone"] as? String, share)
        XCTAssertEqual(listed["kite.jpg"]?["tags"] as? [String], ["beach"])
        let catalog = try TestCatalog(root: lib)
        XCTAssertEqual(
            try catalog.scalarString(
                "SELECT t.zone_id FROM photo_tag pt JOIN tag t ON t.id = pt.tag_id JOIN photo p ON p.id = pt.photo_id WHERE p.unique_name = ?",
                [kite]), share, "the keeper's tag is the share's: no relationship crosses zones")
        XCTAssertNil(listed["kite-quarter.jpg"], "\(quarter): the default zone's copy is deleted too")
    }

    /// Copies in two shares while the keeper is in the default zone: both stay (deleting either
    /// would take the picture from its share), the group is left as it is and listed with why.
    func testDuplicatesInTwoSharesStay() throws {
        let names = try makeGroup()
        let half = try XCTUnwrap(names["kite-half.jpg"]), quarter = try XCTUnwrap(names["kite-quarter.jpg"])
        try ok(["share", "create", half, "--title", "Trip"])
        try ok(["share", "create", quarter, "--title", "Family"])
        let before = try LibrarySnapshot.dumpCatalog(lib)
        let resolved = try run(["--library", lib, "duplicates", "--resolve", "--yes"])
        XCTAssertEqual(resolved.status, 0, resolved.stderr)
        XCTAssertTrue(resolved.stdout.contains("left group of \(try XCTUnwrap(names["kite.jpg"])): "), resolved.stdout)
        XCTAssertTrue(resolved.stdout.contains("deleting it would take the picture from that share"), resolved.stdout)
        XCTAssertTrue(
            resolved.stdout.contains("Deleted 0 photos in 0 groups; 1 group left as they are"), resolved.stdout)
        XCTAssertEqual(try LibrarySnapshot.dumpCatalog(lib), before)
    }

    /// A read-only participant's library: a group in the share's zone is left whole (the
    /// permission rule of every write, as for `delete`), nothing changes; the owner resolves it,
    /// and the participant's next changeset carries the resolution.
    func testAReadOnlyParticipantLeavesTheGroupAndTheOwnersResolutionReachesIt() throws {
        let names = try makeGroup()
        let kite = try XCTUnwrap(names["kite.jpg"]), half = try XCTUnwrap(names["kite-half.jpg"])
        let quarter = try XCTUnwrap(names["kite-quarter.jpg"])
        let share = try XCTUnwrap(
            try json(try ok(["--json", "share", "create", kite, half, quarter, "--title", "Kites"]))["id"] as? String)
        try ok(["share", "invite", share, "bob@example.org", "--permission", "read-only"])
        try ok(["share", "export", share, "--for", "bob@example.org", "-o", dir + "/to-bob-1"])
        let bob = dir + "/bob"
        try ok(["share", "accept", dir + "/to-bob-1"], library: bob)
        // Photos that came by a changeset have no signature, and a read-only participant may not
        // compute them (`thumbnails --rebuild` exits 77): the owner's rows are copied in, by
        // uniqueName, as a participant with signatures from before would have them.
        XCTAssertEqual(try run(["--library", bob, "thumbnails", "--rebuild", "-q"]).status, 77)
        let owners = try TestCatalog(root: lib), bobs = try TestCatalog(root: bob)
        for row in try owners.rows(
            "SELECT p.unique_name, s.algorithm, s.phash, s.mean_cb, s.mean_cr, s.low_information FROM photo_signature s JOIN photo p ON p.id = s.photo_id"
        ) {
            try bobs.run(
                "INSERT INTO photo_signature (photo_id, algorithm, phash, mean_cb, mean_cr, low_information) SELECT id, \(row[1] ?? "0"), \(row[2] ?? "0"), \(row[3] ?? "0"), \(row[4] ?? "0"), \(row[5] ?? "0") FROM photo WHERE unique_name = ?",
                [row[0] ?? ""])
        }
        XCTAssertEqual(try bobs.scalarInt("SELECT count(*) FROM photo_signature"), 3)
        let before = try LibrarySnapshot.dumpCatalog(bob)
        let refused = try run(["--library", bob, "--json", "duplicates", "--resolve", "--yes"])
        XCTAssertEqual(refused.status, 0, refused.stderr)
        let report = try json(refused.stdout)
        XCTAssertEqual(report["deleted"] as? Int, 0)
        let skipped = try XCTUnwrap((report["skipped"] as? [[String: Any]])?.first)
        XCTAssertEqual(skipped["keeper"] as? String, kite)
        XCTAssertTrue(
            (skipped["why"] as? String)?.contains("the keeper is in a share this library may not change") == true,
            "\(skipped)")
        XCTAssertEqual(try LibrarySnapshot.dumpCatalog(bob), before)

        try ok(["duplicates", "--resolve", "--yes", "-q"])
        try ok(["share", "export", share, "--for", "bob@example.org", "-o", dir + "/to-bob-2"])
        try ok(["sync", "--apply", dir + "/to-bob-2", "--yes"], library: bob)
        XCTAssertEqual(try listedByDisplayName(bob).keys.sorted(), ["kite.jpg"])
        XCTAssertNil(try listedByDisplayName(bob)["kite-half.jpg"], half)
        XCTAssertNil(try listedByDisplayName(bob)["kite-quarter.jpg"], quarter)
    }

    /// Two ratings by one author: the value changed last wins by sync's stamps, not by when a
    /// changeset was applied here. A peer's alice=5 on a copy made before this library's alice=2
    /// on the keeper, applied after it, loses; a later one by the peer wins.
    func testTheLaterRatingWinsBySyncsStampsNotByWhenItArrived() throws {
        let names = try makeGroup()
        let kite = try XCTUnwrap(names["kite.jpg"]), half = try XCTUnwrap(names["kite-half.jpg"])
        let peer = dir + "/peer"
        try ok(["init", "-q"], library: peer)
        try ok(["sync", "--from", lib], library: peer)
        try ok(["--author", "alice", "rate", half, "5"], library: peer)
        try ok(["--author", "alice", "rate", kite, "2"])
        try ok(["sync", "--from", peer, "--yes"])
        func planned() throws -> [String] {
            let plan = try json(try ok(["--json", "duplicates", "--resolve", "--dry-run"]))
            let group = try XCTUnwrap((plan["groups"] as? [[String: Any]])?.first)
            return try XCTUnwrap(group["ratings"] as? [[String: Any]]).map {
                "\($0["author"] as? String ?? "-"):\($0["before"] as? Int ?? 0)→\($0["after"] as? Int ?? 0)"
            }
        }
        XCTAssertEqual(try planned(), [], "alice's 2, set here after the peer's 5, stays")
        try ok(["--author", "alice", "rate", half, "4"], library: peer)
        try ok(["sync", "--from", peer, "--yes"])
        XCTAssertEqual(try planned(), ["alice:2→4"])
    }

    /// Anonymous ratings (embedded `xmp:Rating`, no author) are one author of the union: the
    /// keeper's 2, imported before a copy's 4, takes the 4 and the change is reported; a copy's
    /// anonymous rating older than the keeper's is not taken. (Before, a keeper with an anonymous
    /// rating kept it whatever the others said, and nothing was reported.)
    func testAnonymousRatingsJoinTheUnionTheLaterWins() throws {
        let input = try makeGroupFiles()
        try exiftool(input + "/kite-quarter.jpg", ["-XMP-xmp:Rating=1"])
        try exiftool(input + "/kite.jpg", ["-XMP-xmp:Rating=2"])
        try exiftool(input + "/kite-half.jpg", ["-XMP-xmp:Rating=4"])
        let later = dir + "/later"
        try FileManager.default.createDirectory(atPath: later, withIntermediateDirectories: true)
        try FileManager.default.moveItem(atPath: input + "/kite-half.jpg", toPath: later + "/kite-half.jpg")
        let earlier = dir + "/earlier"
        try FileManager.default.createDirectory(atPath: earlier, withIntermediateDirectories: true)
        try FileManager.default.moveItem(atPath: input + "/kite-quarter.jpg", toPath: earlier + "/kite-quarter.jpg")
        try ok(["import", "-q", earlier])
        try ok(["import", "-q", input])
        try ok(["import", "-q", later])
        let names = try listedByDisplayName(lib).compactMapValues { $0["uniqueName"] as? String }
        let kite = try XCTUnwrap(names["kite.jpg"]), half = try XCTUnwrap(names["kite-half.jpg"])
        let catalog = try TestCatalog(root: lib)
        XCTAssertEqual(try ratings(catalog, kite), ["-=2"])
        let dry = try ok(["duplicates", "--resolve", "--dry-run"])
        XCTAssertTrue(dry.contains("  would set rating by (anonymous): 2 → 4 (from \(half))\n"), dry)
        let result = try json(try ok(["--json", "duplicates", "--resolve", "--yes"]))
        let group = try XCTUnwrap((result["groups"] as? [[String: Any]])?.first)
        XCTAssertEqual(group["keeper"] as? String, kite)
        let reported = try XCTUnwrap(group["ratings"] as? [[String: Any]]).map {
            "\($0["author"] as? String ?? "-"):\($0["before"] as? Int ?? 0)→\($0["after"] as? Int ?? 0):\($0["from"] as? String ?? "")"
        }
        XCTAssertEqual(reported, ["-:2→4:\(half)"])
        XCTAssertEqual(try ratings(catalog, kite), ["-=4"], "one anonymous rating, the later value")
        XCTAssertEqual(try catalog.scalarInt("SELECT count(*) FROM rating"), 1)
    }

    /// The keeper without a title or description takes a member's (issue 26 item 6); one it
    /// has stays; a peer that syncs gets it.
    func testTheKeeperTakesAMembersTitleAndDescription() throws {
        let names = try makeGroup()
        let kite = try XCTUnwrap(names["kite.jpg"]), half = try XCTUnwrap(names["kite-half.jpg"])
        let quarter = try XCTUnwrap(names["kite-quarter.jpg"])
        try ok(["describe", kite, "--description", "Mine"])
        try ok(["describe", half, "--title", "Kite festival", "--description", "Theirs"])
        let peer = dir + "/peer"
        try ok(["init", "-q"], library: peer)
        try ok(["sync", "--from", lib], library: peer)
        let dry = try ok(["duplicates", "--resolve", "--dry-run"])
        XCTAssertTrue(dry.contains("  would set title: Kite festival (from \(half))\n"), dry)
        XCTAssertFalse(dry.contains("set description"), dry)
        let result = try json(try ok(["--json", "duplicates", "--resolve", "--yes"]))
        let group = try XCTUnwrap((result["groups"] as? [[String: Any]])?.first)
        XCTAssertEqual((group["title"] as? [String: Any])?["from"] as? String, half)
        XCTAssertTrue(group["description"] is NSNull)
        let catalog = try TestCatalog(root: lib)
        XCTAssertEqual(
            try catalog.rows("SELECT title, description FROM photo WHERE unique_name = ?", [kite]).first,
            ["Kite festival", "Mine"])
        XCTAssertEqual(try catalog.scalarInt("SELECT count(*) FROM photo WHERE unique_name = ?", [quarter]), 0)
        try ok(["sync", "--from", lib], library: peer)
        XCTAssertEqual(
            try TestCatalog(root: peer).rows("SELECT title, description FROM photo WHERE unique_name = ?", [kite])
                .first, ["Kite festival", "Mine"])
    }

    /// On a terminal the command lists what goes and asks; "n" changes nothing.
    func testTerminalListsWhatGoesAndNoChangesNothing() throws {
        let names = try makeGroup()
        let half = try XCTUnwrap(names["kite-half.jpg"])
        let before = try LibrarySnapshot.dumpCatalog(lib)
        let asked = try PseudoTerminal.run(try binary(), ["--library", lib, "duplicates", "--resolve"], input: "n\n")
        XCTAssertEqual(asked.status, 1, asked.terminalText)
        XCTAssertTrue(asked.terminalText.contains("  would delete \(half)  kite-half.jpg\n"), asked.terminalText)
        XCTAssertTrue(
            asked.terminalText.contains(
                "Delete 2 photos of 1 duplicate group, their keepers taking their tags and ratings? [y/N] "),
            asked.terminalText)
        XCTAssertEqual(try LibrarySnapshot.dumpCatalog(lib), before)
        let yes = try PseudoTerminal.run(try binary(), ["--library", lib, "duplicates", "--resolve"], input: "y\n")
        XCTAssertEqual(yes.status, 0, yes.terminalText)
        XCTAssertEqual(try listedByDisplayName(lib).keys.sorted(), ["aqua.jpg", "kite.jpg"])
    }

    /// A keeper deleted between finding the groups and resolving them: a clear error, nothing
    /// changed (in-process, where the two steps can be split).
    func testAKeeperDeletedMeanwhileChangesNothing() throws {
        let names = try makeGroup()
        let library = try Library(root: lib, create: false)
        let report = try library.findDuplicates(matching: PhotoFilter(), threshold: .same)
        let group = try XCTUnwrap(report.groups.first)
        XCTAssertEqual(group.keeper.uniqueName, names["kite.jpg"])
        try library.deletePhotos([group.keeper], author: "photos")
        let before = try LibrarySnapshot.dumpCatalog(lib)
        XCTAssertThrowsError(try library.resolveDuplicates(report.groups, author: "photos")) { error in
            XCTAssertEqual(
                error as? DuplicateResolveError,
                .keeperGone(keeper: group.keeper.uniqueName, displayName: "kite.jpg"))
            XCTAssertTrue("\(error)".contains("was deleted meanwhile; nothing was changed"), "\(error)")
        }
        XCTAssertEqual(try LibrarySnapshot.dumpCatalog(lib), before)
        XCTAssertEqual(try listedByDisplayName(lib).count, 3)
    }
}
