import Foundation
import XCTest
import PhotosTestSupport

/// Issue 31 A10: every destructive command counts the objects it deletes or removes (photos,
/// tag links, ratings, participants, files), names them in its question on a terminal, changes
/// nothing on "n" (the catalog dumped before and after), has a `--dry-run` that lists and
/// changes nothing, and goes on with `--yes` or without a terminal. Run as the binary on a
/// pseudo-terminal; an answer is always typed, so an unexpected question cannot hang a test.
final class DestructiveCountsTests: BinaryTestCase {
    override var label: String { "photos-counts" }
    var lib: String { dir + "/lib" }

    @discardableResult
    private func ok(_ args: [String], library: String? = nil, file: StaticString = #filePath, line: UInt = #line)
        throws -> String
    {
        var environment = ProcessInfo.processInfo.environment
        environment["PHOTOS_OWNER"] = "olga@example.org"
        let r = try runProcess(try binary(), ["--library", library ?? lib] + args, environment: environment)
        XCTAssertEqual(r.status, 0, "\(args): \(r.stderr)", file: file, line: line)
        return r.stdout
    }

    /// The uniqueNames of `library`'s photos (list order) after importing `files` of the samples.
    private func makeLibrary(_ files: [String]? = nil, library: String? = nil) throws -> [String] {
        let paths = files.map { $0.map { samplesDir + "/" + $0 } } ?? [samplesDir]
        try ok(["import", "--quiet"] + paths, library: library)
        return try photos(library).map(\.name)
    }

    /// (uniqueName, displayName, sorted tags, zone) of every photo, in list order.
    private func photos(_ library: String? = nil) throws -> [(
        name: String, display: String, tags: [String], zone: String
    )] {
        try ok(["--json", "list"], library: library).split(separator: "\n").map { line in
            let o = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            return (
                try XCTUnwrap(o["uniqueName"] as? String), try XCTUnwrap(o["displayName"] as? String),
                ((o["tags"] as? [String]) ?? []).sorted(), (o["zone"] as? String) ?? ""
            )
        }
    }

    private func onTerminal(_ args: [String], answer: String, library: String? = nil) throws -> TerminalRun {
        try PseudoTerminal.run(try binary(), ["--library", library ?? lib] + args, input: answer)
    }

    /// Asserts that `args` asks exactly `question` on a terminal, that "n" exits 1 and leaves the
    /// catalog as it was, and that `--dry-run` asks nothing, prints `dryRun` and leaves it too.
    private func assertAsksAndChangesNothing(
        _ args: [String], question: String, dryRun: String, library: String? = nil,
        file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let root = library ?? lib
        let before = try LibrarySnapshot.dumpCatalog(root)
        let files = LibrarySnapshot.fileTree(root + "/ExternalData")
        let declined = try onTerminal(args, answer: "n\n", library: library)
        XCTAssertEqual(declined.status, 1, declined.terminalText, file: file, line: line)
        XCTAssertTrue(
            declined.terminalText.hasPrefix(question + " [y/N] "), "\(args): \(declined.terminalText)", file: file,
            line: line)
        XCTAssertTrue(
            declined.terminalText.contains("not confirmed: nothing was changed"), declined.terminalText, file: file,
            line: line)
        XCTAssertEqual(
            try LibrarySnapshot.dumpCatalog(root), before, "\(args): 'n' changed the catalog", file: file, line: line)
        XCTAssertEqual(LibrarySnapshot.fileTree(root + "/ExternalData"), files, file: file, line: line)

        let dry = try onTerminal(args + ["--dry-run"], answer: "n\n", library: library)
        XCTAssertEqual(dry.status, 0, dry.terminalText, file: file, line: line)
        XCTAssertFalse(dry.terminalText.contains("[y/N]"), "a dry run asks nothing", file: file, line: line)
        XCTAssertEqual(dry.terminalText, dryRun, "\(args) --dry-run", file: file, line: line)
        XCTAssertEqual(
            try LibrarySnapshot.dumpCatalog(root), before, "\(args): --dry-run changed the catalog", file: file,
            line: line)
        XCTAssertEqual(LibrarySnapshot.fileTree(root + "/ExternalData"), files, file: file, line: line)
    }

    func testTagDeleteNamesThePhotosItIsRemovedFrom() throws {
        let names = try makeLibrary()
        try ok(["tag", "add", "bench"] + names.prefix(3))
        try assertAsksAndChangesNothing(
            ["tag", "delete", "bench"], question: "Delete tag 'bench' from 3 photos?",
            dryRun: "Would delete 1 tag named 'bench' (zone default) from 3 photos\n")
        let yes = try onTerminal(["tag", "delete", "bench", "--yes"], answer: "n\n")
        XCTAssertEqual(yes.status, 0, yes.terminalText)
        XCTAssertEqual(yes.terminalText, "Deleted 1 tag named 'bench' (zone default) from 3 photos\n")
        XCTAssertFalse(try photos().contains { $0.tags.contains("bench") })

        // Without a terminal (cron, a pipe) it never asks and goes on, as documented.
        try ok(["tag", "add", "cron"] + names.prefix(2))
        let cron = try ok(["tag", "delete", "cron"])
        XCTAssertEqual(cron, "Deleted 1 tag named 'cron' (zone default) from 2 photos\n")
        XCTAssertFalse(try photos().contains { $0.tags.contains("cron") })
    }

    func testTagRenameThatMergesAsksAndAPlainRenameDoesNot() throws {
        let names = try makeLibrary()
        try ok(["tag", "add", "old"] + names.prefix(2))
        try ok(["tag", "add", "new", names[2]])
        try ok(["tag", "add", "lonely", names[3]])
        try assertAsksAndChangesNothing(
            ["tag", "rename", "old", "new"], question: "Merge tag 'old' into the existing tag 'new' on 2 photos?",
            dryRun: "Would rename 1 tag 'old' to 'new' (1 tag merged into the existing 'new' on 2 photos)\n")

        // A rename onto a free name removes nothing: no question.
        let plain = try onTerminal(["tag", "rename", "lonely", "alone"], answer: "n\n")
        XCTAssertEqual(plain.status, 0, plain.terminalText)
        XCTAssertEqual(plain.terminalText, "Renamed 1 tag 'lonely' to 'alone'\n")

        let yes = try onTerminal(["tag", "rename", "old", "new"], answer: "y\n")
        XCTAssertEqual(yes.status, 0, yes.terminalText)
        XCTAssertTrue(
            yes.terminalText.hasSuffix(
                "Renamed 1 tag 'old' to 'new' (1 tag merged into the existing 'new' on 2 photos)\n"), yes.terminalText)
        let tagged = try photos().filter { $0.tags.contains("new") }.map(\.name)
        XCTAssertEqual(Set(tagged), Set(names.prefix(3)))
        XCTAssertFalse(try photos().contains { $0.tags.contains("old") })
    }

    func testTagRemoveRatingDeleteAndDeleteOfOnePhotoAsk() throws {
        let names = try makeLibrary()
        let all = try photos()
        try ok(["tag", "add", "bench"] + names.prefix(3))
        try assertAsksAndChangesNothing(
            ["tag", "remove", "bench", names[0], names[1]], question: "Remove tag 'bench' from 2 photos?",
            dryRun: "Would remove 'bench' from 2 photos\n")
        let removed = try onTerminal(["tag", "remove", "bench", names[0], names[1], "--yes"], answer: "n\n")
        XCTAssertEqual(removed.terminalText, "Removed 'bench' from 2 photos\n")
        XCTAssertEqual(try photos().filter { $0.tags.contains("bench") }.map(\.name), [names[2]])

        try ok(["--author", "ann", "rate", names[0], "3"])
        let ratings = try ok(["--json", "rating", "list", names[0]])
        let rating = try XCTUnwrap(
            (try JSONSerialization.jsonObject(with: Data(ratings.split(separator: "\n")[0].utf8)) as? [String: Any])?[
                "id"] as? Int)
        try assertAsksAndChangesNothing(
            ["rating", "delete", "\(rating)"],
            question: "Delete rating \(rating) (value 3 by ann) of photo \(names[0])?",
            dryRun: "Would delete rating \(rating) (value 3) of photo \(names[0])\n")
        let deleted = try onTerminal(["rating", "delete", "\(rating)"], answer: "yes\n")
        XCTAssertEqual(deleted.status, 0, deleted.terminalText)
        XCTAssertEqual(try ok(["--json", "rating", "list", names[0]]), "")

        // One photo is asked about too (the rule is "deletes a photo", not "more than one").
        // Not ladybird.jpg, whose sidecar gives it a rating.
        let plain = try XCTUnwrap(all.suffix(3).first { $0.display != "ladybird.jpg" })
        let links = plain.tags.count
        try assertAsksAndChangesNothing(
            ["delete", plain.name],
            question: links == 0
                ? "Delete 1 photo (\(plain.display)) with its thumbnail?"
                : "Delete 1 photo (\(plain.display)) with its thumbnail and \(links == 1 ? "1 tag link" : "\(links) tag links")?",
            dryRun: "Would delete 1 photo\n  \(plain.name)\n")
        XCTAssertEqual(try photos().count, 6)
    }

    /// `delete` counts the links it removes (faults after issue 31: it said "and ratings"
    /// whatever they were): ratings and tag links (the tags stay), and a share's photos.
    func testDeleteCountsTheRatingsTagLinksAndSharesItRemoves() throws {
        let other = dir + "/counted"
        let names = try makeLibrary(["storm.jpg", "path.jpg"], library: other)
        let display = try XCTUnwrap(try photos(other).first { $0.name == names[0] }).display
        try assertAsksAndChangesNothing(
            ["delete", names[0]], question: "Delete 1 photo (\(display)) with its thumbnail?",
            dryRun: "Would delete 1 photo\n  \(names[0])\n", library: other)
        try ok(["--author", "ann", "rate", names[0], "4"], library: other)
        try ok(["--author", "bob", "rate", names[0], "2"], library: other)
        try ok(["tag", "add", "keep", names[0]], library: other)
        try ok(["tag", "add", "also", names[0], names[1]], library: other)
        try assertAsksAndChangesNothing(
            ["delete", names[0]],
            question: "Delete 1 photo (\(display)) with its thumbnail, 2 ratings and 2 tag links?",
            dryRun: "Would delete 1 photo\n  \(names[0])\n", library: other)
        try ok(["share", "create", "--title", "S", names[1]], library: other)
        let question =
            "Delete 2 photos with their thumbnails, 2 ratings and 3 tag links; 1 of them from shares (for their participants too)?"
        let declined = try onTerminal(["delete", names[0], names[1]], answer: "n\n", library: other)
        XCTAssertEqual(declined.status, 1, declined.terminalText)
        XCTAssertTrue(declined.terminalText.hasPrefix(question + " [y/N] "), declined.terminalText)
        XCTAssertEqual(try photos(other).count, 2)
    }

    /// The owner shares two photos with ann (read-write); returns the share id.
    private func shareWithAnn(_ names: [String]) throws -> String {
        let created = try ok(["--json", "share", "create", "--title", "Holiday", names[0], names[1]])
        let share = try XCTUnwrap(
            (try JSONSerialization.jsonObject(with: Data(created.utf8)) as? [String: Any])?["id"] as? String)
        try ok(["share", "invite", share, "ann@example.org", "--permission", "read-write"])
        try ok(["share", "export", share, "--for", "ann@example.org", "-o", dir + "/to-ann"])
        try ok(["share", "accept", dir + "/to-ann"], library: dir + "/ann")
        return share
    }

    func testShareLeaveStopAndUninviteAskNamingWhatGoes() throws {
        let names = try makeLibrary(["storm.jpg", "path.jpg", "kite.png"])
        try ok(["tag", "add", "trip", names[0]])
        let share = try shareWithAnn(names)
        let ann = dir + "/ann"
        XCTAssertEqual(try photos(ann).count, 2)

        try assertAsksAndChangesNothing(
            ["share", "leave", share],
            question:
                "Leave share \(share) and delete 2 photos, 0 ratings, 1 tag, 2 participants, 1 share here, with their original files?",
            dryRun:
                "Would leave share \(share); would delete 2 photos, 0 ratings, 1 tag, 2 participants, 1 share here\n",
            library: ann)
        let left = try onTerminal(["share", "leave", share, "--yes"], answer: "n\n", library: ann)
        XCTAssertEqual(left.status, 0, left.terminalText)
        XCTAssertEqual(left.terminalText, "Left share \(share); deleted its 2 photos here\n")
        XCTAssertEqual(try photos(ann).count, 0)

        try assertAsksAndChangesNothing(
            ["share", "uninvite", share, "ann@example.org"], question: "Remove ann@example.org from share \(share)?",
            dryRun: "Would remove ann@example.org from share \(share)\n")
        try assertAsksAndChangesNothing(
            ["share", "stop", share],
            question:
                "Stop sharing \(share): move 2 photos back to the default zone and remove the share with 2 participants?",
            dryRun:
                "Would stop sharing \(share); would move 2 photos back to the default zone and remove 2 participants\n")
        XCTAssertEqual(try photos().filter { $0.zone == share }.count, 2)
        let stopped = try onTerminal(["share", "stop", share], answer: "y\n")
        XCTAssertEqual(stopped.status, 0, stopped.terminalText)
        XCTAssertEqual(try photos().map(\.zone), ["default", "default", "default"])
    }

    func testSyncThatDeletesAPhotoAsksAndDryRunAppliesNothing() throws {
        let names = try makeLibrary(["storm.jpg", "path.jpg"])
        let peer = dir + "/peer"
        try ok(["init", "-q"], library: peer)
        try ok(["sync", "--from", lib], library: peer)
        XCTAssertEqual(try photos(peer).count, 2)
        try ok(["delete", names[0]])
        let question = try onTerminal(["sync", "--from", lib], answer: "n\n", library: peer)
        XCTAssertEqual(question.status, 1, question.terminalText)
        XCTAssertTrue(
            question.terminalText.contains(
                ": delete 1 object here (1 photo with its ratings and tag links), insert 0, update 0? [y/N] "),
            question.terminalText)
        XCTAssertTrue(question.terminalText.contains("Apply tokens "), question.terminalText)
        XCTAssertEqual(try photos(peer).count, 2, "'n' applied nothing")

        try ok(["sync", "--export", dir + "/cs"])
        let before = try LibrarySnapshot.dumpCatalog(peer)
        let dry = try onTerminal(["sync", "--apply", dir + "/cs", "--dry-run"], answer: "n\n", library: peer)
        XCTAssertEqual(dry.status, 0, dry.terminalText)
        XCTAssertTrue(dry.terminalText.contains("Would apply tokens 1…"), dry.terminalText)
        XCTAssertTrue(dry.terminalText.contains("1 deleted (1 photo)"), dry.terminalText)
        XCTAssertEqual(try LibrarySnapshot.dumpCatalog(peer), before, "--dry-run applied nothing")
        XCTAssertEqual(try photos(peer).count, 2)

        let usage = try run(["--library", peer, "sync", "--export", dir + "/cs2", "--dry-run"])
        XCTAssertEqual(usage.status, 64, usage.stderr)

        let yes = try onTerminal(["sync", "--apply", dir + "/cs", "--yes"], answer: "n\n", library: peer)
        XCTAssertEqual(yes.status, 0, yes.terminalText)
        XCTAssertEqual(try photos(peer).map(\.name), [names[1]])
    }

    func testVerifyRepairNamesThePhotoItDeletesAndTheOrphanFile() throws {
        _ = try makeLibrary(["storm.jpg", "path.jpg"])
        let storm = try XCTUnwrap(try photos().first { $0.display == "storm.jpg" })
        let shown = try ok(["--json", "show", storm.name])
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(shown.utf8)) as? [String: Any])
        let sha = try XCTUnwrap(object["sha256"] as? String)
        let original = lib + "/ExternalData/" + sha.prefix(2) + "/" + sha
        XCTAssertTrue(FileManager.default.fileExists(atPath: original), original)
        try FileManager.default.removeItem(atPath: original)
        let orphan = lib + "/ExternalData/ab/ab" + String(repeating: "0", count: 62)
        try FileManager.default.createDirectory(atPath: lib + "/ExternalData/ab", withIntermediateDirectories: true)
        XCTAssertTrue(FileManager.default.createFile(atPath: orphan, contents: Data("orphan".utf8)))

