import Foundation
import XCTest
import PhotosTestSupport

/// Destructive commands (`delete`, `purge`, `history compact`, `verify --repair`, `tag delete`;
/// the others in `DestructiveCountsTests`) ask before deleting or removing anything when stdin
/// and stderr are terminals, never when not (cron), not with `--yes`, and each has a
/// `--dry-run` that changes nothing. Run as the
/// binary on a pseudo-terminal; every check reads the library afterwards.
final class DestructiveConfirmationTests: BinaryTestCase {
    override var label: String { "photos-confirm" }
    var lib: String { dir + "/lib" }

    /// A library of the six samples; returns their uniqueNames.
    private func makeLibrary() throws -> [String] {
        let imported = try run(["--library", lib, "import", samplesDir, "--quiet"])
        XCTAssertEqual(imported.status, 0, imported.stderr)
        return try uniqueNames()
    }

    private func uniqueNames() throws -> [String] {
        let listed = try run(["--library", lib, "--json", "list"])
        XCTAssertEqual(listed.status, 0, listed.stderr)
        return try listed.stdout.split(separator: "\n").map { line in
            let object = try XCTUnwrap(
                JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], String(line))
            return try XCTUnwrap(object["uniqueName"] as? String)
        }
    }

    /// Runs the binary with stdin, stdout and stderr on a terminal, typing `answer`.
    private func onTerminal(_ args: [String], answer: String = "") throws -> TerminalRun {
        try PseudoTerminal.run(try binary(), ["--library", lib] + args, input: answer)
    }

    func testDeleteOfSeveralPhotosAsksOnATerminalAndANoKeepsThem() throws {
        let names = try makeLibrary()
        let declined = try onTerminal(["delete", names[0], names[1]], answer: "n\n")
        XCTAssertEqual(declined.status, 1, declined.terminalText)
        XCTAssertTrue(
            declined.terminalText.hasPrefix("Delete 2 photos with their thumbnails? [y/N] "),
            declined.terminalText)
        XCTAssertTrue(declined.terminalText.contains("not confirmed: nothing was changed"), declined.terminalText)
        XCTAssertEqual(try uniqueNames().count, 6)

        let empty = try onTerminal(["delete", names[0], names[1]], answer: "\n")
        XCTAssertEqual(empty.status, 1, "an empty answer is no")
        XCTAssertEqual(try uniqueNames().count, 6)

        let accepted = try onTerminal(["delete", names[0], names[1]], answer: "yes\n")
        XCTAssertEqual(accepted.status, 0, accepted.terminalText)
        XCTAssertTrue(accepted.terminalText.hasSuffix("Deleted 2 photos\n"), accepted.terminalText)
        XCTAssertEqual(Set(try uniqueNames()), Set(names[2...]))
    }

    func testAYesFlagAndNoTerminalNeverAsk() throws {
        let names = try makeLibrary()
        let one = try onTerminal(["delete", names[0], "--yes"], answer: "n\n")
        XCTAssertEqual(one.status, 0)
        XCTAssertEqual(one.terminalText, "Deleted 1 photo\n", "--yes: no question")

        let yes = try onTerminal(["delete", names[1], names[2], "--yes"], answer: "n\n")
        XCTAssertEqual(yes.terminalText, "Deleted 2 photos\n")

        // As cron runs it: stdin and stdout not terminals (stdin /dev/null, pipes).
        let cron = try run(["--library", lib, "delete", names[3], names[4]])
        XCTAssertEqual(cron.status, 0, cron.stderr)
        XCTAssertEqual(cron.stderr, "")
        XCTAssertEqual(try uniqueNames(), [names[5]])

        // stderr on a terminal but stdin not: still never asks (no one could answer).
        _ = try makeLibrary()
        let remaining = try uniqueNames()
        let noInput = try PseudoTerminal.run(
            try binary(), ["--library", lib, "delete"] + remaining, stdinOnTerminal: false)
        XCTAssertEqual(noInput.status, 0, noInput.terminalText)
        XCTAssertFalse(noInput.terminalText.contains("[y/N]"))
        XCTAssertEqual(try uniqueNames(), [])
    }

    func testDryRunOfDeleteAndTagDeleteChangesNothing() throws {
        let names = try makeLibrary()
        XCTAssertEqual(try run(["--library", lib, "tag", "add", "trip", names[0], names[1]]).status, 0)
        let before = try run(["--library", lib, "--json", "list"]).stdout

        let delete = try onTerminal(["delete", "--dry-run", names[0], names[1]], answer: "n\n")
        XCTAssertEqual(delete.status, 0, delete.terminalText)
        XCTAssertEqual(delete.terminalText, "Would delete 2 photos\n  \(names[0])\n  \(names[1])\n")
        let tag = try onTerminal(["tag", "delete", "trip", "--dry-run"], answer: "n\n")
        XCTAssertEqual(tag.status, 0, tag.terminalText)
        XCTAssertTrue(tag.terminalText.hasPrefix("Would delete 1 tag named 'trip'"), tag.terminalText)

        XCTAssertEqual(try run(["--library", lib, "--json", "list"]).stdout, before)
        let history = try run(["--library", lib, "--json", "history"]).stdout
        XCTAssertFalse(history.contains("\"delete\""), "a dry run records nothing")
    }

    func testPurgeHistoryCompactAndVerifyRepairAskAndANoChangesNothing() throws {
        let names = try makeLibrary()
        let share = try run(["--library", lib, "--json", "share", "create", names[0], names[1]])
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(share.stdout.utf8)) as? [String: Any])
        let zone = try XCTUnwrap(object["id"] as? String)

        let title = try XCTUnwrap(object["title"] as? String)

        // share remove asks on a terminal, naming the share by title and id (issue 32 item 4).
        let remove = try onTerminal(["share", "remove", zone, names[0]], answer: "n\n")
        XCTAssertEqual(remove.status, 1, remove.terminalText)
        XCTAssertTrue(
            remove.terminalText.hasPrefix("Move 1 photo out of share '\(title)' (\(zone))?"), remove.terminalText)

        let purge = try onTerminal(["purge", "--share", zone], answer: "n\n")
        XCTAssertEqual(purge.status, 1, purge.terminalText)
        XCTAssertTrue(
            purge.terminalText.hasPrefix(
                "Purge share '\(title)' (\(zone)): 2 photos, 0 ratings, 0 tags, 0 participants, 1 share"),
            purge.terminalText)
        XCTAssertEqual(try uniqueNames().count, 6)

        let tokens = try run(["--library", lib, "--json", "history"]).stdout.split(separator: "\n").count
        let compact = try onTerminal(["history", "compact", "--before-token", "1000000"], answer: "n\n")
        XCTAssertEqual(compact.status, 1, compact.terminalText)
        XCTAssertTrue(compact.terminalText.hasPrefix("Delete "), compact.terminalText)
        XCTAssertEqual(try run(["--library", lib, "--json", "history"]).stdout.split(separator: "\n").count, tokens)

        // Two orphan originals: --repair would remove both.
        let orphans = ["ab/ab" + String(repeating: "0", count: 62), "cd/cd" + String(repeating: "1", count: 62)]
        for orphan in orphans {
            let path = lib + "/ExternalData/" + orphan
            try FileManager.default.createDirectory(
                atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data("orphan".utf8)))
        }
        let repair = try onTerminal(["verify", "--repair"], answer: "n\n")
        XCTAssertEqual(repair.status, 1, repair.terminalText)
        XCTAssertTrue(repair.terminalText.contains("Delete 2 orphan files? [y/N] "), repair.terminalText)
        for orphan in orphans {
            XCTAssertTrue(FileManager.default.fileExists(atPath: lib + "/ExternalData/" + orphan), "declined: kept")
        }
        let repaired = try onTerminal(["verify", "--repair", "--yes"], answer: "n\n")
        XCTAssertFalse(repaired.terminalText.contains("[y/N]"))
        for orphan in orphans {
            XCTAssertFalse(FileManager.default.fileExists(atPath: lib + "/ExternalData/" + orphan), "--yes: removed")
        }
    }
}
