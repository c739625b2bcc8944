import Foundation
import PhotosTestSupport
import XCTest

/// A photo row whose `format` this version does not know (`'bmp'`, written past the schema's
/// CHECK: SQLite's `ignore_check_constraints`, PostgreSQL's constraint dropped) is a data error
/// of the library that holds it: exit 65 naming that library, never a crash, never a silent
/// `.jpeg`, nothing written (typed photo records, `StoredValueError`).
final class UnknownStoredValueTests: BinaryTestCase {
    /// Two photos imported, then one row's format made `'bmp'` by hand.
    private func libraryWithABMPRow(_ lib: String) throws -> String {
        let imported = try run([
            "--library", lib, "import", "-q", samplesDir + "/colorful-cups-progressive.jpg", samplesDir + "/kite.png"
        ])
        XCTAssertEqual(imported.status, 0, imported.stderr)
        let catalog = try TestCatalog(root: lib)
        switch catalog.backend {
        case .sqlite: try catalog.execute("PRAGMA ignore_check_constraints = ON")
        case .postgresql: try catalog.execute("ALTER TABLE photo DROP CONSTRAINT photo_format_check")
        }
        try catalog.run("UPDATE photo SET format = 'bmp' WHERE display_name = 'kite.png'")
        XCTAssertEqual(try catalog.scalarInt("SELECT count(*) FROM photo WHERE format = 'bmp'"), 1)
        return try XCTUnwrap(try catalog.scalarString("SELECT unique_name FROM photo WHERE format = 'bmp'"))
    }

    private func dump(_ lib: String) throws -> [[String?]] {
        try TestCatalog(root: lib, readOnly: true).rows(
            "SELECT unique_name, format, orientation, zone_id FROM photo ORDER BY unique_name")
            + TestCatalog(root: lib, readOnly: true).rows(
                "SELECT count(*) FROM photo_tag UNION ALL SELECT count(*) FROM rating")
    }

    func testEveryReaderRefusesAnUnknownStoredFormatWith65NamingTheLibrary() throws {
        let lib = dir + "/lib"
        let bmp = try libraryWithABMPRow(lib)
        let before = try dump(lib)
        let commands: [[String]] = [
            ["list"], ["list", "--json"], ["show", bmp], ["export", dir + "/out"], ["sync", "--export", dir + "/cs"],
            ["tag", "add", "x", bmp], ["rate", bmp, "3"], ["gallery", dir + "/gallery"]
        ]
        for command in commands {
            let result = try run(["--library", lib] + command)
            XCTAssertEqual(result.status, 65, "\(command): \(result.stderr)")
            XCTAssertTrue(
                result.stderr.contains("library \(lib): photo.format holds 'bmp'"), "\(command): \(result.stderr)")
        }
        // sync --export wrote the unknown format into a changeset (exit 0) before: no folder now.
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/cs"))
        XCTAssertEqual(try dump(lib), before)
    }

    /// merge named this library (the destination) for the other library's bad row.
    func testMergeNamesTheLibraryMergedFrom() throws {
        let other = dir + "/other", lib = dir + "/lib"
        _ = try libraryWithABMPRow(other)
        XCTAssertEqual(try run(["--library", lib, "init"]).status, 0)
        let merged = try run(["--library", lib, "merge", "--from", other])
        XCTAssertEqual(merged.status, 65, merged.stderr)
        XCTAssertTrue(merged.stderr.contains("library \(other): photo.format holds 'bmp'"), merged.stderr)
        XCTAssertEqual(try TestCatalog(root: lib, readOnly: true).scalarInt("SELECT count(*) FROM photo"), 0)
    }

    /// A stored latitude of 2^62 (past the CHECK) was shown as no position by show and
    /// list --json while --with-location selected the photo; now 65 naming the column.
    func testAnOutOfRangeStoredPositionIs65() throws {
        let lib = dir + "/lib"
        let imported = try run(["--library", lib, "import", "-q", samplesDir + "/colorful-cups-progressive.jpg"])
        XCTAssertEqual(imported.status, 0, imported.stderr)
        let catalog = try TestCatalog(root: lib)
        guard catalog.backend == .sqlite else { throw XCTSkip("the CHECK is bypassed with SQLite's pragma") }
        try catalog.execute("PRAGMA ignore_check_constraints = ON")
        try catalog.run("UPDATE photo SET latitude_e7 = 4611686018427387904")
        let name = try XCTUnwrap(try catalog.scalarString("SELECT unique_name FROM photo"))
        for command in [["show", name], ["list", "--json"], ["list", "--with-location"], ["export", dir + "/out"]] {
            let result = try run(["--library", lib] + command)
            XCTAssertEqual(result.status, 65, "\(command): \(result.stderr)")
            XCTAssertTrue(
                result.stderr.contains("library \(lib): photo.latitude_e7 holds '4611686018427387904'"),
                "\(command): \(result.stderr)")
        }
    }
}
