import Foundation
import PhotosSQLite
import PhotosTestSupport
import XCTest

/// A catalog whose version number says one thing and whose tables say another is refused at
/// open by every command — another program's tables with 73 (EX_CANTCREAT, as for a version-0
/// file), a missing table or column of its version with 65 (EX_DATAERR) naming it — and not
/// met half-way as "no such table" with 70, the exit status kept for bugs. Nothing is changed.
final class CatalogNotWhatItsVersionSaysTests: BinaryTestCase {
    /// The commands tried on every catalog, each of which opened it differently: `init` peeks
    /// read-only then migrates, `import` opens to write, `list` read-only, `verify` to repair.
    private let commands: [[String]] = [["init"], ["import", "-q"], ["list"], ["verify", "--quick"]]

    private func expectEveryCommand(_ lib: String, status: Int32, saying words: [String]) throws {
        for command in commands {
            let args = command == ["import", "-q"] ? command + [samplesDir + "/storm.jpg"] : command
            let result = try run(["--library", lib] + args)
            XCTAssertEqual(result.status, status, "\(args): \(result.stderr)")
            for word in words { XCTAssertTrue(result.stderr.contains(word), "\(args): \(result.stderr)") }
        }
    }

    /// SQLite files made by another program that sets `user_version` itself (in rollback
    /// journal mode, as most programs leave them). A file refused before anything is written
    /// keeps every byte; one that claims an older photos version is switched to WAL (as a
    /// library of that version would be) before its migration fails, but keeps its tables,
    /// rows and version.
    func testAnotherProgramsSQLiteFileWithAVersion() throws {
        try TestDatabase.requireSQLite(because: "the file is made with SQLite's user_version")
        for (version, setup, status, words, sameBytes) in [
            (
                0, "CREATE TABLE foo (x); INSERT INTO foo VALUES (1);", Int32(73),
                ["holds table foo of another program"], true
            ),
            (3, "CREATE TABLE foo (x); INSERT INTO foo VALUES (1);", 73, ["holds table foo of another program"], true),
            (
                Schema.currentVersion, "CREATE TABLE foo (x); INSERT INTO foo VALUES (1);", 73,
                ["holds table foo of another program"], true
            ),
            (Schema.currentVersion, "", 65, ["says schema version \(Schema.currentVersion)", "(no table zone)"], true),
            // An older version without its tables: its next migration fails, nothing is made.
            (6, "", 65, ["says schema version 6", "no such table: main.photo_data"], false),
            (3, "", 65, ["says schema version 3", "no such table: photo"], false),
            (
                1, "CREATE TABLE photo (x); INSERT INTO photo VALUES (1);", 65,
                ["says schema version 1", "no such column"], false
            )
        ] as [(Int, String, Int32, [String], Bool)] {
            let lib = dir + "/v\(version)-\(setup.isEmpty ? "empty" : "tables")"
            try FileManager.default.createDirectory(atPath: lib, withIntermediateDirectories: true)
            let file = lib + "/photos.sqlite"
            let made = try Database(path: file)
            try made.execute(setup + "PRAGMA user_version = \(version); PRAGMA journal_mode = DELETE;")
            made.close()
            let before = try XCTUnwrap(FileManager.default.contents(atPath: file))
            let dump = try contents(of: file)
            try expectEveryCommand(lib, status: status, saying: words)
            if sameBytes {
                XCTAssertEqual(FileManager.default.contents(atPath: file), before, "every byte of \(file) kept")
            }
            XCTAssertEqual(try contents(of: file), dump, "the tables, rows and version of \(file) kept")
            XCTAssertFalse(dump.isEmpty)
        }
    }

    /// The file's version, tables and rows, read without writing to it.
    private func contents(of file: String) throws -> [String] {
        let db = try Database(path: file, readOnly: true)
        defer { db.close() }
        var lines = ["user_version \(try db.scalarInt("PRAGMA user_version") ?? -1)"]
        for table in try db.tableNames() {
            lines.append("table \(table)")
            lines += try db.statement("SELECT * FROM \"\(table)\"").map { "row \($0.string(0))" }
        }
        return lines
    }

    /// A library of this version that lost a column or a table (by hand, or a broken restore),
    /// on either backend.
    func testALibraryMissingAColumnOrATable() throws {
        for (name, damage, words) in [
            ("column", "ALTER TABLE photo DROP COLUMN capture_source", ["no column photo.capture_source"]),
            ("table", "DROP TABLE history_consumer", ["no table history_consumer"])
        ] {
            let lib = dir + "/" + name
            XCTAssertEqual(try run(["--library", lib, "import", "-q", samplesDir + "/path.jpg"]).status, 0)
            let catalog = try TestCatalog(root: lib)
            try catalog.execute(damage)
            let photos = try catalog.scalarInt("SELECT count(*) FROM photo")
            try expectEveryCommand(lib, status: 65, saying: ["says schema version \(Schema.currentVersion)"] + words)
            XCTAssertEqual(try TestCatalog(root: lib).scalarInt("SELECT count(*) FROM photo"), photos)
            XCTAssertEqual(photos, 1, "the import before the damage")
        }
    }

    /// Another program's table beside a whole library of this version.
    func testAnotherProgramsTableBesideALibrary() throws {
        let lib = dir + "/beside"
        XCTAssertEqual(try run(["--library", lib, "import", "-q", samplesDir + "/path.jpg"]).status, 0)
        try TestCatalog(root: lib).execute("CREATE TABLE notes (body TEXT)")
        try expectEveryCommand(lib, status: 73, saying: ["holds table notes of another program"])
    }
}
