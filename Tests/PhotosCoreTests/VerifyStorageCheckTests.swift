import Foundation
import XCTest
import PhotosTestSupport
@testable import PhotosCore
import PhotosModel
import PhotosSQLite

/// `verify` runs the store's own check (`quick_check` with `--quick`, else `integrity_check`):
/// what that check says is reported first, line for line as the store says it, before the
/// problems of the other checks.
final class VerifyStorageCheckTests: XCTestCase {
    var tmp: TempDir!
    override func setUpWithError() throws { tmp = try TempDir("photos-verify-storage") }
    override func tearDown() { tmp.cleanup() }

    /// A library with a few tags and an orphan file, whose database header claims a wrong
    /// number of free pages (bytes 36–39, sqlite.org/fileformat2.html §1.3): the file still
    /// reads, but both checks of the file's structure report the free-page list.
    private func damagedLibrary() throws -> String {
        let root = tmp.file("L")
        do {
            let lib = try Library(root: root, create: true)
            try lib.write {
                for i in 0..<50 {
                    try lib.sqlite.run(
                        "INSERT INTO tag (uuid, name, zone_id) VALUES (?, ?, 'default')",
                        [UUID().uuidString.lowercased(), "tag \(i)"])
                }
            }
            try lib.sqlite.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        }
        try FileManager.default.createDirectory(atPath: root + "/ExternalData/ab", withIntermediateDirectories: true)
        try Data("not a photo".utf8).write(
            to: URL(fileURLWithPath: root + "/ExternalData/ab/" + String(repeating: "ab", count: 32)))
        let path = SQLiteCatalogBackend.databasePath(root: root)
        let handle = try XCTUnwrap(FileHandle(forUpdatingAtPath: path))
        try handle.seek(toOffset: 36)
        try handle.write(contentsOf: Data([0, 0, 0x10, 0]))
        try handle.close()
        return root
    }

    func testTheStoresCheckIsReportedFirstLineForLine() throws {
        try TestDatabase.requireSQLite(
            because: "it damages photos.sqlite's header and reads SQLite's quick_check/integrity_check lines")
        let root = try damagedLibrary()
        let lib = try Library(root: root, create: false)
        for quick in [true, false] {
            let expected = try Database(path: lib.databasePath, readOnly: true)
                .statement(quick ? "PRAGMA quick_check" : "PRAGMA integrity_check").map { $0.string(0) }
            XCTAssertFalse(expected.isEmpty)
            XCTAssertNotEqual(expected, ["ok"], "the damage is one the check sees")
            let report = try lib.verify(quick: quick, jobs: 2)
            let kinds = report.problems.map(\.kind)
            XCTAssertEqual(
                Array(kinds.prefix(expected.count)), Array(repeating: .integrity, count: expected.count),
                "quick \(quick): \(kinds)")
            XCTAssertEqual(report.problems.prefix(expected.count).map(\.detail), expected)
            XCTAssertEqual(Array(kinds.dropFirst(expected.count)), [.orphanFile], "then the other checks' problems")
            XCTAssertFalse(report.isClean)
        }
    }

    func testASoundLibraryHasNoIntegrityProblem() throws {
        let root = tmp.file("S")
        let lib = try Library(root: root, create: true)
        for quick in [true, false] {
            let report = try lib.verify(quick: quick, jobs: 2)
            XCTAssertEqual(report.problems.map(\.kind), [], "quick \(quick)")
            XCTAssertTrue(report.isClean)
        }
    }
}
