import CImageCodec
import CImageCodecTesting
import Foundation
import PhotosTestSupport
import XCTest

@testable import PhotosImaging

/// Our own thumbnail encoder (thumbjpeg.c, `pc_thumbnail_jpeg_encode`, behind `pc_jpeg_encode`) against
/// libjpeg-turbo's encode with the same settings (`pc_jpeg_encode_libjpeg`): every quantized DCT coefficient
/// equal as libjpeg reads them back, the same decoded pixels, a file no larger (here: the same bytes, since
/// the tables are built by T.81 K.2 with libjpeg's tie rule), valid for libjpeg and djpeg, with libjpeg's
/// marker order; the same status for bad parameters; working memory bounded by the image size.
final class ThumbnailEncoderTests: XCTestCase {
    static let sizes = [
        (1, 1), (7, 5), (8, 8), (15, 17), (16, 16), (119, 90), (120, 90), (90, 120), (120, 120), (121, 67),
        (240, 240), (241, 100), (1000, 7), (300, 200)
    ]
    static let qualities = [1, 50, 75, 85, 95, 100]

    enum Encoder { case ours, libjpeg }

    /// Encodes `rgb` (width × height × 3 bytes) with one of the two encoders.
    static func encode(_ rgb: [UInt8], _ width: Int, _ height: Int, quality: Int, _ encoder: Encoder)
        -> (status: pc_status, bytes: [UInt8], error: String)
    {
        var messages = pc_messages()
        var output: UnsafeMutablePointer<UInt8>?
        var size = 0
        let status = rgb.withUnsafeBufferPointer { p in
            switch encoder {
            case .ours:
                pc_thumbnail_jpeg_encode(
                    p.baseAddress, Int32(width), Int32(height), Int32(quality), &output, &size, &messages)
            case .libjpeg:
                pc_jpeg_encode_libjpeg(
                    p.baseAddress, Int32(width), Int32(height), Int32(quality), &output, &size, &messages)
            }
        }
        defer { pc_free(output) }
        let error = withUnsafeBytes(of: &messages.error) {
            String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self)
        }
        return (status, output.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [], error)
    }

    /// The quantized coefficients libjpeg reads from `jpeg` (jpeg_read_coefficients), with each component's
    /// blocks across and down.
    static func coefficients(_ jpeg: [UInt8]) throws -> (values: [Int16], dims: [Int32]) {
        var messages = pc_messages()
        var output: UnsafeMutablePointer<Int16>?
        var count = 0
        var dims = [Int32](repeating: 0, count: 8)
        let status = jpeg.withUnsafeBufferPointer { p in
            dims.withUnsafeMutableBufferPointer {
                pc_jpeg_read_coefficients_test(p.baseAddress, p.count, &output, &count, $0.baseAddress, 4, &messages)
            }
        }
        defer { pc_free(output) }
        guard status == PC_OK, let output else { throw ImageError.corrupt("coefficients not read: \(status)") }
        return (Array(UnsafeBufferPointer(start: output, count: count)), Array(dims.prefix(6)))
    }

    static func decodedPixels(_ jpeg: [UInt8]) throws -> [UInt8] {
        try jpeg.withUnsafeBytes { try ImageDecoder.decode($0, format: .jpeg, targetEdge: 0, maxPixels: 1 << 24) }
            .pixels.bytes
    }

    static func noise(_ width: Int, _ height: Int, seed: UInt64) -> [UInt8] {
        var state = seed
        return (0..<(width * height * 3)).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 56)
        }
    }

    /// Real thumbnails: each photo decoded and area-averaged to the size, as the importer makes them.
    static func photoThumbnails(width: Int, height: Int) throws -> [(String, [UInt8])] {
        try ["ladybird.jpg", "storm.jpg", "path.jpg"].map { name in
            let file = try [UInt8](Data(contentsOf: URL(fileURLWithPath: samplesDir + "/" + name)))
            let decoded = try file.withUnsafeBytes {
                try ImageDecoder.decode($0, format: .jpeg, targetEdge: max(width, height), maxPixels: 1 << 28)
            }
            return (name, try Resampler.areaAverage(decoded.pixels, width: width, height: height).bytes)
        }
    }

    /// Both encoders on `rgb`: same coefficients, same decoded pixels, file no larger (and the same bytes).
    func assertSameAsLibjpeg(_ rgb: [UInt8], _ width: Int, _ height: Int, quality: Int, _ label: String) throws {
        let ours = Self.encode(rgb, width, height, quality: quality, .ours)
        let reference = Self.encode(rgb, width, height, quality: quality, .libjpeg)
        XCTAssertEqual(ours.status, PC_OK, label)
        XCTAssertEqual(reference.status, PC_OK, label)
        let a = try Self.coefficients(ours.bytes), b = try Self.coefficients(reference.bytes)
        XCTAssertEqual(a.dims, b.dims, label)
        XCTAssertEqual(a.values.count, b.values.count, label)
        if a.values.count == b.values.count, let first = a.values.indices.first(where: { a.values[$0] != b.values[$0] })
        {
            XCTFail(
                "\(label): coefficient \(first % 64) of block \(first / 64) is \(a.values[first]), libjpeg's \(b.values[first])"
            )
        }
        XCTAssertEqual(try Self.decodedPixels(ours.bytes), try Self.decodedPixels(reference.bytes), label)
        XCTAssertLessThanOrEqual(ours.bytes.count, reference.bytes.count, label)
        let differing = zip(ours.bytes, reference.bytes).enumerated().first { $0.element.0 != $0.element.1 }?.offset
        XCTAssert(
            ours.bytes == reference.bytes,
            "\(label): \(ours.bytes.count) vs \(reference.bytes.count) bytes, first difference at \(differing ?? -1)")
    }

    func testNoiseHasLibjpegsCoefficientsPixelsAndSizeAtEverySizeAndQuality() throws {
        for (w, h) in Self.sizes {
            let rgb = Self.noise(w, h, seed: UInt64(w * 65_536 + h))
            for q in Self.qualities { try assertSameAsLibjpeg(rgb, w, h, quality: q, "noise \(w)×\(h) q\(q)") }
        }
    }

    func testRealThumbnailsHaveLibjpegsCoefficientsPixelsAndSizeAtEverySizeAndQuality() throws {
        for (w, h) in Self.sizes {
            for (name, rgb) in try Self.photoThumbnails(width: w, height: h) {
                for q in Self.qualities { try assertSameAsLibjpeg(rgb, w, h, quality: q, "\(name) \(w)×\(h) q\(q)") }
            }
        }
    }

    /// Flat and two-level images: long zero runs (ZRL), all-EOB blocks, DC-only tables.
    func testFlatAndStripedImagesMatchLibjpeg() throws {
        for (w, h) in [(120, 90), (33, 47), (256, 256)] {
            let flat = [UInt8](repeating: 200, count: w * h * 3)
            let stripes = (0..<(w * h * 3)).map { UInt8(($0 / 3 % w) % 13 == 0 ? 255 : 0) }
            for q in [1, 85, 100] {
                try assertSameAsLibjpeg(flat, w, h, quality: q, "flat \(w)×\(h) q\(q)")
                try assertSameAsLibjpeg(stripes, w, h, quality: q, "stripes \(w)×\(h) q\(q)")
            }
        }
    }

    /// The bench corpus's photos as thumbnails (decoded at DCT scale, area-averaged to the 120-pixel size).
    func testBenchCorpusThumbnailsMatchLibjpeg() throws {
        let bench = try requireCorpus() + "/bench"
        let names = try FileManager.default.contentsOfDirectory(atPath: bench).sorted()
        var checked = 0
        for name in names where name.hasSuffix(".jpg") || name.hasSuffix(".png") {
            let file = try [UInt8](Data(contentsOf: URL(fileURLWithPath: bench + "/" + name)))
            let decoded = try file.withUnsafeBytes {
                try ImageDecoder.decode(
                    $0, format: name.hasSuffix(".png") ? .png : .jpeg, targetEdge: 120, maxPixels: 1 << 28)
            }
            let size = Thumbnailer.thumbnailSize(width: decoded.storedWidth, height: decoded.storedHeight, maxEdge: 120)
            let rgb = try Resampler.areaAverage(decoded.pixels, width: size.width, height: size.height).bytes
            try assertSameAsLibjpeg(rgb, size.width, size.height, quality: 85, name)
            checked += 1
        }
        XCTAssertGreaterThan(checked, 0)
    }

    /// The optimal Huffman tables alone against libjpeg's `jpeg_gen_optimal_table` (T.81 K.2): the same BITS
    /// and HUFFVAL for counts with ties everywhere, one symbol, every symbol, random sparse and dense counts,
    /// and Fibonacci counts, whose pure Huffman code is 29 bits deep and must be cut to 16 (Figure K.3).
    func testOptimalTablesAreLibjpegsForManyCountDistributions() {
        var cases: [(String, [UInt32])] = []
        var fibonacci: [UInt32] = [1, 1]
        while fibonacci.count < 30 { fibonacci.append(fibonacci[fibonacci.count - 1] + fibonacci[fibonacci.count - 2]) }
        var counts = [UInt32](repeating: 0, count: 257)
        for (i, f) in fibonacci.enumerated() { counts[i * 7 + 3] = f }
        cases.append(("fibonacci", counts))
        counts = [UInt32](repeating: 0, count: 257)
        counts[0x22] = 5
        cases.append(("one symbol", counts))
        cases.append(("every symbol once", [UInt32](repeating: 1, count: 256) + [0]))
        cases.append(("every symbol 1000 times", [UInt32](repeating: 1_000, count: 256) + [0]))
        var state: UInt64 = 42
        func next() -> UInt32 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt32(truncatingIfNeeded: state >> 33)
        }
        for round in 0..<200 {
            counts =
                (0..<256).map { _ in
                    let r = next()
                    switch round % 4 {
                    case 0: return r % 3 == 0 ? r % 7 : 0 // sparse, small, many ties
                    case 1: return r % 100_000 // dense
                    case 2: return (r % 5 == 0) ? 1 << (r % 20) : 0 // powers of two: long codes
                    default: return r % 2 // zeros and ones
                    }
                } + [0]
            if counts.allSatisfy({ $0 == 0 }) { counts[7] = 1 }
            cases.append(("random \(round)", counts))
        }
        for (label, counts) in cases {
            var ourBits = [UInt8](repeating: 0, count: 17), ourValues = [UInt8](repeating: 0, count: 256)
            var bits = [UInt8](repeating: 0, count: 17), values = [UInt8](repeating: 0, count: 256)
            let ours = pc_thumbnail_optimal_table_test(counts, &ourBits, &ourValues)
            let libjpeg = pc_jpeg_optimal_table_libjpeg(counts, &bits, &values)
            XCTAssertEqual(Int(ours), counts.prefix(256).filter { $0 > 0 }.count, label)
            XCTAssertEqual(ours, libjpeg, label)
            XCTAssertEqual(ourBits, bits, label)
            XCTAssertEqual(ourValues, values, label)
        }
        var fibonacciBits = [UInt8](repeating: 0, count: 17), values = [UInt8](repeating: 0, count: 256)
        _ = pc_thumbnail_optimal_table_test(cases[0].1, &fibonacciBits, &values)
        XCTAssertGreaterThan(fibonacciBits[16], 0, "the 29-bit-deep code is cut to 16 bits")
    }

    /// Markers as libjpeg writes them: SOI, APP0 JFIF 1.01, APP1 Exif (sRGB), DQT ×2, SOF0, DHT ×2 (×4 over
    /// 240 × 240 pixels), SOS, EOI; the APP1 segment byte for byte.
    func testMarkerOrderJFIFAndExifSegment() throws {
        for (w, h, tables) in [(120, 90, 2), (240, 240, 2), (241, 240, 4)] {
            let jpeg = Self.encode(Self.noise(w, h, seed: 7), w, h, quality: 85, .ours).bytes
            var markers: [UInt8] = [jpeg[1]]
            var i = 2
            while i + 4 <= jpeg.count, jpeg[i] == 0xFF, jpeg[i + 1] != 0xDA {
                markers.append(jpeg[i + 1])
                i += 2 + (Int(jpeg[i + 2]) << 8 | Int(jpeg[i + 3]))
            }
            markers.append(jpeg[i + 1])
            markers.append(jpeg[jpeg.count - 1])
            XCTAssertEqual(
                markers, [0xD8, 0xE0, 0xE1, 0xDB, 0xDB, 0xC0] + Array(repeating: 0xC4, count: tables) + [0xDA, 0xD9],
                "\(w)×\(h)")
            XCTAssertEqual(jpeg[jpeg.count - 2], 0xFF)
            XCTAssertEqual(
                Array(jpeg[2..<20]), [0xFF, 0xE0, 0, 16] + Array("JFIF".utf8) + [0, 1, 1, 0, 0, 1, 0, 1, 0, 0])
            let exif: [UInt8] =
                Array("Exif".utf8) + [0, 0, 0x49, 0x49, 42, 0, 8, 0, 0, 0]
                + [1, 0, 0x69, 0x87, 4, 0, 1, 0, 0, 0, 26, 0, 0, 0, 0, 0, 0, 0]
                + [1, 0, 0x01, 0xA0, 3, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0]
            XCTAssertEqual(Array(jpeg[20..<24]), [0xFF, 0xE1, 0, UInt8(exif.count + 2)])
            XCTAssertEqual(Array(jpeg[24..<(24 + exif.count)]), exif)
            XCTAssertEqual(pc_srgb_exif_app1_size, exif.count)
            // SOF0: 8-bit, the size, three components 1 (2×2, table 0), 2 and 3 (1×1, table 1).
            let sof = try XCTUnwrap(JPEGSegments.offset(of: 0xC0, in: jpeg))
            XCTAssertEqual(
                Array(jpeg[sof..<(sof + 19)]),
                [
                    0xFF, 0xC0, 0, 17, 8, UInt8(h >> 8), UInt8(h & 255), UInt8(w >> 8), UInt8(w & 255), 3, 1, 0x22, 0,
                    2, 0x11, 1, 3, 0x11, 1
                ])
        }
    }

    /// libjpeg's verdict (every MCU through its checking Huffman decoder) and djpeg both read every file.
    func testEveryOutputIsReadByLibjpegAndDjpeg() throws {
        let djpeg = "/usr/bin/djpeg"
        guard FileManager.default.isExecutableFile(atPath: djpeg) else {
            throw XCTSkip("djpeg (libjpeg-turbo-progs) is not installed")
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("thumbenc-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        for (w, h) in Self.sizes {
            for q in [1, 85, 100] {
                let jpeg = Self.encode(Self.noise(w, h, seed: 3), w, h, quality: q, .ours).bytes
                var messages = pc_messages()
                XCTAssertEqual(
                    jpeg.withUnsafeBufferPointer { pc_jpeg_libjpeg_verdict($0.baseAddress, $0.count, &messages) }, PC_OK
                )
                let file = folder.appendingPathComponent("t.jpg")
                try Data(jpeg).write(to: file)
                let process = Process()
                process.executableURL = URL(fileURLWithPath: djpeg)
                process.arguments = ["-outfile", "/dev/null", file.path]
                let errors = Pipe()
                process.standardError = errors
                try process.run()
                let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                process.waitUntilExit()
                XCTAssertEqual(process.terminationStatus, 0, "\(w)×\(h) q\(q): \(text)")
                XCTAssertEqual(text, "", "\(w)×\(h) q\(q)")
            }
        }
    }

    /// Bad sizes give libjpeg's status (and message); out-of-range qualities are clamped to 1...100.
    func testBadParametersGiveTheSameStatusAsLibjpeg() throws {
        for (w, h) in [(0, 10), (10, 0), (-1, 5), (65_501, 1), (1, 65_501)] {
            let rgb = [UInt8](repeating: 128, count: max(0, w) * max(0, h) * 3)
            let ours = Self.encode(rgb, w, h, quality: 85, .ours)
            let reference = Self.encode(rgb, w, h, quality: 85, .libjpeg)
            XCTAssertNotEqual(ours.status, PC_OK, "\(w)×\(h)")
            XCTAssertEqual(ours.status, reference.status, "\(w)×\(h)")
            XCTAssertEqual(ours.error, reference.error, "\(w)×\(h)")
            XCTAssertEqual(ours.bytes, [])
        }
        let rgb = Self.noise(20, 10, seed: 9)
        for (given, clamped) in [(0, 1), (-40, 1), (101, 100), (1_000, 100)] {
            let ours = Self.encode(rgb, 20, 10, quality: given, .ours)
            XCTAssert(ours.bytes == Self.encode(rgb, 20, 10, quality: clamped, .ours).bytes, "quality \(given)")
            XCTAssert(ours.bytes == Self.encode(rgb, 20, 10, quality: given, .libjpeg).bytes, "quality \(given)")
        }
        // The largest size libjpeg takes is encoded (one row).
        let wide = Self.encode([UInt8](repeating: 90, count: 65_500 * 3), 65_500, 1, quality: 85, .ours)
        XCTAssertEqual(wide.status, PC_OK)
        XCTAssertEqual(try Self.decodedPixels(wide.bytes).count, 65_500 * 3)
    }

    /// The work memory follows the image's size: 6 to 10 bytes per pixel of whole MCUs (tokens, 16-row
    /// bands), computed without overflow up to 65500 × 65500, and none for sizes refused.
    func testWorkMemoryIsBoundedByTheImageSize() {
        for (w, h) in Self.sizes + [(65_500, 65_500), (65_500, 1), (1, 65_500)] {
            let bytes = pc_thumbnail_jpeg_encode_memory(Int32(w), Int32(h))
            let mcuPixels = (w + 15) / 16 * 16 * ((h + 15) / 16 * 16)
            XCTAssertLessThanOrEqual(bytes, 10 * mcuPixels, "\(w)×\(h)")
            XCTAssertGreaterThanOrEqual(bytes, 6 * mcuPixels, "\(w)×\(h)")
        }
        for (w, h) in [(0, 1), (1, 0), (65_501, 1), (1, 65_501), (Int(Int32.max), Int(Int32.max))] {
            XCTAssertEqual(pc_thumbnail_jpeg_encode_memory(Int32(w), Int32(h)), 0, "\(w)×\(h)")
        }
    }
}
