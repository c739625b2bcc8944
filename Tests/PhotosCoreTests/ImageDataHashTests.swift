import Foundation
import XCTest
import PhotosImaging
import PhotosTestSupport
@testable import PhotosCore

/// Issue 31 item 5: `ImageDataHash` is the same for a file whose metadata was rewritten and
/// differs for another image; hostile structure gives no hash, never a crash or a read past
/// the bytes.
final class ImageDataHashTests: XCTestCase {
    func read(_ path: String) throws -> [UInt8] {
        [UInt8](try XCTUnwrap(FileManager.default.contents(atPath: path), path))
    }

    func hash(_ bytes: [UInt8], _ format: ImageFormat) -> String? {
        bytes.withUnsafeBytes { ImageDataHash.sha256(of: $0, format: format) }
    }

    func segment(_ marker: UInt8, _ payload: [UInt8]) -> [UInt8] {
        [0xFF, marker, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)] + payload
    }

    func testJPEGMetadataSegmentsDoNotCountTheImageDataDoes() throws {
        let storm = try read(samplesDir + "/storm.jpg")
        let base = try XCTUnwrap(hash(storm, .jpeg))
        let withXMP =
            Array(storm.prefix(2)) + segment(0xE1, Array("http://ns.adobe.com/xap/1.0/\0<x:xmpmeta/>".utf8))
            + segment(0xFE, Array("a comment".utf8)) + Array(storm.dropFirst(2))
        XCTAssertEqual(hash(withXMP, .jpeg), base)
        XCTAssertNotEqual(hash(storm + [1, 2, 3], .jpeg), base, "a trailer after EOI is content")
        XCTAssertEqual(
            hash(withXMP + [1, 2, 3], .jpeg), hash(storm + [1, 2, 3], .jpeg), "the same trailer, other metadata")
        // A byte of the entropy-coded data (the middle of the file) changes the image.
        var other = storm
        other[storm.count / 2] ^= 0x01
        if other[storm.count / 2] == 0xFF || other[storm.count / 2 - 1] == 0xFF { other[storm.count / 2 + 7] ^= 0x02 }
        XCTAssertNotEqual(hash(other, .jpeg), base)
        XCTAssertNotEqual(hash(try read(samplesDir + "/path.jpg"), .jpeg), base)
        // A quantisation table is image data.
        let dqt = try XCTUnwrap(JPEGSegments.offset(of: 0xDB, in: storm))
        var requantised = storm
        requantised[dqt + 10] ^= 0x01
        XCTAssertNotEqual(hash(requantised, .jpeg), base)
    }

    func testPNGAncillaryChunksAndIDATSplitDoNotCount() throws {
        let kite = try read(samplesDir + "/kite.png")
        let base = try XCTUnwrap(hash(kite, .png))
        func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
            let n = UInt32(data.count)
            return [UInt8(n >> 24), UInt8((n >> 16) & 0xFF), UInt8((n >> 8) & 0xFF), UInt8(n & 0xFF)]
                + Array(type.utf8) + data + [0, 0, 0, 0]
        }
        let withText = Array(kite.prefix(33)) + chunk("tEXt", Array("Comment\0hello".utf8)) + Array(kite.dropFirst(33))
        XCTAssertEqual(hash(withText, .png), base)
        // IDAT split in two: the same stream.
        let ranges = try XCTUnwrap(kite.withUnsafeBytes { ImageDataHash.ranges(of: $0, format: .png) })
        let idat = try XCTUnwrap(ranges.last)
        XCTAssertGreaterThan(idat.count, 2)
        let data = Array(kite[idat])
        let split =
            Array(kite[..<(idat.lowerBound - 8)]) + chunk("IDAT", Array(data.prefix(data.count / 2)))
            + chunk("IDAT", Array(data.dropFirst(data.count / 2))) + Array(kite[(idat.upperBound + 4)...])
        XCTAssertEqual(hash(split, .png), base)
        var other = kite
        other[idat.lowerBound + idat.count / 2] ^= 0x10
        XCTAssertNotEqual(hash(other, .png), base)
    }

    func testWebPMetadataChunksDoNotCount() throws {
        let webp = try read(formatSamplesDir + "/path.webp")
        let base = try XCTUnwrap(hash(webp, .webp))
        let xmp = Array("XMP ".utf8) + [4, 0, 0, 0] + Array("<x/>".utf8)
        var edited = webp + xmp
        let size = UInt32(edited.count - 8)
        edited[4] = UInt8(size & 0xFF)
        edited[5] = UInt8((size >> 8) & 0xFF)
        edited[6] = UInt8((size >> 16) & 0xFF)
        edited[7] = UInt8(size >> 24)
        XCTAssertEqual(hash(edited, .webp), base)
        // Its EXIF chunk at the end is metadata; a byte of the VP8 bitstream is not.
        var exif = webp
        exif[webp.count - 10] ^= 0x01
        XCTAssertEqual(hash(exif, .webp), base)
        var other = webp
        other[webp.count / 2] ^= 0x01
        XCTAssertNotEqual(hash(other, .webp), base)
    }

    /// HEIF: the primary item's data and the file type count, boxes outside them do not.
    func testHEIFPrimaryItemDataCounts() throws {
        let heic = try read(formatSamplesDir + "/storm.heic")
        let base = try XCTUnwrap(hash(heic, .heif))
        let ranges = try XCTUnwrap(heic.withUnsafeBytes { ImageDataHash.ranges(of: $0, format: .heif) })
        let inside = try XCTUnwrap(ranges.last)
        var other = heic
        other[inside.lowerBound + inside.count / 2] ^= 0x01
        XCTAssertNotEqual(hash(other, .heif), base)
        // The major brand is what the file says it is.
        var brand = heic
        brand[8] ^= 0x01
        XCTAssertNotEqual(hash(brand, .heif), base)
        // A box added after the others (a writer's padding) is no item's data.
        let free: [UInt8] = [0, 0, 0, 12] + Array("free".utf8) + [1, 2, 3, 4]
        XCTAssertEqual(hash(heic + free, .heif), base)
    }

    /// Every prefix and single-byte mutations of each sample give a hash or nil, never a trap,
    /// and ranges stay inside the bytes (`ranges` checks; the hasher would read past them).
    func testHostileStructureNeverTraps() throws {
        let samples: [(String, ImageFormat)] = [
            (samplesDir + "/storm.jpg", .jpeg), (samplesDir + "/kite.png", .png),
            (formatSamplesDir + "/path.webp", .webp), (formatSamplesDir + "/storm.heic", .heif)
        ]
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> UInt64 {
            seed ^= seed >> 12
            seed ^= seed << 25
            seed ^= seed >> 27
            return seed &* 0x2545_F491_4F6C_DD1D
        }
        for (path, format) in samples {
            let bytes = try read(path)
            for length in stride(from: 0, to: min(bytes.count, 4096), by: 7) {
                _ = hash(Array(bytes.prefix(length)), format)
            }
            for _ in 0..<300 {
                var m = bytes
                let at = Int(next() % UInt64(min(m.count, 2048)))
                m[at] = UInt8(truncatingIfNeeded: next())
                if let ranges = m.withUnsafeBytes({ ImageDataHash.ranges(of: $0, format: format) }) {
                    XCTAssertLessThanOrEqual(ranges.reduce(0) { $0 + $1.count }, m.count)
                    XCTAssertTrue(ranges.allSatisfy { $0.lowerBound >= 0 && $0.upperBound <= m.count })
                }
            }
        }
        XCTAssertNil(hash([0xFF, 0xD8, 0xFF, 0xD9], .jpeg), "no scan: no image data")
        XCTAssertNil(hash([], .png))
    }
}
