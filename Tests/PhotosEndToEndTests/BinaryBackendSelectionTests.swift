import Foundation
import PhotosPostgreSQL
import PhotosTestSupport
import XCTest

/// Libraries the `photos` binary creates during a test are on the run's backend
/// (`BinaryTestCase.preparingLibraries`), each on a schema of its own in PostgreSQL mode.
final class BinaryBackendSelectionTests: BinaryTestCase {
    func testLibrariesTheBinaryCreatesAreOnTheRunsBackendEachOnItsOwnSchema() throws {
        let a = dir + "/a", b = dir + "/b", c = dir + "/c", dry = dir + "/dry"
        XCTAssertEqual(try run(["import", "--library", a, samplesDir]).status, 0)
        XCTAssertEqual(try run(["--library", b, "import", samplesDir]).status, 0)
        let created = try run(["init", c])
        XCTAssertEqual(created.status, 0, created.stderr)
        XCTAssertTrue(created.stdout.contains("Created library at \(c)"), created.stdout)
        XCTAssertEqual(try run(["import", "--dry-run", "--library", dry, samplesDir]).status, 0)
        XCTAssertNil(TestDatabase.backend(ofLibraryAt: dry), "a dry run creates no library")
        for root in [a, b, c] { XCTAssertEqual(TestDatabase.backend(ofLibraryAt: root), TestDatabase.backend, root) }
        XCTAssertEqual(try TestCatalog(root: a).scalarInt("SELECT count(*) FROM photo"), 6)
        XCTAssertEqual(try TestCatalog(root: c).scalarInt("SELECT count(*) FROM photo"), 0)
        let merged = try run(["merge", "--library", c, "--from", a])
        XCTAssertEqual(merged.status, 0, merged.stderr)
        XCTAssertEqual(try TestCatalog(root: c).scalarInt("SELECT count(*) FROM photo"), 6)
        XCTAssertEqual(try TestCatalog(root: b).scalarInt("SELECT count(*) FROM photo"), 6)
        if TestDatabase.isPostgreSQL {
            let connections = try [a, b, c].map { try XCTUnwrap(PostgresCatalogBackend.recordedConnection(root: $0)) }
            XCTAssertEqual(Set(connections).count, 3, "one schema per library: \(connections)")
        }
    }

    /// `runAsGiven` runs the binary untouched: a new folder becomes a SQLite library in either mode.
    func testRunAsGivenMakesASQLiteLibrary() throws {
        let lib = dir + "/sqlite"
        XCTAssertEqual(try runAsGiven(["init", "-q", lib]).status, 0)
        XCTAssertEqual(TestDatabase.backend(ofLibraryAt: lib), .sqlite)
        XCTAssertEqual(try TestCatalog(root: lib).backend, .sqlite)
    }
}
