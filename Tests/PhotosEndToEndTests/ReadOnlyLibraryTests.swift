import Foundation
import XCTest
import PhotosTestSupport
import PhotosSQLite

/// Issue 9 item 10: a library this user may only read can still be read, and commands that
/// would write it fail with 77 naming what is not writable — never 70.
///
/// The tests run as root here and in CI, and root ignores file permissions: the commands run
/// as `nobody` through `setpriv` (skipped with a message when that is not possible), against
/// a library owned by root with modes 0755/0644. The read-only mount case uses an unprivileged
/// user-and-mount namespace (`unshare -rm`) and is skipped where that is not allowed.
final class ReadOnlyLibraryTests: BinaryTestCase {
    override var label: String { "photos-readonly" }
    var lib: String { dir + "/lib" }

    /// A library with the samples (one in a share with a participant, one rated), readable by
    /// everyone and writable by its owner only; every parent folder can be entered.
    func makeLibrary() throws -> (photo: String, share: String) {
        XCTAssertEqual(try run(["--library", lib, "import", "-q", samplesDir]).status, 0)
        let first =
            try run(["--library", lib, "list", "--json"]).stdout.split(separator: "\n").first.map(String.init) ?? ""
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(first.utf8)) as? [String: Any])
        let photo = try XCTUnwrap(object["uniqueName"] as? String)
        let created = try run([
            "--library", lib, "share", "create", "--title", "Trip", "--owner", "me@example.com", photo, "--json"
        ])
        let share = try XCTUnwrap(
            (try JSONSerialization.jsonObject(with: Data(created.stdout.utf8)) as? [String: Any])?["id"] as? String)
        XCTAssertEqual(try run(["--library", lib, "rate", photo, "4"]).status, 0)
        try setModes(folder: 0o755, files: 0o644)
        chmod(dir, 0o755)
        return (photo, share)
    }

    func setModes(folder: mode_t, files: mode_t) throws {
        chmod(lib, folder)
        for name in try FileManager.default.contentsOfDirectory(atPath: lib)
        where name.hasPrefix("photos.sqlite") || name == "import.lock" {
            chmod(lib + "/" + name, files)
        }
    }

    override func tearDown() {
        chmod(lib, 0o755)
        super.tearDown()
    }

    func libraryFiles() throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: lib).sorted() }

    /// The read commands, each with what its output must hold.
    func assertReadCommandsWork(
        photo: String, share: String, expectName: String = "ladybird.jpg",
        file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let list = try asReader(["--library", lib, "list", "--json"])
        XCTAssertEqual(list.status, 0, list.stderr, file: file, line: line)
        XCTAssertEqual(list.stdout.split(separator: "\n").count, 6, file: file, line: line)
        XCTAssertTrue(list.stdout.contains("\"displayName\":\"\(expectName)\""), list.stdout, file: file, line: line)
        let show = try asReader(["--library", lib, "show", photo, "--json"])
        XCTAssertEqual(show.status, 0, show.stderr, file: file, line: line)
        XCTAssertTrue(show.stdout.contains(photo), file: file, line: line)
        let stats = try asReader(["--library", lib, "stats", "--json"])
        XCTAssertEqual(stats.status, 0, stats.stderr, file: file, line: line)
        XCTAssertTrue(stats.stdout.contains("\"photos\":6"), stats.stdout, file: file, line: line)
        let verify = try asReader(["--library", lib, "verify"])
        XCTAssertEqual(verify.status, 0, verify.stdout + verify.stderr, file: file, line: line)
        XCTAssertTrue(
            verify.stdout.hasPrefix("Checked 6 photos, 6 thumbnails and 6 files: 0 problems"), verify.stdout,
            file: file, line: line)
        let rating = try asReader(["--library", lib, "rating", "list", photo])
        XCTAssertEqual(rating.status, 0, rating.stderr, file: file, line: line)
        XCTAssertTrue(rating.stdout.contains("4"), rating.stdout, file: file, line: line)
        let shares = try asReader(["--library", lib, "share", "list", "--json"])
        XCTAssertEqual(shares.status, 0, shares.stderr, file: file, line: line)
        XCTAssertTrue(shares.stdout.contains(share), file: file, line: line)
        let shown = try asReader(["--library", lib, "share", "show", share])
        XCTAssertEqual(shown.status, 0, shown.stderr, file: file, line: line)
        XCTAssertTrue(shown.stdout.contains("me@example.com"), shown.stdout, file: file, line: line)
        for args in [["schema"], ["tag", "list"], ["history"], ["history", "consumers"], ["verify", "--quick"]] {
            let result = try asReader(["--library", lib] + args)
            XCTAssertEqual(result.status, 0, "\(args): \(result.stderr)", file: file, line: line)
        }
        XCTAssertTrue(try asReader(["--library", lib, "tag", "list"]).stdout.contains("Insect"), file: file, line: line)
        // Outputs go elsewhere: a folder the reader may write.
        let out = dir + "/out-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        chmod(out, 0o777)
        let thumb = try asReader(["--library", lib, "thumbnail", photo, "-o", out + "/t.jpg"])
        XCTAssertEqual(thumb.status, 0, thumb.stderr, file: file, line: line)
        XCTAssertEqual(
            FileManager.default.contents(atPath: out + "/t.jpg")?.prefix(2), Data([0xFF, 0xD8]), file: file, line: line)
        let export = try asReader(["--library", lib, "export", out + "/export", "--json"])
        XCTAssertEqual(export.status, 0, export.stderr, file: file, line: line)
        XCTAssertTrue(export.stdout.contains("\"written\":6"), export.stdout, file: file, line: line)
        XCTAssertTrue(FileManager.default.fileExists(atPath: out + "/export/ladybird.jpg"), file: file, line: line)
    }

    /// Every command that writes: 77 and a message naming `what`; never 70.
    func assertWriteCommandsRefused(
        photo: String, share: String, what: String,
        file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let other = dir + "/other"
        if !FileManager.default.fileExists(atPath: other) {
            XCTAssertEqual(try run(["--library", other, "import", "-q", samplesDir + "/storm.jpg"]).status, 0)
            chmod(other, 0o755)
        }
        let writes: [[String]] = [
            ["tag", "add", photo, "New"], ["rate", photo, "2"], ["delete", photo],
            ["import", samplesDir + "/storm.jpg"],
            ["verify", "--repair"], ["dedupe-tags"], ["history", "--consumer", "x", "--advance"],
            ["purge", "--share", share], ["merge", "--from", other], ["share", "invite", share, "bob@example.com"],
            ["history", "compact", "--before-token", "99"], ["tag", "rename", "Insect", "Bug"]
        ]
        for args in writes {
            let result = try asReader(["--library", lib] + args)
            XCTAssertEqual(result.status, 77, "\(args): \(result.stderr)", file: file, line: line)
            XCTAssertTrue(result.stderr.contains(what), "\(args): \(result.stderr)", file: file, line: line)
            XCTAssertEqual(result.stderr.split(separator: "\n").count, 1, result.stderr, file: file, line: line)
        }
    }

    /// The example: the library folder read-only to the user, no -wal/-shm.
    func testReadOnlyLibraryFolderCanBeReadAndRefusesWritesWith77() throws {
        try TestDatabase.requireSQLite(
            because:
                "a read-only library folder makes photos.sqlite read-only; a PostgreSQL catalog's permissions are the server's"
        )
        let (photo, share) = try makeLibrary()
        let before = try libraryFiles()
        XCTAssertFalse(before.contains("photos.sqlite-wal"))
        try assertReadCommandsWork(photo: photo, share: share)
        try assertWriteCommandsRefused(photo: photo, share: share, what: "the library folder \(lib) is not writable")
        XCTAssertEqual(try libraryFiles(), before, "nothing created in the library")
    }

    /// A read-only library as the source of a merge into the reader's own library, and `init`
    /// on an up-to-date read-only library (nothing to write: it says so, exit 0).
    func testReadOnlyLibraryAsMergeSourceAndInit() throws {
        _ = try makeLibrary()
        let before = try libraryFiles()
        let mine = dir + "/mine"
        try FileManager.default.createDirectory(atPath: mine, withIntermediateDirectories: true)
        if geteuid() == 0 { chown(mine, 65534, 65534) }
        let initialized = try asReader(["--library", lib, "init"])
        XCTAssertEqual(initialized.status, 0, initialized.stderr)
        XCTAssertTrue(initialized.stdout.contains("is up to date"), initialized.stdout)
        XCTAssertEqual(try asReader(["--library", mine + "/lib", "init", "-q"]).status, 0)
        let merged = try asReader(["--library", mine + "/lib", "merge", "--from", lib, "--json"])
        XCTAssertEqual(merged.status, 0, merged.stderr)
        XCTAssertTrue(merged.stdout.contains("\"photos\":6"), merged.stdout)
        let verify = try asReader(["--library", mine + "/lib", "verify"])
        XCTAssertEqual(verify.status, 0, verify.stdout + verify.stderr)
        XCTAssertEqual(try libraryFiles(), before)
    }

    /// The folder read-only while the owner's writer has it open: -wal and -shm exist and the
    /// WAL holds a committed change not yet checkpointed, which the reader must see.
    func testReadOnlyLibraryFolderWithALiveWALShowsTheWALsCommits() throws {
        try TestDatabase.requireSQLite(because: "photos.sqlite's WAL seen by a reader of a read-only folder")
        let (photo, share) = try makeLibrary()
        let writer = try Database(path: lib + "/photos.sqlite")
        try writer.execute("PRAGMA wal_autocheckpoint = 0")
        try writer.run("UPDATE photo SET display_name = 'renamed-in-wal.jpg' WHERE unique_name = ?", [photo])
        XCTAssertTrue(FileManager.default.fileExists(atPath: lib + "/photos.sqlite-wal"))
        try setModes(folder: 0o755, files: 0o644)
        try assertReadCommandsWork(photo: photo, share: share, expectName: "renamed-in-wal.jpg")
        let refused = try asReader(["--library", lib, "rate", photo, "1"])
        XCTAssertEqual(refused.status, 77, refused.stderr)
        _ = writer
    }

    /// Only the database file read-only (the folder writable): reads work without leaving
    /// -wal/-shm files owned by the reader; writes name the database file.
    func testReadOnlyDatabaseFileInAWritableFolder() throws {
        try TestDatabase.requireSQLite(because: "the file mode of photos.sqlite")
        let (photo, share) = try makeLibrary()
        try setModes(folder: 0o777, files: 0o644)
        let before = try libraryFiles()
        try assertReadCommandsWork(photo: photo, share: share)
        try assertWriteCommandsRefused(photo: photo, share: share, what: "\(lib)/photos.sqlite is not writable")
        XCTAssertEqual(try libraryFiles(), before, "no -wal/-shm (or anything) left by the reader")
    }

    /// A read-only mount: reads work, writes exit 77 saying so. Needs an unprivileged user and
    /// mount namespace (`unshare -rm`); skipped where that is not allowed.
    func testReadOnlyMount() throws {
        try TestDatabase.requireSQLite(
            because: "a read-only mount makes photos.sqlite read-only; a PostgreSQL catalog is written on the server")
        let (photo, _) = try makeLibrary()
        let binary = try binary()
        let mountPoint = dir + "/ro"
        try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: true)
        let script = """
            mount --bind '\(lib)' '\(mountPoint)' && mount -o remount,bind,ro '\(mountPoint)' || exit 99
            '\(binary)' --library '\(mountPoint)' list --json > '\(dir)/list.out'; echo "list $?"
            '\(binary)' --library '\(mountPoint)' verify > /dev/null; echo "verify $?"
            '\(binary)' --library '\(mountPoint)' rate '\(photo)' 1 2> '\(dir)/rate.err'; echo "rate $?"
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
        process.arguments = ["-rm", "sh", "-c", script]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare") else { throw XCTSkip("no unshare(1)") }
        try process.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        // 99: the bind mount was refused; no output and a failure: unshare(1) itself was (both a
        // kernel or container setting). Anything else is the test's to judge.
        if process.terminationStatus == 99 || (text.isEmpty && process.terminationStatus != 0) {
            throw XCTSkip(
                "a read-only bind mount needs a user and mount namespace, not allowed here (status \(process.terminationStatus))"
            )
        }
        XCTAssertEqual(text, "list 0\nverify 0\nrate 77\n")
        XCTAssertEqual(try String(contentsOfFile: dir + "/list.out", encoding: .utf8).split(separator: "\n").count, 6)
        XCTAssertTrue(try String(contentsOfFile: dir + "/rate.err", encoding: .utf8).contains("read-only file system"))
    }

    /// Originals this user may not read are "cannot be checked", not missing: `verify --repair`
    /// on a database the user may write must not delete the photos (before, it deleted all).
    func testUnreadableOriginalsAreNotMissingAndRepairDeletesNothing() throws {
        _ = try makeLibrary()
        if geteuid() == 0 {
            chown(lib, 65534, 65534)
            for name in try FileManager.default.contentsOfDirectory(atPath: lib) where name != "ExternalData" {
                chown(lib + "/" + name, 65534, 65534)
            }
        } else {
            chmod(lib, 0o755)
        }
        chmod(lib + "/ExternalData", 0o700)
        if geteuid() != 0 { chmod(lib + "/ExternalData", 0o000) }
        defer { chmod(lib + "/ExternalData", 0o755) }
        let repair = try asReader(["--library", lib, "verify", "--repair", "--quick"])
        if TestDatabase.isPostgreSQL {
            // The catalog's originals root (issue 31 item A3) this user may not use: repair
            // refuses at once (77), before judging any original.
            XCTAssertEqual(repair.status, 77, repair.stdout + repair.stderr)
            XCTAssertTrue(
                repair.stderr.contains(
                    "the catalog's originals root \(lib)/ExternalData cannot be used here: this user may not use it"),
                repair.stderr)
        } else {
            XCTAssertEqual(repair.status, 1, repair.stdout + repair.stderr)
            XCTAssertEqual(
                repair.stdout.components(separatedBy: "problem: unreadable-file: photo ").count - 1, 6, repair.stdout)
            XCTAssertTrue(repair.stdout.contains("ExternalData cannot be listed: Permission denied"), repair.stdout)
            XCTAssertFalse(repair.stdout.contains("missing-file"), repair.stdout)
        }
        chmod(lib + "/ExternalData", 0o755)
        let list = try run(["--library", lib, "list", "--json"])
        XCTAssertEqual(list.stdout.split(separator: "\n").count, 6, "no photo deleted")
    }

    /// Errors are mapped by kind: SQLite's and errno's environment errors get sysexits codes,
    /// never 70.
    func testEnvironmentErrorsMapToSysexitsNot70() throws {
        XCTAssertEqual(try run(["--library", lib, "init", "-q"]).status, 0)
        // A library folder that cannot be entered: 77 naming it.
        chmod(lib, 0o000)
        let entered = try asReader(["--library", lib, "list"])
        chmod(lib, 0o755)
        XCTAssertEqual(entered.status, 77, entered.stderr)
        XCTAssertTrue(entered.stderr.contains(lib), entered.stderr)
        // A database that is not SQLite: 65.
        let bogus = dir + "/bogus"
        try FileManager.default.createDirectory(atPath: bogus, withIntermediateDirectories: true)
        XCTAssertTrue(
            FileManager.default.createFile(
                atPath: bogus + "/photos.sqlite", contents: Data(repeating: 0x41, count: 4096)))
        let notADatabase = try run(["--library", bogus, "list"])
        XCTAssertEqual(notADatabase.status, 65, notADatabase.stderr)
    }
}
