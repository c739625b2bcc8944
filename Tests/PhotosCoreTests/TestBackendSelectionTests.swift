import Foundation
import PhotosCore
import PhotosPostgreSQL
import PhotosSQLite
import PhotosTestSupport
import XCTest

/// The tests' composition root: a new library is on the run's backend (`PHOTOS_TEST_DATABASE_URL`),
/// an existing folder opens with the backend its contents name, and `TestCatalog` runs the same
/// SQL on either.
final class TestBackendSelectionTests: ImportTestCase {
    func testNewLibraryIsOnTheRunsBackendAndReopensWithIt() throws {
        let root = tmp.file("lib")
        let library = try Library(root: root, create: true)
        XCTAssertEqual(library.testBackend, TestDatabase.backend)
        XCTAssertEqual(TestDatabase.backend(ofLibraryAt: root), TestDatabase.backend)
        let recorded = try PostgresCatalogBackend.recordedConnection(root: root)
        if TestDatabase.isPostgreSQL {
            XCTAssertFalse(FileManager.default.fileExists(atPath: root + "/photos.sqlite"))
            XCTAssertTrue(try XCTUnwrap(recorded).contains("search_path=photos_test_"), recorded ?? "")
        } else {
            XCTAssertTrue(FileManager.default.fileExists(atPath: root + "/photos.sqlite"))
            XCTAssertNil(recorded)
        }
        let id = try library.catalog.insert(
            "INSERT INTO tag (uuid, name, zone_id) VALUES (?, ?, 'default')", ["u-1", "Sky"])
        XCTAssertGreaterThan(id, 0)
        let again = try Library(root: root, create: false)
        XCTAssertEqual(again.testBackend, TestDatabase.backend)
        XCTAssertEqual(
            try TestCatalog(root: root).rows("SELECT id, uuid, name, zone_id FROM tag"),
            [["\(id)", "u-1", "Sky", "default"]])
    }

    /// A folder that already holds a SQLite catalog opens with SQLite in either mode, as the
    /// binary's `CompositionRoot` picks the backend per folder.
    func testExistingSQLiteFolderOpensWithSQLite() throws {
        let root = tmp.file("sqlite-lib")
        _ = try Library(
            root: root, backend: SQLiteCatalogBackend(), exportStates: SQLiteExportStateBackend(), create: true)
        let library = try Library(root: root, create: true)
        XCTAssertEqual(library.testBackend, .sqlite)
        XCTAssertEqual(try library.catalog.scalarInt("SELECT count(*) FROM zone"), 1)
    }

    /// `rows` gives blobs as PostgreSQL prints BYTEA and NULL as nil, on both backends.
    func testRowsGiveTheSameTextOnBothBackends() throws {
        let library = try makeLibrary()
        _ = try runImport(library, [samplesDir])
        let row = try XCTUnwrap(
            library.catalog.rows(
                "SELECT t.data, p.capture_offset, p.width FROM thumbnail t JOIN photo p ON p.id = t.photo_id ORDER BY p.unique_name LIMIT 1"
            ).first)
        let bytes = try XCTUnwrap(
            library.catalog.statement(
                "SELECT t.data FROM thumbnail t JOIN photo p ON p.id = t.photo_id ORDER BY p.unique_name LIMIT 1"
            )
            .first { $0.blob(0) })
        XCTAssertEqual(bytes.prefix(2), [0xFF, 0xD8], "a JPEG thumbnail")
        XCTAssertEqual(row[0], "\\x" + bytes.map { String(format: "%02x", $0) }.joined())
        XCTAssertEqual(Int(try XCTUnwrap(row[2])) ?? 0 > 0, true)
    }
}
