import Foundation
import PhotosTestSupport
import XCTest

/// verify reports the originals' and the thumbnails' problems in row order (`photo_data.id`,
/// `thumbnail.id`) even where that is not the photos' order, which the PostgreSQL store reads
/// them in (a merge join with `photo`): the first photo's original and thumbnail rows are
/// written again after the others' (new ids), then the first two photos are damaged. On either
/// backend (`TestCatalog`), `verify --quick` and the full `verify` (whose hashed originals'
/// problems are put in place after the hashing).
final class VerifyProblemsInRowOrderTests: TemporaryFolderTestCase {
    override var label: String { "photos-verify-row-order" }
    var lib: String { dir + "/lib" }

    func run(_ args: [String]) -> RunResult { photos(["--library", lib] + args) }

    /// `kind uniqueName` of each problem of `verify --json ARGS`, in the order reported.
    func problems(_ args: [String], names: [String]) throws -> (status: Int32, problems: [String]) {
        let r = run(["--json", "verify"] + args)
        let report = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any], r.stdout + r.stderr)
        let details = report["details"] as? [[String: Any]] ?? []
        return (
            r.status,
            details.map { detail in
                let text = detail["detail"] as? String ?? ""
                return "\(detail["kind"] as? String ?? "?") \(names.first { text.contains($0) } ?? text)"
            }
        )
    }

    func testProblemsComeInRowOrderWhereItDiffersFromThePhotosOrder() throws {
        XCTAssertEqual(
            run(["import", "-q"] + ["storm.jpg", "path.jpg", "ladybird.jpg"].map { samplesDir + "/" + $0 }).status,
            0)
        let db = try TestCatalog(root: lib)
        let photos = try db.statement("SELECT id, unique_name FROM photo ORDER BY id").map {
            (id: $0.int64(0), name: $0.string(1))
        }
        XCTAssertEqual(photos.count, 3)
        let (first, second) = (photos[0], photos[1])
        // The first photo's rows written again: their ids now come after the others'.
        let original = try XCTUnwrap(
            try db.statement("SELECT sha256, byte_size, file_ref FROM photo_data WHERE photo_id = ?").first(
                [first.id]
            ) { (sha: $0.string(0), size: $0.int64(1), ref: $0.string(2)) })
        let thumbnail = try XCTUnwrap(
            try db.statement("SELECT data, width, height FROM thumbnail WHERE photo_id = ?").first([first.id]) {
                (data: $0.blob(0), width: $0.int64(1), height: $0.int64(2))
            })
        try db.run("DELETE FROM photo_data WHERE photo_id = ?", [first.id])
        try db.run(
            "INSERT INTO photo_data (photo_id, sha256, byte_size, file_ref) VALUES (?, ?, ?, ?)",
            [first.id, original.sha, original.size, original.ref])
        try db.run("DELETE FROM thumbnail WHERE photo_id = ?", [first.id])
        try db.run(
            "INSERT INTO thumbnail (photo_id, data, width, height) VALUES (?, ?, ?, ?)",
            [first.id, thumbnail.data, thumbnail.width, thumbnail.height])
        XCTAssertEqual(
            try db.statement("SELECT photo_id FROM photo_data ORDER BY id").map { $0.int64(0) },
            [photos[1].id, photos[2].id, first.id])
        XCTAssertEqual(
            try db.statement("SELECT photo_id FROM thumbnail ORDER BY id").map { $0.int64(0) },
            [photos[1].id, photos[2].id, first.id])
        XCTAssertEqual(run(["verify"]).status, 0, "sound after the rows are written again")

        // The first photo's original changed (same size: found by the full verify's hash), the
        // second's gone; both thumbnails emptied.
        let firstFile = lib + "/ExternalData/" + original.ref
        let bytes = try Data(contentsOf: URL(fileURLWithPath: firstFile))
        try FileManager.default.removeItem(atPath: firstFile)
        try Data(bytes.reversed()).write(to: URL(fileURLWithPath: firstFile))
        let secondRef = try XCTUnwrap(
            try db.scalarString("SELECT file_ref FROM photo_data WHERE photo_id = ?", [second.id]))
        try FileManager.default.removeItem(atPath: lib + "/ExternalData/" + secondRef)
        try db.run("UPDATE thumbnail SET data = ? WHERE photo_id IN (?, ?)", [[UInt8](), first.id, second.id])

        let names = photos.map(\.name)
        let quick = try problems(["--quick"], names: names)
        XCTAssertEqual(quick.status, 1)
        XCTAssertEqual(
            quick.problems,
            [
                "missing-file \(second.name)", "damaged-thumbnail \(second.name)",
                "damaged-thumbnail \(first.name)"
            ])
        let full = try problems([], names: names)
        XCTAssertEqual(full.status, 1)
        XCTAssertEqual(
            full.problems,
            [
                "missing-file \(second.name)", "hash-mismatch \(first.name)", "damaged-thumbnail \(second.name)",
                "damaged-thumbnail \(first.name)"
            ])
    }
}
