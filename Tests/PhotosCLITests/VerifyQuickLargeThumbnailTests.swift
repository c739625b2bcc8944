import Foundation
import PhotosTestSupport
import XCTest

/// `verify --quick` on a thumbnail larger than the row holds inline whose bytes do not compress
/// (as a real JPEG's: on PostgreSQL stored out of line, uncompressed, in TOAST; the store cuts
/// its head and last bytes out of one detoasted copy): sound, it passes; its last bytes, its
/// length or its head changed with SQL behind verify's back, each is reported. On either
/// backend (`TestCatalog`).
extension VerifyQuickThumbnailStructureTests {
    /// Storm's thumbnail with a comment of 6,000 bytes that do not compress (a linear
    /// congruential sequence's high bytes) just before its scan (SOS): the frame header stays
    /// within the head the store cuts out.
    func largeThumbnail() throws -> [UInt8] {
        let good = try stormThumbnail()
        let sos = try XCTUnwrap(JPEGSegments.offset(of: 0xDA, in: good))
        var state: UInt32 = 12_345
        let noise = (0..<6_000).map { _ -> UInt8 in
            state = state &* 1_103_515_245 &+ 12_345
            return UInt8(truncatingIfNeeded: state >> 24)
        }
        let comment = [0xFF, 0xFE, UInt8((noise.count + 2) >> 8), UInt8((noise.count + 2) & 0xFF)] + noise
        return Array(good.prefix(sos)) + comment + good.dropFirst(sos)
    }

    func testALargeThumbnailIsCutOutOfItsWholeValue() throws {
        let storm = try uniqueName("storm.jpg")
        let large = try largeThumbnail()
        try setStormThumbnail(large)
        if TestDatabase.isPostgreSQL {
            // Stored as a real JPEG's bytes are: not compressed (pglz gives up on them).
            XCTAssertEqual(
                try db().scalarInt(
                    "SELECT count(*) FROM thumbnail WHERE pg_column_compression(data) IS NULL AND octet_length(data) > 6000"
                ), 1)
        }
        let sound = try damaged(["--quick"])
        XCTAssertEqual(sound.status, 0, "a sound large thumbnail passes")
        XCTAssertEqual(sound.details, [])
        // Damage made with SQL on the stored value itself, as a broken writer would.
        let changes: [(String, String, String)] = [
            (
                "last byte", "substring(data FROM 1 FOR octet_length(data) - 1) || '\\x00'",
                "is truncated or has trailing bytes (\(large.count) bytes, no JPEG end-of-image marker at the end)"
            ),
            (
                "one byte short", "substring(data FROM 1 FOR octet_length(data) - 1)",
                "is truncated or has trailing bytes (\(large.count - 1) bytes, no JPEG end-of-image marker at the end)"
            ),
            (
                "first marker", "'\\xffd800'::bytea || substring(data FROM 4)",
                "is not a JPEG (\(large.count) bytes starting with 0xff 0xd8 0x00 0xe0)"
            )
        ]
        for (label, expression, reason) in changes {
            try setStormThumbnail(large)
            try db().run(
                TestDatabase.isPostgreSQL
                    ? "UPDATE thumbnail SET data = \(expression) WHERE photo_id = (SELECT id FROM photo WHERE display_name = 'storm.jpg')"
                    : sqliteUpdate(label),
                [])
            let quick = try damaged(["--quick"])
            XCTAssertEqual(quick.status, 1, label)
            XCTAssertEqual(quick.details, ["photo \(storm) (storm.jpg): thumbnail \(reason)"], label)
        }
    }

    /// The same changes in SQLite's words.
    private func sqliteUpdate(_ label: String) -> String {
        let set: String
        switch label {
        case "last byte": set = "substr(data, 1, length(data) - 1) || x'00'"
        case "one byte short": set = "substr(data, 1, length(data) - 1)"
        default: set = "x'ffd800' || substr(data, 4)"
        }
        return
            "UPDATE thumbnail SET data = \(set) WHERE photo_id = (SELECT id FROM photo WHERE display_name = 'storm.jpg')"
    }
}