        let before = try LibrarySnapshot.dumpCatalog(lib)
        let declined = try onTerminal(["verify", "--repair"], answer: "n\n")
        XCTAssertEqual(declined.status, 1, declined.terminalText)
        XCTAssertTrue(
            declined.terminalText.contains(
                "\nDelete 1 photo whose original is missing (storm.jpg) and 1 orphan file? [y/N] "),
            declined.terminalText)
        XCTAssertTrue(declined.terminalText.contains("  would repair: delete photo \(storm.name) (storm.jpg)"))
        XCTAssertEqual(try LibrarySnapshot.dumpCatalog(lib), before)
        XCTAssertTrue(FileManager.default.fileExists(atPath: orphan), "declined: the orphan stays")

        let repaired = try onTerminal(["verify", "--repair", "--yes"], answer: "n\n")
        XCTAssertFalse(repaired.terminalText.contains("[y/N]"), repaired.terminalText)
        XCTAssertEqual(try photos().map(\.display), ["path.jpg"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: orphan))
    }

    func testExportCleanupAsksNamingTheFilesItRemoves() throws {
        let names = try makeLibrary(["storm.jpg", "path.jpg"])
        let dest = dir + "/out"
        try ok(["export", dest])
        try ok(["delete", names[0]])
        let files = LibrarySnapshot.fileTree(dest)
        let declined = try onTerminal(["export", dest, "--cleanup"], answer: "n\n")
        XCTAssertEqual(declined.status, 1, declined.terminalText)
        XCTAssertTrue(
            declined.terminalText.hasPrefix("Remove 2 files from \(dest) that this export no longer produces? [y/N] "),
            declined.terminalText)
        XCTAssertEqual(LibrarySnapshot.fileTree(dest), files, "declined: DEST unchanged")
        let yes = try onTerminal(["export", dest, "--cleanup", "--yes"], answer: "n\n")
        XCTAssertEqual(yes.status, 0, yes.terminalText)
        XCTAssertTrue(yes.terminalText.contains("2 files removed"), yes.terminalText)
        XCTAssertEqual(LibrarySnapshot.fileTree(dest).count, files.count - 2)
    }

    /// Every destructive command offers --dry-run and --yes in its help, and the man page's
    /// CONFIRMATION section names it.
    func testEveryDestructiveCommandHasDryRunAndYes() throws {
        let commands = [
            ["delete"], ["tag", "delete"], ["tag", "rename"], ["tag", "remove"], ["rating", "delete"],
            ["share", "leave"], ["share", "stop"], ["share", "uninvite"], ["share", "accept"], ["purge"], ["sync"],
            ["verify"], ["dedupe-tags"], ["merge"], ["history", "compact"], ["export"]
        ]
        let man = try String(
            contentsOfFile: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent("man/photos.1").path, encoding: .utf8)
        let section =
            try XCTUnwrap(man.components(separatedBy: ".SH CONFIRMATION").dropFirst().first)
            .components(separatedBy: ".SH ").first ?? ""
        for command in commands {
            let help = try run(["help"] + command)
            XCTAssertEqual(help.status, 0, "\(command): \(help.stderr)")
            XCTAssertTrue(help.stdout.contains("--dry-run"), "\(command) --help lacks --dry-run")
            XCTAssertTrue(help.stdout.contains("--yes"), "\(command) --help lacks --yes")
            XCTAssertTrue(
                section.contains(command.joined(separator: " ")), "photos(1) CONFIRMATION does not name \(command)")
        }
    }

    /// Two libraries that each tagged a photo 'trip': merged, the tag is a duplicate, which
    /// dedupe-tags deletes (asking on a terminal); the same photo in both, whose original is
    /// missing here: the merge asks before replacing it.
    func testDedupeTagsAndAMergeThatReplacesAnOriginalAsk() throws {
        let other = dir + "/other"
        let names = try makeLibrary(["storm.jpg"])
        _ = try makeLibrary(["storm.jpg", "path.jpg"], library: other)
        try ok(["tag", "add", "trip", names[0]])
        let path = try XCTUnwrap(try photos(other).first { $0.display == "path.jpg" }).name
        try ok(["tag", "add", "trip", path], library: other)

        let shown = try ok(["--json", "show", names[0]])
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(shown.utf8)) as? [String: Any])
        let sha = try XCTUnwrap(object["sha256"] as? String)
        let original = lib + "/ExternalData/" + sha.prefix(2) + "/" + sha
        try FileManager.default.removeItem(atPath: original)
        let before = try LibrarySnapshot.dumpCatalog(lib)
        let declined = try onTerminal(["merge", "--from", other], answer: "n\n")
        XCTAssertEqual(declined.status, 1, declined.terminalText)
        XCTAssertTrue(
            declined.terminalText.contains("Merge from \(other): replace 1 missing or damaged original? [y/N] "),
            declined.terminalText)
        XCTAssertEqual(try LibrarySnapshot.dumpCatalog(lib), before)
        XCTAssertFalse(FileManager.default.fileExists(atPath: original), "declined: nothing restored")
        let merged = try onTerminal(["merge", "--from", other, "--yes"], answer: "n\n")
        XCTAssertEqual(merged.status, 0, merged.terminalText)
        XCTAssertTrue(FileManager.default.fileExists(atPath: original), "--yes: the original is back")

        let dryText = try onTerminal(["dedupe-tags", "--all", "--dry-run"], answer: "n\n").terminalText
        XCTAssertTrue(dryText.hasSuffix("Would merge 1 duplicate tag in 1 group; 1 photo relinked\n"), dryText)
        try assertAsksAndChangesNothing(
            ["dedupe-tags", "--all"],
            question: "Delete 1 duplicate tag in 1 group, relinking 1 photo to the tags that stay?", dryRun: dryText)
        XCTAssertEqual(try ok(["--json", "tag", "list"]).split(separator: "\n").count, 2, "two tags named trip")
        let deduped = try onTerminal(["dedupe-tags", "--all", "--yes"], answer: "n\n")
        XCTAssertEqual(deduped.status, 0, deduped.terminalText)
        XCTAssertTrue(deduped.terminalText.hasSuffix("Merged 1 duplicate tag in 1 group; 1 photo relinked\n"))
        XCTAssertEqual(try ok(["--json", "tag", "list"]).split(separator: "\n").count, 1)
        XCTAssertEqual(try photos().filter { $0.tags == ["trip"] }.count, 2)
    }
}
