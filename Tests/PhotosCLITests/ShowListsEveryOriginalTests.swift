import Foundation
import PhotosTestSupport
import XCTest

/// Issue 24 item 2: a photo with a second original (the RAW of a RAW+JPEG pair, role `raw`) —
/// `show` lists each original (role, format, size, SHA-256 prefix, path), `list --json` gives
/// an `originals` array, the photo list keeps one row per photo, and `delete` removes both
/// files. The second original is added by its catalog row here (import pairing makes it
/// otherwise). On both backends (`PHOTOS_TEST_DATABASE_URL`).
final class ShowListsEveryOriginalTests: BinaryTestCase {
    override var label: String { "photos-every-original" }
    var lib: String { dir + "/lib" }

    func testShowListAndDeleteHandleEveryOriginal() throws {
        let dng = try requireCorpus() + "/camera-formats/raw/exiftool_DNG.dng"
        XCTAssertEqual(try run(["--library", lib, "import", "-q", samplesDir + "/path.jpg"]).status, 0)
        let catalog = try TestCatalog(root: lib)
        let row = try XCTUnwrap(
            try catalog.rows(
                "SELECT p.id, p.unique_name, d.sha256, d.file_ref FROM photo p JOIN photo_data d ON d.photo_id = p.id"
            )
            .first)
        let (id, name, jpegSHA, jpegRef) = (Int64(row[0] ?? "") ?? 0, row[1] ?? "", row[2] ?? "", row[3] ?? "")
        let rawSHA = sha256(ofFile: dng)
        let rawRef = String(rawSHA.prefix(2)) + "/" + rawSHA
        let rawBytes = try XCTUnwrap(FileManager.default.contents(atPath: dng))
        try FileManager.default.createDirectory(
            atPath: lib + "/ExternalData/" + rawSHA.prefix(2), withIntermediateDirectories: true)
        XCTAssertTrue(FileManager.default.createFile(atPath: lib + "/ExternalData/" + rawRef, contents: rawBytes))
        try catalog.run(
            "INSERT INTO photo_data (photo_id, sha256, byte_size, file_ref, role, format) VALUES (?, ?, ?, ?, 'raw', 'raw')",
            [id, rawSHA, rawBytes.count, rawRef])

        let shown = try run(["--library", lib, "show", name])
        XCTAssertEqual(shown.status, 0, shown.stderr)
        let jpegSize = try XCTUnwrap(
            FileManager.default.attributesOfItem(atPath: samplesDir + "/path.jpg")[.size] as? Int)
        XCTAssertTrue(
            shown.stdout.contains(
                "originals:   primary: jpeg, \(jpegSize) bytes, sha256 \(jpegSHA.prefix(12))…, ExternalData/\(jpegRef)\n"
                    + "             raw: raw, \(rawBytes.count) bytes, sha256 \(rawSHA.prefix(12))…, ExternalData/\(rawRef)\n"
            ), shown.stdout)
        XCTAssertTrue(shown.stdout.contains("sha256:      \(jpegSHA)\n"), "the photo's SHA-256 is its primary's")

        // Both backends give both originals (PostgreSQL's list query aggregates tags and ratings
        // with the row; the originals were once left out there, and the array came back empty).
        let listed = try run(["--library", lib, "--json", "list"])
        XCTAssertEqual(listed.status, 0, listed.stderr)
        XCTAssertEqual(listed.stdout.split(separator: "\n").count, 1, "one photo, not one per original")
        XCTAssertTrue(listed.stdout.contains(#""originals":[{"role":"primary""#), listed.stdout)
        XCTAssertTrue(
            listed.stdout.contains(#"{"role":"raw","format":"raw","byteSize":\#(rawBytes.count)"#), listed.stdout)

        let deleted = try run(["--library", lib, "delete", "-q", name])
        XCTAssertEqual(deleted.status, 0, deleted.stdout + deleted.stderr)
        XCTAssertEqual(try TestCatalog(root: lib, readOnly: true).scalarInt("SELECT count(*) FROM photo_data"), 0)
        for ref in [jpegRef, rawRef] {
            XCTAssertFalse(FileManager.default.fileExists(atPath: lib + "/ExternalData/" + ref), ref)
        }
    }
}
