import Foundation
import XCTest
import PhotosTestSupport
@testable import PhotosCLI
import PhotosCore
import PhotosFiles
import PhotosSQLite

/// Issue 9 item 11 (variants): a PhotoData row's `file_ref` (and `sha256`, which the schema only
/// checks for length) can hold anything in a damaged or hostile library. No command may read,
/// write or remove a file outside the library because of it: `delete`, `purge`, `verify
/// --repair` and `export` used `ExternalData/` + file_ref as a path, so `../../victim` made
/// `photos delete` unlink a file beside the library.
final class HostileFileReferenceTests: TemporaryFolderTestCase {
    override var label: String { "photos-i9-fileref" }
    var lib: String { dir + "/lib" }
    var victim: String { dir + "/victim" }

    func run(_ args: [String]) -> RunResult { photos(["--library", lib] + args) }
    func db() throws -> TestCatalog { try TestCatalog(root: lib) }

    /// Imports storm.jpg and path.jpg, writes the victim file beside the library and points
    /// storm's PhotoData at it with `reference`. Returns storm's uniqueName and content address.
    func setUpHostileRow(_ reference: String) throws -> (uniqueName: String, address: String) {
        XCTAssertEqual(run(["import", "-q", samplesDir + "/storm.jpg", samplesDir + "/path.jpg"]).status, 0)
        try Data("precious".utf8).write(to: URL(fileURLWithPath: victim))
        let d = try db()
        let name = try XCTUnwrap(try d.scalarString("SELECT unique_name FROM photo WHERE display_name = 'storm.jpg'"))
        let sha = try XCTUnwrap(
            try d.scalarString(
                "SELECT d.sha256 FROM photo_data d JOIN photo p ON p.id = d.photo_id WHERE p.display_name = 'storm.jpg'"
            ))
        try d.run(
            "UPDATE photo_data SET file_ref = ? WHERE sha256 = ?",
            [reference.replacingOccurrences(of: "VICTIM", with: victim), sha])
        return (name, ExternalDataStore.reference(for: sha))
    }

    func assertVictimIntact(file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(
            FileManager.default.contents(atPath: victim).map { String(decoding: $0, as: UTF8.self) }, "precious",
            "a file outside the library was touched", file: file, line: line)
    }

    func testContainment() {
        XCTAssertTrue(ExternalDataStore.isContained("ab/" + String(repeating: "ab", count: 32)))
        XCTAssertTrue(ExternalDataStore.isContained(".tmp-123"))
        for bad in ["../../victim", "/etc/passwd", "ab/../../x", "..", ".", "", "ab//c", "a/b/c", "ab/\u{0}x", "ab/.."]
        {
            XCTAssertFalse(ExternalDataStore.isContained(bad), bad)
        }
        let store = ExternalDataStore(root: "/lib/ExternalData")
        XCTAssertEqual(store.path(for: "../../etc/passwd"), "/lib/ExternalData/" + ExternalDataStore.uncontainedName)
        XCTAssertEqual(store.path(for: "/etc/passwd"), "/lib/ExternalData/" + ExternalDataStore.uncontainedName)
        XCTAssertFalse(store.remove(reference: "../../etc/passwd"))
    }

    func testDeleteNeverRemovesAFileOutsideTheLibrary() throws {
        for reference in ["../../victim", "VICTIM"] {
            try? FileManager.default.removeItem(atPath: lib)
            let (name, address) = try setUpHostileRow(reference)
            let r = run(["delete", name])
            XCTAssertEqual(r.status, 0, r.stderr)
            assertVictimIntact()
            // The photo's real original (at its content address) went with it: no orphan.
            XCTAssertFalse(FileManager.default.fileExists(atPath: lib + "/ExternalData/" + address))
            XCTAssertEqual(run(["verify"]).status, 0)
        }
    }

    func testPurgeNeverRemovesAFileOutsideTheLibrary() throws {
        let (name, address) = try setUpHostileRow("../../victim")
        XCTAssertEqual(run(["share", "create", name, "-q"]).status, 0)
        let share = try XCTUnwrap(try db().scalarString("SELECT id FROM share"))
        let r = run(["purge", "--share", share])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("1 original file removed"), r.stdout)
        assertVictimIntact()
        XCTAssertFalse(FileManager.default.fileExists(atPath: lib + "/ExternalData/" + address))
        XCTAssertEqual(run(["verify"]).status, 0)
    }

    func testVerifyRepairAndExportStayInside() throws {
        let (name, address) = try setUpHostileRow("../../victim")
        // The original stays at its content address, which a photo of that SHA-256 keeps alive.
        let v = run(["verify"])
        XCTAssertEqual(v.status, 1)
        XCTAssertTrue(
            v.stdout.contains("bad-file-reference") || v.stderr.contains("bad-file-reference"), v.stdout + v.stderr)
        let out = dir + "/export"
        let e = run(["export", out])
        XCTAssertEqual(e.status, 1, e.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out + "/storm.jpg"), "the victim's bytes were exported")
        assertVictimIntact()
        let repair = run(["verify", "--repair"])
        XCTAssertEqual(repair.status, 0, repair.stdout + repair.stderr)
        assertVictimIntact()
        XCTAssertEqual(
            try db().scalarString(
                "SELECT d.file_ref FROM photo_data d JOIN photo p ON p.id = d.photo_id WHERE p.unique_name = ?", [name]),
            address)
        XCTAssertEqual(run(["verify"]).status, 0)
    }
}
