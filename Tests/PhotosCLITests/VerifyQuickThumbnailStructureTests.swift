import Foundation
import XCTest
import PhotosTestSupport
import PhotosImaging

/// `verify --quick` checks each thumbnail's structure (a whole JPEG whose frame header gives its
/// recorded size) from the head the store cuts out, without decoding; the full `verify` also
/// decodes. On either backend (`TestCatalog`).
final class VerifyQuickThumbnailStructureTests: TemporaryFolderTestCase {
    override var label: String { "photos-verify-quick-structure" }
    var lib: String { dir + "/lib" }

    func run(_ args: [String]) -> RunResult { photos(["--library", lib] + args) }

    func db() throws -> TestCatalog { try TestCatalog(root: lib) }

    override func setUpWithError() throws {
        try super.setUpWithError()
        XCTAssertEqual(
            run(["import", "-q"] + ["storm.jpg", "path.jpg"].map { samplesDir + "/" + $0 }).status, 0)
    }

    func uniqueName(_ displayName: String) throws -> String {
        try XCTUnwrap(try db().scalarString("SELECT unique_name FROM photo WHERE display_name = ?", [displayName]))
    }

    func stormThumbnail() throws -> [UInt8] {
        try XCTUnwrap(
            try db().statement(
                "SELECT t.data FROM thumbnail t JOIN photo p ON p.id = t.photo_id WHERE p.display_name = 'storm.jpg'"
            ).first { $0.blob(0) })
    }

    func setStormThumbnail(_ bytes: [UInt8]) throws {
        try db().run(
            "UPDATE thumbnail SET data = ? WHERE photo_id = (SELECT id FROM photo WHERE display_name = 'storm.jpg')",
            [bytes])
    }

    /// Exit status and the details of the damaged-thumbnail problems of `verify --json ARGS`.
    func damaged(_ args: [String]) throws -> (status: Int32, details: [String], problems: Int) {
        let r = run(["--json", "verify"] + args)
        let report = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any], r.stdout + r.stderr)
        let details = (report["details"] as? [[String: Any]] ?? [])
        return (
            r.status,
            details.filter { $0["kind"] as? String == "damaged-thumbnail" }.compactMap { $0["detail"] as? String },
            report["problems"] as? Int ?? -1
        )
    }

    func testQuickReportsEachStructuralDamageAsTheFullVerifyDoes() throws {
        let storm = try uniqueName("storm.jpg")
        let good = try stormThumbnail()
        XCTAssertEqual(run(["verify", "--quick"]).status, 0, "clean before")
        let sof = try XCTUnwrap(JPEGSegments.offset(of: 0xC0, in: good))
        var wrongSize = good
        wrongSize[sof + 7] = 0
        wrongSize[sof + 8] = 100 // width 100 where 120 is recorded
        var flippedMarker = good
        flippedMarker[2] ^= 0xFF // the first segment's 0xFF
        var flippedLength = good
        flippedLength[sof + 2] ^= 0xFF // the frame header's length
        var flippedSOF = good
        flippedSOF[sof + 1] ^= 0x0A // SOF0 becomes SOF10 (arithmetic progressive)
        let damages: [(String, [UInt8], String)] = [
            (
                "truncated", Array(good.prefix(good.count / 2)),
                "is truncated or has trailing bytes (\(good.count / 2) bytes, no JPEG end-of-image marker at the end)"
            ),
            ("wrong frame header size", wrongSize, "is 100×80 pixels, recorded 120×80"),
            (
                "first marker flipped", flippedMarker,
                "is not a JPEG (\(good.count) bytes starting with 0xff 0xd8 0x00 0xe0)"
            ),
            (
                "frame header length flipped", flippedLength,
                "has a segment 0xffc0 at byte \(sof) of \(0xFF11) bytes, past its end"
            ),
            (
                "frame header marker flipped", flippedSOF,
                "has the frame header 0xffca (not baseline, extended or progressive Huffman)"
            ),
            ("empty", [], "is empty (0 bytes)"),
            (
                "not a JPEG", Array("GIF89a, not a JPEG".utf8),
                "is not a JPEG (18 bytes starting with 0x47 0x49 0x46 0x38)"
            )
        ]
        for (label, bytes, reason) in damages {
            try setStormThumbnail(bytes)
            let quick = try damaged(["--quick"])
            XCTAssertEqual(quick.status, 1, label)
            XCTAssertEqual(quick.details, ["photo \(storm) (storm.jpg): thumbnail \(reason)"], label)
            XCTAssertEqual(quick.problems, 1, label)
            let full = try damaged([])
            XCTAssertEqual(full.status, 1, label)
            XCTAssertEqual(full.details, quick.details, "\(label): the full verify names it the same way")
        }
    }

    /// Scan data cut short with EOI appended: the marker structure is whole, so `--quick` passes
    /// it (it decodes nothing) and the full verify reports it.
    func testDamagedScanDataIsFoundByTheFullVerifyOnly() throws {
        let storm = try uniqueName("storm.jpg")
        let good = try stormThumbnail()
        try setStormThumbnail(Array(good.prefix(good.count * 2 / 3)) + [0xFF, 0xD9])
        let quick = try damaged(["--quick"])
        XCTAssertEqual(quick.status, 0)
        XCTAssertEqual(quick.details, [])
        let full = try damaged([])
        XCTAssertEqual(full.status, 1)
        XCTAssertEqual(
            full.details,
            [
                "photo \(storm) (storm.jpg): thumbnail does not decode: Corrupt JPEG data: premature end of data segment"
            ])
    }

    /// A frame header beyond the head the store cuts out (here after a 2,000-byte comment): the
    /// check reads the whole thumbnail, so it is judged on its frame header all the same.
    func testAFrameHeaderBeyondTheHeadIsCheckedOnTheWholeThumbnail() throws {
        let storm = try uniqueName("storm.jpg")
        let good = try stormThumbnail()
        let comment = [0xFF, 0xFE, 0x07, 0xD2] + [UInt8](repeating: 0x41, count: 2_000)
        let commented = Array(good.prefix(2)) + comment + good.dropFirst(2)
        XCTAssertGreaterThan(
            try XCTUnwrap(JPEGSegments.offset(of: 0xC0, in: commented)), ThumbnailCheck.structureHeadBytes)
        try setStormThumbnail(commented)
        XCTAssertEqual(try damaged(["--quick"]).status, 0, "sound: a comment is allowed")
        var wrongSize = commented
        let sof = try XCTUnwrap(JPEGSegments.offset(of: 0xC0, in: commented))
        wrongSize[sof + 5] = 0
        wrongSize[sof + 6] = 60
        try setStormThumbnail(wrongSize)
        let quick = try damaged(["--quick"])
        XCTAssertEqual(quick.status, 1)
        XCTAssertEqual(quick.details, ["photo \(storm) (storm.jpg): thumbnail is 120×60 pixels, recorded 120×80"])
    }
}
