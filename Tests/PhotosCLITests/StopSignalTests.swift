import Foundation
import PhotosTestSupport
import XCTest

/// Issue 31 item 19: SIGINT, SIGTERM and SIGHUP stop a long command at its next batch
/// boundary: what committed stays, what did not is cleaned up (no orphan original, no
/// half-written file), and the exit status is 128 + the signal as rsync's (130, 143, 129).
/// `verify` is clean afterwards without `--repair`, and the same command run again finishes.
final class StopSignalTests: BinaryTestCase {
    override var label: String { "photos-stop-signal" }

    private func photoCount(_ library: String) throws -> Int {
        let listed = try run(["--library", library, "--json", "list"])
        return listed.status == 0 ? listed.stdout.split(separator: "\n").count : 0
    }

    /// Starts `args`, waits until `ready` says so (polled; at most 60 s), sends `signal`, and
    /// returns the exit status — or nil when the command finished before it was ready.
    private func signalled(_ args: [String], _ signal: Int32, when ready: () throws -> Bool) throws -> Int32? {
        let process = try launch(args)
        let deadline = Date().addingTimeInterval(60)
        while process.isRunning, Date() < deadline, !(try ready()) { usleep(20_000) }
        guard process.isRunning else { return nil }
        kill(process.processIdentifier, signal)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationReason, .exit, "it exits, not killed by the signal")
        return process.terminationStatus
    }

    func testAnImportStopsAtABatchBoundaryWith130_143_129AndLeavesNothingToRepair() throws {
        let (input, count) = try makeInput(copies: 40)
        for (signal, status) in [(SIGTERM, 143), (SIGINT, 130), (SIGHUP, 129)] as [(Int32, Int32)] {
            let lib = dir + "/lib-\(signal)"
            XCTAssertEqual(try run(["--library", lib, "init", "-q"]).status, 0)
            let exit = try signalled(
                ["--library", lib, "import", input, "--batch-size", "2", "-j", "1"], signal,
                when: { try photoCount(lib) > 0 })
            guard let exit else {
                throw SetUpFailure("the import of \(count) files finished before the signal: give it more to do")
            }
            XCTAssertEqual(exit, status, "signal \(signal)")
            let committed = try photoCount(lib)
            XCTAssertGreaterThan(committed, 0)
            XCTAssertLessThan(committed, count)
            let verify = try run(["--library", lib, "verify"])
            XCTAssertEqual(verify.status, 0, "signal \(signal): \(verify.stdout)\(verify.stderr)")
            // Nothing but the committed photos' originals: no orphan, no temporary file.
            XCTAssertEqual(filesUnder(lib + "/ExternalData", hidden: true).count, committed, "signal \(signal)")
            let again = try run(["--library", lib, "import", input, "-q"])
            XCTAssertEqual(again.status, 0, again.stderr)
            XCTAssertEqual(try photoCount(lib), count)
        }
    }

    func testAnExportStopsAtABatchBoundaryWith143AndTheNextRunFinishes() throws {
        // 300 photos: five batches of 64.
        let (input, count) = try makeInput(copies: 60)
        let lib = dir + "/lib"
        XCTAssertEqual(try run(["--library", lib, "import", input, "-q"]).status, 0)
        let out = dir + "/out"
        let exit = try signalled(
            ["--library", lib, "export", out, "-j", "1"], SIGTERM,
            when: { filesUnder(out).count > 0 })
        guard let exit else {
            throw SetUpFailure("the export of \(count) photos finished before the signal: give it more to do")
        }
        XCTAssertEqual(exit, 143)
        // The photos' files, without their sidecars.
        func exported() -> [String] { filesUnder(out).filter { !$0.hasSuffix(".xmp") } }
        let written = exported()
        XCTAssertGreaterThan(written.count, 0)
        XCTAssertLessThan(written.count, count)
        XCTAssertEqual(filesUnder(out, hidden: true).filter { $0.contains(".photos-tmp-") }, [], "no half-written file")
        let again = try run(["--library", lib, "export", out, "--update"])
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertEqual(exported().count, count)
    }

    func testAMergeStoppedBySIGINTLeavesNoCopiedOriginal() throws {
        let (input, count) = try makeInput(copies: 30)
        let other = dir + "/other", lib = dir + "/lib"
        XCTAssertEqual(try run(["--library", other, "import", input, "-q"]).status, 0)
        XCTAssertEqual(try run(["--library", lib, "init", "-q"]).status, 0)
        let exit = try signalled(
            ["--library", lib, "merge", "--from", other], SIGINT,
            when: { !filesUnder(lib + "/ExternalData", hidden: true).isEmpty })
        guard let exit else {
            throw SetUpFailure("the merge of \(count) photos finished before the signal: give it more to do")
        }
        XCTAssertEqual(exit, 130)
        // One transaction: nothing committed, and none of the copies left.
        XCTAssertEqual(try photoCount(lib), 0)
        XCTAssertEqual(filesUnder(lib + "/ExternalData", hidden: true), [])
        XCTAssertEqual(try run(["--library", lib, "verify"]).status, 0)
        XCTAssertEqual(try run(["--library", lib, "merge", "--from", other, "-q"]).status, 0)
        XCTAssertEqual(try photoCount(lib), count)
    }

    func testABackupStoppedBySIGTERMLeavesThePreviousBackupWhole() throws {
        try TestDatabase.requireSQLite(
            because:
                "photos backup and restore copy SQLite catalogs (a PostgreSQL catalog is pg_dump's: exit 69, PostgresLibraryCLITests)"
        )
        let lib = dir + "/lib", backup = dir + "/backup"
        XCTAssertEqual(try run(["--library", lib, "import", samplesDir, "-q"]).status, 0)
        XCTAssertEqual(try run(["--library", lib, "backup", backup, "--originals", "-q"]).status, 0)
        let catalogBefore = FileManager.default.contents(atPath: backup + "/photos.sqlite")
        let before = filesUnder(backup + "/ExternalData", hidden: true)
        let (input, count) = try makeInput(copies: 60)
        XCTAssertEqual(try run(["--library", lib, "import", input, "-q"]).status, 0)
        let exit = try signalled(
            ["--library", lib, "backup", backup, "--originals"], SIGTERM,
            when: { filesUnder(backup + "/ExternalData", hidden: true).count > before.count })
        guard let exit else {
            throw SetUpFailure("the backup of \(count) originals finished before the signal: give it more to do")
        }
        XCTAssertEqual(exit, 143)
        XCTAssertEqual(FileManager.default.contents(atPath: backup + "/photos.sqlite"), catalogBefore)
        XCTAssertEqual(filesUnder(backup + "/ExternalData", hidden: true), before, "the originals it added are gone")
        XCTAssertEqual(try run(["--library", backup, "verify"]).status, 0)
        XCTAssertEqual(try photoCount(backup), 6)
        XCTAssertEqual(try run(["--library", lib, "backup", backup, "--originals", "-q"]).status, 0)
        XCTAssertEqual(try photoCount(backup), 6 + count)
    }

    func testARestoreStoppedBySIGINTLeavesNoLibraryAndNoStagingFolder() throws {
        try TestDatabase.requireSQLite(
            because:
                "photos backup and restore copy SQLite catalogs (a PostgreSQL catalog is pg_dump's: exit 69, PostgresLibraryCLITests)"
        )
        let lib = dir + "/lib", backup = dir + "/backup", restored = dir + "/restored"
        let (input, count) = try makeInput(copies: 60)
        XCTAssertEqual(try run(["--library", lib, "import", input, "-q"]).status, 0)
        XCTAssertEqual(try run(["--library", lib, "backup", backup, "--originals", "-q"]).status, 0)
        let staging: () -> [String] = {
            ((try? FileManager.default.contentsOfDirectory(atPath: self.dir)) ?? []).filter {
                $0.contains(".restoring-")
            }
        }
        let exit = try signalled(
            ["--library", restored, "restore", backup], SIGINT,
            when: { staging().contains { filesUnder(self.dir + "/" + $0 + "/ExternalData").count > 0 } })
        guard let exit else {
            throw SetUpFailure("the restore of \(count) originals finished before the signal: give it more to do")
        }
        XCTAssertEqual(exit, 130)
        XCTAssertFalse(FileManager.default.fileExists(atPath: restored), "no half-restored library")
        XCTAssertEqual(staging(), [], "the staging folder is removed")
        XCTAssertEqual(try run(["--library", restored, "restore", backup, "-q"]).status, 0)
        XCTAssertEqual(try photoCount(restored), count)
    }

    func testAThumbnailRebuildStoppedBySIGHUPExits129AndVerifyIsClean() throws {
        let lib = dir + "/lib"
        let (input, count) = try makeInput(copies: 60)
        XCTAssertEqual(try run(["--library", lib, "import", input, "-q"]).status, 0)
        let process = try launch(["--library", lib, "thumbnails", "--rebuild", "-j", "1"])
        usleep(700_000)
        guard process.isRunning else {
            process.waitUntilExit()
            throw SetUpFailure("the rebuild of \(count) thumbnails finished before the signal: give it more to do")
        }
        kill(process.processIdentifier, SIGHUP)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationReason, .exit)
        XCTAssertEqual(process.terminationStatus, 129)
        let verify = try run(["--library", lib, "verify"])
        XCTAssertEqual(verify.status, 0, verify.stdout + verify.stderr)
    }
}
