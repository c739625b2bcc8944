import Foundation
import PhotosCore
import PhotosTestSupport
import XCTest

/// A shared folder as a mailbox (issue 29 item 3): `share publish --to DIR` and `sync --inbox
/// DIR` between an owner and two participants who never see each other, with a sync tool's
/// partial files and a file cut short planted in the folder, in a seeded random order until
/// quiet: all converge, on both backends.
final class MailboxTests: BinaryTestCase {
    override var label: String { "photos-mailbox" }

    /// uniqueName → (sorted tags, sorted "author=value" ratings) of every photo of `lib`.
    func state(_ lib: String) throws -> [String: [String]] {
        var result: [String: [String]] = [:]
        for line in try ok(lib, ["list", "--json"]).split(separator: "\n") {
            let photo = try json(String(line))
            let name = try XCTUnwrap(photo["uniqueName"] as? String)
            let tags = (photo["tags"] as? [String] ?? []).sorted()
            result[name] = tags + [photo["sha256"] as? String ?? "?"]
        }
        return result
    }

    func mailboxFiles(_ box: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: box).filter { $0.hasSuffix(".photos-changeset") }.sorted()
    }

    /// Sets up the owner with two photos in share "Trip", bob (read-write) and carol
    /// (read-only) invited, the first changesets published and accepted from the folder.
    func makeShare() throws -> (owner: String, bob: String, carol: String, box: String, photos: [String]) {
        let owner = dir + "/owner", bob = dir + "/bob", carol = dir + "/carol", box = dir + "/box"
        try FileManager.default.createDirectory(atPath: box, withIntermediateDirectories: true)
        try ok(owner, ["import", "-q", samplesDir + "/storm.jpg", samplesDir + "/path.jpg"])
        let photos = try state(owner).keys.sorted()
        try ok(owner, ["share", "create", "-q", "--title", "Trip"] + photos)
        try ok(owner, ["share", "invite", "-q", "Trip", "bob@example.org", "--permission", "read-write"])
        try ok(owner, ["share", "invite", "-q", "Trip", "carol@example.org", "--permission", "read-only"])
        let published = try json(try ok(owner, ["--json", "share", "publish", "--to", box]))
        XCTAssertEqual((published["written"] as? [String])?.count, 2, "\(published)")
        let files = try mailboxFiles(box)
        XCTAssertEqual(files.count, 2)
        let forBob = try XCTUnwrap(files.first { $0.contains(".bob@example%2Eorg.") })
        let forCarol = try XCTUnwrap(files.first { $0.contains(".carol@example%2Eorg.") })
        for lib in [bob, carol] { XCTAssertEqual(try run(["init", "-q", lib]).status, 0) }
        // Before accepting, the inbox names the invitation and applies nothing.
        let waiting = try json(try ok(bob, ["--json", "sync", "--inbox", box, "--no-publish"]))
        XCTAssertEqual((waiting["invitations"] as? [String])?.sorted(), [forBob, forCarol].sorted())
        XCTAssertEqual((waiting["applied"] as? [Any])?.count, 0)
        try ok(bob, ["share", "accept", box + "/" + forBob])
        try ok(carol, ["share", "accept", box + "/" + forCarol])
        XCTAssertEqual(try state(bob), try state(owner))
        XCTAssertEqual(try state(carol), try state(owner))
        return (owner, bob, carol, box, photos)
    }

    func testThreeLibrariesConvergeThroughOneFolderInARandomOrder() throws {
        let (owner, bob, carol, box, photos) = try makeShare()
        // A sync tool's partial files and our own dot-file: never read.
        for name in [
            ".syncthing.x.photos-changeset.tmp", "~syncthing~y.photos-changeset.tmp", "z.photos-changeset.part"
        ] {
            XCTAssertTrue(FileManager.default.createFile(atPath: box + "/" + name, contents: Data("junk".utf8)))
        }
        try ok(bob, ["tag", "add", "FromBob", photos[0]])
        try ok(bob, ["rate", photos[0], "5"])
        try ok(owner, ["tag", "add", "FromOwner", photos[1]])
        try ok(owner, ["rate", photos[0], "3"])
        // A file cut short under a valid name (a sync tool still copying it): left alone.
        let libs = [owner, bob, carol]
        var seed: UInt64 = 0x5EED_2026
        func next(_ n: Int) -> Int {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((seed >> 33) % UInt64(n))
        }
        var cutName: String?
        for _ in 0..<9 {
            let lib = libs[next(3)]
            try ok(lib, ["sync", "--inbox", box, "-q"])
            if cutName == nil, let bobs = try mailboxFiles(box).first(where: { $0.contains(".owner.") }) {
                // Another device's file to the owner, half copied.
                let bytes = try XCTUnwrap(FileManager.default.contents(atPath: box + "/" + bobs))
                var fields = bobs.components(separatedBy: ".")
                fields[1] = "ffffffff-0000-4000-8000-000000000000"
                fields[3] = "0-9999"
                let name = fields.joined(separator: ".")
                XCTAssertTrue(
                    FileManager.default.createFile(atPath: box + "/" + name, contents: bytes.prefix(bytes.count / 2)))
                cutName = name
            }
        }
        let cut = try XCTUnwrap(cutName)
        // Until quiet: a round in which nobody applies or writes anything.
        var rounds = 0
        while true {
            rounds += 1
            XCTAssertLessThan(rounds, 8, "no quiet round")
            if rounds >= 8 { break }
            var busy = false
            for lib in libs {
                let r = try json(try ok(lib, ["--json", "sync", "--inbox", box]))
                let applied = (r["applied"] as? [Any])?.count ?? 0
                let written = ((r["published"] as? [String: Any])?["written"] as? [Any])?.count ?? 0
                if applied + written > 0 { busy = true }
            }
            if !busy { break }
        }
        let expected = try state(owner)
        XCTAssertEqual(try state(bob), expected)
        XCTAssertEqual(try state(carol), expected)
        XCTAssertEqual(expected[photos[0]]?.contains("FromBob"), true)
        XCTAssertEqual(expected[photos[1]]?.contains("FromOwner"), true)
        for lib in libs {
            let ratings = try ok(lib, ["rating", "list", photos[0]])
            XCTAssertTrue(ratings.contains("5") && ratings.contains("3"), "\(lib): \(ratings)")
        }
        let people = try XCTUnwrap(
            try json(try ok(owner, ["share", "list", "--json"]))["participants"] as? [[String: Any]])
        for email in ["bob@example.org", "carol@example.org"] {
            XCTAssertEqual(
                people.first { $0["email"] as? String == email }?["acceptance"] as? String, "accepted", email)
        }
        for lib in libs {
            let v = try run(["--library", lib, "verify"])
            XCTAssertTrue(v.stdout.contains("0 problems"), "\(lib): \(v.stdout) \(v.stderr)")
        }
        // The cut file is named as not whole, never applied; the junk is still there, untouched.
        let last = try json(try ok(owner, ["--json", "sync", "--inbox", box, "--no-publish"]))
        XCTAssertEqual(last["incomplete"] as? [String], [cut], "\(last)")
        XCTAssertEqual(
            try String(contentsOfFile: box + "/z.photos-changeset.part", encoding: .utf8), "junk")
        // One file per sender and side at most (newer ones replaced the older), plus the cut one.
        let files = try mailboxFiles(box)
        XCTAssertEqual(files.count, 5, "\(files)")
        // --prune: each reader removes the changes it applied; what is left besides the cut file
        // are acknowledgement-only files (FROM = TO, no originals), at most one per sender and
        // side, which their writers replace. A second round of all three is quiet and stable:
        // nothing applied, written or pruned, the same files.
        for lib in libs { try ok(lib, ["sync", "--inbox", box, "--prune", "-q"]) }
        let left = try mailboxFiles(box)
        XCTAssertTrue(left.contains(cut), "\(left)")
        for file in left where file != cut {
            let name = try XCTUnwrap(MailboxName(fileName: file), file)
            XCTAssertEqual(name.fromToken, name.toToken, "a file with changes left after --prune: \(file)")
            let size = try XCTUnwrap(try FileManager.default.attributesOfItem(atPath: box + "/" + file)[.size] as? Int)
            XCTAssertLessThan(size, 64 * 1024, file)
        }
        XCTAssertLessThanOrEqual(left.count, 5, "\(left)")
        let dumps = try libs.map { try LibrarySnapshot.dumpCatalog($0) }
        for lib in libs {
            let r = try json(try ok(lib, ["--json", "sync", "--inbox", box, "--prune"]))
            XCTAssertEqual((r["applied"] as? [Any])?.count, 0, "\(lib): \(r)")
            XCTAssertEqual(r["pruned"] as? Int, 0, "\(lib): \(r)")
            XCTAssertEqual(((r["published"] as? [String: Any])?["written"] as? [Any])?.count, 0, "\(lib): \(r)")
        }
        XCTAssertEqual(try mailboxFiles(box), left)
        XCTAssertEqual(try libs.map { try LibrarySnapshot.dumpCatalog($0) }, dumps, "a quiet round changed a catalog")
        XCTAssertEqual(try state(bob), expected)
        XCTAssertEqual(try state(carol), expected)
    }

    /// Runs at once, as cron starts them on machines sharing a folder: two of bob's own and the
    /// owner's, twice over, each after an edit on both sides. Each exits 0 (or 75 when its
    /// library was busy past the wait), no dot-file is left behind, and afterwards all
    /// converge with one file per sender and side.
    func testRunsAtOnceOnEveryMachineConverge() throws {
        let (owner, bob, carol, box, photos) = try makeShare()
        for round in 0..<2 {
            try ok(owner, ["tag", "add", "-q", "Owner\(round)", photos[0]])
            try ok(bob, ["tag", "add", "-q", "Bob\(round)", photos[1]])
            let runs = try [owner, bob, bob, carol].map { try launch(["--library", $0, "sync", "--inbox", box]) }
            for p in runs {
                p.waitUntilExit()
                XCTAssertTrue([0, 75].contains(p.terminationStatus), "exit \(p.terminationStatus)")
            }
        }
        for _ in 0..<3 { for lib in [owner, bob, carol] { try ok(lib, ["sync", "-q", "--inbox", box]) } }
        let expected = try state(owner)
        XCTAssertEqual(try state(bob), expected)
        XCTAssertEqual(try state(carol), expected)
        XCTAssertEqual(expected[photos[0]]?.contains("Owner1"), true)
        XCTAssertEqual(expected[photos[1]]?.contains("Bob1"), true)
        let all = try FileManager.default.contentsOfDirectory(atPath: box)
        XCTAssertEqual(all.filter { $0.hasPrefix(".") }, [], "\(all)")
        // Owner → bob, owner → carol, bob → owner, carol → owner.
        XCTAssertEqual(try mailboxFiles(box).count, 4, "\(all)")
    }

    /// A file for this library with one byte of an original changed is refused (65, named),
    /// and nothing of it is applied.
    func testATamperedFileIsRefusedAndNothingApplied() throws {
        let (owner, bob, _, box, photos) = try makeShare()
        try ok(owner, ["tag", "add", "Later", photos[0]])
        try ok(owner, ["import", "-q", samplesDir + "/kite.png"])
        let kite = try XCTUnwrap(try state(owner).keys.first { !photos.contains($0) })
        try ok(owner, ["share", "add", "Trip", kite])
        let wrote = try json(try ok(owner, ["--json", "share", "publish", "--to", box]))
        XCTAssertEqual((wrote["written"] as? [String])?.count, 2)
        let forBob = try XCTUnwrap(try mailboxFiles(box).first { $0.contains(".bob@example%2Eorg.") })
        var bytes = [UInt8](try XCTUnwrap(FileManager.default.contents(atPath: box + "/" + forBob)))
        // A byte in the last original's data (the end line and its hash line are the last ~100).
        bytes[bytes.count - 200] ^= 0x01
        XCTAssertTrue(FileManager.default.createFile(atPath: box + "/" + forBob, contents: Data(bytes)))
        let before = try LibrarySnapshot.dumpCatalog(bob)
        let r = try run(["--library", bob, "sync", "--inbox", box, "--no-publish"])
        XCTAssertEqual(r.status, 65, r.stderr)
        XCTAssertTrue(r.stderr.contains(forBob), r.stderr)
        XCTAssertEqual(try LibrarySnapshot.dumpCatalog(bob), before)
        // The owner publishes again (nothing new: up to date); a sync tool brings the right
        // bytes back, and the next run applies them.
        let again = try json(try ok(owner, ["--json", "share", "publish", "--to", box]))
        XCTAssertEqual((again["written"] as? [String])?.count, 0)
        XCTAssertEqual(again["upToDate"] as? Int, 2)
        bytes[bytes.count - 200] ^= 0x01
        XCTAssertTrue(FileManager.default.createFile(atPath: box + "/" + forBob, contents: Data(bytes)))
        try ok(bob, ["sync", "--inbox", box])
        XCTAssertEqual(try state(bob), try state(owner))
    }

    /// A FIFO and a folder under the name of a participant's file to the owner are no changeset
    /// a sender wrote: left alone (exit 0, neither refused nor "not whole"), and the FIFO never
    /// blocks the run (open(2) of a FIFO waits for a writer, and SIGTERM does not end that wait).
    func testAFifoOrAFolderNamedLikeAChangesetIsLeftAloneWithoutHanging() throws {
        let (owner, _, _, box, _) = try makeShare()
        let share = try XCTUnwrap(try mailboxFiles(box).first?.components(separatedBy: ".").first)
        let base = box + "/" + share + ".11111111-2222-4333-8444-555555555555.owner."
        let fifo = base + "0-5.a0.photos-changeset", folder = base + "0-6.a0.photos-changeset"
        XCTAssertEqual(mkfifo(fifo, 0o644), 0)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        // Should the run block on the FIFO, a writer opening it after 20 s lets the test end.
        let watchdog = Thread {
            Thread.sleep(forTimeInterval: 20)
            let fd = open(fifo, O_WRONLY | O_NONBLOCK)
            if fd >= 0 { close(fd) }
        }
        watchdog.start()
        let started = Date()
        let r = try run(["--library", owner, "--json", "sync", "--inbox", box, "--no-publish"])
        XCTAssertLessThan(Date().timeIntervalSince(started), 15, "the run waited on the FIFO")
        XCTAssertEqual(r.status, 0, r.stderr)
        let report = try json(r.stdout)
        XCTAssertEqual(report["incomplete"] as? [String], [], r.stdout)
        XCTAssertEqual((report["refused"] as? [Any])?.count, 0, r.stdout)
    }

    /// Only the spelling `MailboxName` writes is a mailbox name: another spelling of the same
    /// fields (lower-case or needless percent escapes, zeros or a plus before a token) would be
    /// read under one name and pruned or superseded under another.
    func testOnlyTheCanonicalSpellingIsAMailboxName() throws {
        let name = MailboxName(
            share: "s1", sender: "lib", recipient: "bob@example.org", fromToken: 7, toToken: 9, acknowledged: 3)
        XCTAssertEqual(name.fileName, "s1.lib.bob@example%2Eorg.7-9.a3.photos-changeset")
        XCTAssertEqual(MailboxName(fileName: name.fileName), name)
        for variant in [
            "s1.lib.bob@example%2eorg.7-9.a3.photos-changeset", "%731.lib.bob@example%2Eorg.7-9.a3.photos-changeset",
            "s1.lib.bob@example%2Eorg.07-9.a3.photos-changeset", "s1.lib.bob@example%2Eorg.7-+9.a3.photos-changeset",
            "s1.lib.bob@example%2Eorg.7-9.a03.photos-changeset", "s1.lib.bob@example%2Eorg.+7-9.a3.photos-changeset"
        ] {
            XCTAssertNil(MailboxName(fileName: variant), variant)
        }
    }

    /// A file whose name says other tokens than it holds is refused (65, naming both), nothing
    /// applied: the name decides what is applied before and what --prune removes. So is a file
    /// with bytes after its end line.
    func testAFileWhoseNameDisagreesWithItsContentIsRefused() throws {
        let (owner, bob, _, box, photos) = try makeShare()
        try ok(owner, ["tag", "add", "Later", photos[0]])
        try ok(owner, ["share", "publish", "-q", "--to", box])
        let forBob = try XCTUnwrap(try mailboxFiles(box).first { $0.contains(".bob@example%2Eorg.") })
        let parsed = try XCTUnwrap(MailboxName(fileName: forBob))
        var lying = parsed
        lying.toToken += 1
        XCTAssertEqual(rename(box + "/" + forBob, box + "/" + lying.fileName), 0)
        let before = try LibrarySnapshot.dumpCatalog(bob)
        let r = try run(["--library", bob, "sync", "--inbox", box, "--no-publish"])
        XCTAssertEqual(r.status, 65, r.stderr)
        XCTAssertTrue(r.stderr.contains(lying.fileName) && r.stderr.contains("its name says"), r.stderr)
        XCTAssertTrue(try LibrarySnapshot.dumpCatalog(bob) == before, "the refused file changed the catalog")
        // The right name, one byte after the end line: refused too.
        XCTAssertEqual(rename(box + "/" + lying.fileName, box + "/" + forBob), 0)
        let handle = try XCTUnwrap(FileHandle(forWritingAtPath: box + "/" + forBob))
        handle.seekToEndOfFile()
        handle.write(Data("x".utf8))
        handle.closeFile()
        let extra = try run(["--library", bob, "sync", "--inbox", box, "--no-publish"])
        XCTAssertEqual(extra.status, 65, extra.stderr)
        XCTAssertTrue(extra.stderr.contains("after its end line"), extra.stderr)
        XCTAssertTrue(try LibrarySnapshot.dumpCatalog(bob) == before, "the refused file changed the catalog")
    }

    /// What a publish or inbox run killed with SIGKILL leaves (its dot-file in the folder, its
    /// unpacked changeset in the library) is removed by the next run of that library; another
    /// library's dot-file and a live process's are not.
    func testARunKilledMidPublishLeavesNothingAfterTheNextRun() throws {
        let (owner, bob, _, box, photos) = try makeShare()
        let dead = Process()
        dead.executableURL = URL(fileURLWithPath: "/bin/true")
        try dead.run()
        dead.waitUntilExit()
        let pid = dead.processIdentifier
        let ownerFile = try XCTUnwrap(try mailboxFiles(box).first { $0.contains(".bob@example%2Eorg.") })
        var newer = try XCTUnwrap(MailboxName(fileName: ownerFile))
        newer.toToken += 1
        let stale = box + "/." + newer.fileName + ".\(pid).tmp"
        let live = box + "/." + newer.fileName + ".\(getpid()).tmp"
        var others = newer
        others.sender = "22222222-2222-4222-8222-222222222222"
        let foreign = box + "/." + others.fileName + ".\(pid).tmp"
        let unpacked = owner + "/.photos-mailbox-\(pid)-7"
        for path in [stale, live, foreign] {
            XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(repeating: 1, count: 4096)))
        }
        try FileManager.default.createDirectory(atPath: unpacked + "/originals", withIntermediateDirectories: true)
        try ok(owner, ["tag", "add", "Again", photos[1]])
        try ok(owner, ["sync", "--inbox", box, "-q"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: stale))
        XCTAssertFalse(FileManager.default.fileExists(atPath: unpacked))
        XCTAssertTrue(FileManager.default.fileExists(atPath: live))
        XCTAssertTrue(FileManager.default.fileExists(atPath: foreign))
        try ok(bob, ["sync", "--inbox", box, "-q"])
        XCTAssertEqual(try state(bob), try state(owner))
    }

    /// The last file of a participant the owner then uninvited stays in the folder (its writer
    /// gets nothing more to replace it): the owner's runs leave it alone, exit 0, apply nothing
    /// of it, instead of failing (65) on every run from then on.
    func testAFileOfAnUninvitedParticipantDoesNotFailEveryLaterRun() throws {
        let (owner, bob, _, box, photos) = try makeShare()
        try ok(bob, ["tag", "add", "-q", "FromBob", photos[0]])
        try ok(bob, ["share", "publish", "-q", "--to", box])
        try ok(owner, ["share", "uninvite", "-q", "--yes", "Trip", "bob@example.org"])
        let fromBob = try XCTUnwrap(try mailboxFiles(box).first { $0.contains(".owner.") })
        for _ in 0..<2 {
            let r = try run(["--library", owner, "--json", "sync", "--inbox", box])
            XCTAssertEqual(r.status, 0, r.stderr)
            let report = try json(r.stdout)
            XCTAssertEqual(report["fromRemoved"] as? [String], [fromBob], r.stdout)
            XCTAssertEqual((report["refused"] as? [Any])?.count, 0, r.stdout)
        }
        XCTAssertEqual(try state(owner)[photos[0]]?.contains("FromBob"), false)
    }

    func testBadFoldersAndOptions() throws {
        let lib = dir + "/lib"
        XCTAssertEqual(try run(["init", "-q", lib]).status, 0)
        XCTAssertEqual(try run(["--library", lib, "sync", "--inbox", dir + "/none"]).status, 66)
        XCTAssertEqual(try run(["--library", lib, "share", "publish", "--to", dir + "/none"]).status, 73)
        XCTAssertEqual(try run(["--library", lib, "sync", "--apply", dir + "/x", "--prune"]).status, 64)
        XCTAssertEqual(try run(["--library", lib, "sync", "--inbox", dir, "--dry-run"]).status, 64)
        // A file that is not a changeset stream, given to share accept: 65, named.
        let junk = dir + "/junk.photos-changeset"
        XCTAssertTrue(FileManager.default.createFile(atPath: junk, contents: Data("file x 1\n".utf8)))
        let r = try run(["--library", lib, "share", "accept", junk])
        XCTAssertEqual(r.status, 65, r.stderr)
        XCTAssertTrue(r.stderr.contains(junk), r.stderr)
    }
}
