import Foundation
import XCTest
import PhotosTestSupport

/// Hidden variants of issue 9 item 2 (memory bounded by the bytes given): chunks that fit in the
/// file but that libpng and we would each copy.
final class ChunkCopyMemoryBoundTests: BinaryTestCase {
    override var label: String { "photos-memory-variants" }

    /// A 4×4 PNG with one eXIf chunk of `exifBytes` bytes (a big-endian TIFF header with an
    /// empty IFD0 first, then zeros) before IDAT; `red` makes each file's bytes distinct.
    static func pngWithEXIF(exifBytes: Int, red: UInt8) -> [UInt8] {
        let ihdr = DecodeMemoryBoundTests.be32(4) + DecodeMemoryBoundTests.be32(4) + [8, 2, 0, 0, 0]
        var tiff: [UInt8] = Array("MM\0*".utf8) + DecodeMemoryBoundTests.be32(8) + [0, 0] + [0, 0, 0, 0]
        tiff += [UInt8](repeating: 0, count: exifBytes - tiff.count)
        var raw: [UInt8] = []
        for _ in 0..<4 {
            raw += [0] + [UInt8](repeating: 0, count: 12).enumerated().map { $0.offset % 3 == 0 ? red : 0 }
        }
        // zlib stored block (RFC 1950/1951): header, final stored block, adler32.
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in raw { a = (a + UInt32(byte)) % 65521; b = (b + a) % 65521 }
        let len = UInt16(raw.count)
        let zlib: [UInt8] =
            [0x78, 0x01, 0x01, UInt8(len & 0xFF), UInt8(len >> 8), UInt8(~len & 0xFF), UInt8(~len >> 8)]
            + raw + DecodeMemoryBoundTests.be32(b << 16 | a)
        return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + DecodeMemoryBoundTests.chunk("IHDR", ihdr)
            + DecodeMemoryBoundTests.chunk("eXIf", tiff) + DecodeMemoryBoundTests.chunk("IDAT", zlib)
            + DecodeMemoryBoundTests.chunk("IEND", [])
    }

    /// Two PNGs with a 30 MB eXIf chunk each, imported with --jobs 2: libpng's copy and ours
    /// made each cost three times its length (230 MB peak before the fix). A chunk over 1 MiB is
    /// now skipped unread; both images are still imported.
    func testHugeEXIFChunksThatFitInTheFileStayUnder150MB() throws {
        let input = dir + "/in"
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        for i in 0..<2 {
            let bytes = Self.pngWithEXIF(exifBytes: 30_000_000, red: UInt8(10 + i))
            XCTAssertTrue(FileManager.default.createFile(atPath: input + "/exif-30mb-\(i).png", contents: Data(bytes)))
        }
        // A small eXIf chunk is still read: Orientation 6 turns the 4×4 image (nothing to see),
        // and the file imports.
        let small = Self.pngWithEXIF(exifBytes: 1000, red: 99)
        XCTAssertTrue(FileManager.default.createFile(atPath: input + "/exif-small.png", contents: Data(small)))
        let result = try runMeasured(["--library", dir + "/lib", "import", "-q", "--jobs", "2", input])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertGreaterThan(result.maxRSSKB, 0, "VmHWM was read")
        XCTAssertLessThan(result.maxRSSKB, DecodeMemoryBoundTests.limitKB, "peak RSS \(result.maxRSSKB) KB")
        let list = try run(["--library", dir + "/lib", "list", "--json"])
        XCTAssertEqual(list.stdout.split(separator: "\n").count, 3, list.stdout)
        print("peak RSS of the import of two 30 MB eXIf PNGs: \(result.maxRSSKB / 1024) MB")
    }

    /// A JPEG with `megabytes` of APP13 "Photoshop 3.0" segments, each one 8BIM IPTC resource
    /// of 3-byte keywords (2:25); the first segment starts with k0…k1499, all distinct.
    static func jpegWithIPTC(sample: [UInt8], megabytes: Int, tag: UInt8) -> [UInt8] {
        var segments: [UInt8] = []
        var first = true
        while segments.count < megabytes << 20 {
            var iim: [UInt8] = []
            if first {
                for i in 0..<1500 {
                    let k = Array("k\(i)".utf8)
                    iim += [0x1C, 2, 25, 0, UInt8(k.count)] + k
                }
                first = false
            }
            while iim.count + 8 <= 60_000 { iim += [0x1C, 2, 25, 0, 3, 0x61, 0x62, tag] }
            let resource: [UInt8] =
                Array("8BIM".utf8) + [0x04, 0x04, 0, 0] + DecodeMemoryBoundTests.be32(UInt32(iim.count)) + iim
            let payload = Array("Photoshop 3.0\0".utf8) + resource
            segments += [0xFF, 0xED, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)] + payload
        }
        return [0xFF, 0xD8] + segments + Array(sample.dropFirst(2))
    }

    /// Two JPEGs with 30 MB of IPTC keywords each (3.9 million keywords): read whole, they
    /// took ~11 s each and about three times their size; now at most 1 MiB of Photoshop
    /// resources and 1000 keywords are read.
    func testHugeIPTCSegmentsStayBoundedAndQuick() throws {
        let sample = packageRoot + "/Samples/storm.jpg"
        guard let base = FileManager.default.contents(atPath: sample) else {
            throw SetUpFailure("Samples/storm.jpg is missing from the repository")
        }
        let input = dir + "/in"
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        for i in 0..<2 {
            let bytes = Self.jpegWithIPTC(sample: Array(base), megabytes: 30, tag: UInt8(0x30 + i))
            XCTAssertTrue(FileManager.default.createFile(atPath: input + "/iptc-\(i).jpg", contents: Data(bytes)))
        }
        let start = Date()
        let result = try runMeasured(["--library", dir + "/lib", "import", "-q", "--jobs", "2", input])
        let seconds = Date().timeIntervalSince(start)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertLessThan(result.maxRSSKB, DecodeMemoryBoundTests.limitKB, "peak RSS \(result.maxRSSKB) KB")
        let list = try run(["--library", dir + "/lib", "--json", "list"])
        for line in list.stdout.split(separator: "\n") {
            let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let tags = try XCTUnwrap(object["tags"] as? [String])
            XCTAssertEqual(Set(tags), Set((0..<1000).map { "k\($0)" }))
        }
        XCTAssertEqual(list.stdout.split(separator: "\n").count, 2)
        print(
            "peak RSS of the import of two 30 MB IPTC JPEGs: \(result.maxRSSKB / 1024) MB, \(String(format: "%.1f", seconds)) s"
        )
    }
}
