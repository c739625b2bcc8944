import CImageCodec
import CImageCodecTesting
import Foundation
import PhotosTestSupport
import XCTest

@testable import PhotosImaging

/// Issue 27 item 1: the perceptual signature the thumbnailer computes, on transformations of the
/// corpus's real photos made here (the project's own JPEG and WebP encoders and resampler):
/// each stays within `same` of its source; different photos do not.
final class PerceptualSignatureTests: XCTestCase {
    /// The `same` limits (PhotosCore's `DuplicateThreshold.same`; PhotosImaging cannot see it).
    static let sameHash = 10
    static let sameColour = 6

    static func benchPhotos() throws -> [String] {
        let dir = try requireCorpus() + "/bench"
        return try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasSuffix(".jpg") }.sorted()
            .map { dir + "/" + $0 }
    }

    static func signature(_ bytes: [UInt8]) throws -> PerceptualSignature {
        let result = try bytes.withUnsafeBytes { try Thumbnailer.makeThumbnail(from: $0, options: ThumbnailOptions()) }
        return try XCTUnwrap(result.signature)
    }

    static func transformed(_ source: PixelBuffer, _ body: (Int, Int, inout [UInt8]) -> Void, width: Int, height: Int)
        throws -> PixelBuffer
    {
        var out = [UInt8](repeating: 0, count: width * height * 3)
        body(width, height, &out)
        return try PixelBuffer(width: width, height: height, rgb: out)
    }

    /// (name, file bytes) of each transformation of `path`'s picture.
    static func variants(of path: String) throws -> [(String, [UInt8])] {
        let bytes = try XCTUnwrap(FileManager.default.contents(atPath: path).map { [UInt8]($0) })
        let decoded = try bytes.withUnsafeBytes {
            try ImageDecoder.decode($0, format: .jpeg, targetEdge: 1200, maxPixels: 100_000_000)
        }
        let full = decoded.pixels
        let (w, h) = (full.width, full.height)
        var result: [(String, [UInt8])] = []
        for q in [50, 75, 95] { result.append(("jpeg-q\(q)", try ImageDecoder.encodeJPEG(full, quality: q))) }
        for (name, div) in [("resize-50", 2), ("resize-25", 4)] {
            let small = try Resampler.areaAverage(full, width: w / div, height: h / div)
            result.append((name, try ImageDecoder.encodeJPEG(small, quality: 90)))
        }
        let pixels = full.bytes
        let (dx, dy) = (w / 100, h / 100) // 1 % off each side: 2 % of each edge
        let cropped = try transformed(
            full,
            { cw, ch, out in
                for y in 0..<ch {
                    for x in 0..<cw {
                        for c in 0..<3 { out[(y * cw + x) * 3 + c] = pixels[((y + dy) * w + x + dx) * 3 + c] }
                    }
                }
            }, width: w - 2 * dx, height: h - 2 * dy)
        result.append(("crop-2%", try ImageDecoder.encodeJPEG(cropped, quality: 90)))
        let bright = try PixelBuffer(
            width: w, height: h, rgb: pixels.map { UInt8(min(255, (Double($0) * 1.05).rounded())) })
        result.append(("brighten-5%", try ImageDecoder.encodeJPEG(bright, quality: 90)))
        var output: UnsafeMutablePointer<UInt8>?
        var size = 0
        let status = pixels.withUnsafeBufferPointer {
            pc_webp_encode_test($0.baseAddress, Int32(w), Int32(h), 3, 0, 80, &output, &size)
        }
        defer { pc_free(output) }
        if status == PC_OK, let output {
            result.append(("webp", Array(UnsafeBufferPointer(start: output, count: size))))
        }
        return result
    }

    func testTransformationsOfCorpusPhotosStayWithinSame() throws {
        let photos = Array(try Self.benchPhotos().prefix(6))
        var worst = 0
        for path in photos {
            let source = try Self.signature(
                try XCTUnwrap(FileManager.default.contents(atPath: path).map { [UInt8]($0) }))
            XCTAssertFalse(source.lowInformation, path)
            for (name, bytes) in try Self.variants(of: path) {
                let s = try Self.signature(bytes)
                let d = source.hashDistance(to: s), c = source.colourDistance(to: s)
                print("signature \((path as NSString).lastPathComponent) \(name): hash \(d), colour \(c)")
                worst = max(worst, d)
                XCTAssertLessThanOrEqual(d, Self.sameHash, "\(path) \(name)")
                XCTAssertLessThanOrEqual(c, Self.sameColour, "\(path) \(name)")
            }
        }
        print("signature worst distance of a transformation: \(worst)")
    }

    func testTwentyDifferentCorpusPhotosAreApart() throws {
        let photos = Array(try Self.benchPhotos().prefix(20))
        XCTAssertEqual(photos.count, 20)
        let signatures = try photos.map {
            try Self.signature(try XCTUnwrap(FileManager.default.contents(atPath: $0).map { [UInt8]($0) }))
        }
        var nearest = 64
        for i in 0..<signatures.count {
            for j in (i + 1)..<signatures.count {
                let d = signatures[i].hashDistance(to: signatures[j])
                nearest = min(nearest, d)
                XCTAssertFalse(
                    d <= Self.sameHash && signatures[i].colourDistance(to: signatures[j]) <= Self.sameColour,
                    "\(photos[i]) and \(photos[j]) at \(d)")
            }
        }
        print("signature nearest two different photos: \(nearest)")
    }

    /// A grey and a red picture of one shape: the luma hashes agree, the mean chroma does not.
    func testGreyAndRedOfTheSameShapeDiffer() throws {
        func picture(_ colour: (UInt8, UInt8, UInt8)) throws -> PixelBuffer {
            var rgb: [UInt8] = []
            for y in 0..<90 {
                for x in 0..<120 {
                    let on = (x / 30 + y / 30) % 2 == 0
                    rgb += on ? [colour.0, colour.1, colour.2] : [20, 20, 20]
                }
            }
            return try PixelBuffer(width: 120, height: 90, rgb: rgb)
        }
        let grey = PerceptualSignature(of: try picture((128, 128, 128)))
        let red = PerceptualSignature(of: try picture((255, 0, 0)))
        XCTAssertEqual(grey.meanCb, 128)
        XCTAssertEqual(grey.meanCr, 128)
        XCTAssertGreaterThan(red.meanCr, 170)
        XCTAssertGreaterThan(grey.colourDistance(to: red), Self.sameColour)
        XCTAssertFalse(grey.lowInformation)
    }

    /// A near-uniform picture (a flat grey with ±1 of noise) and a tiny one are low-information.
    func testNearUniformAndTinyPicturesAreLowInformation() throws {
        var state: UInt32 = 12345
        let flat = (0..<(120 * 80 * 3)).map { _ -> UInt8 in
            state = state &* 1_103_515_245 &+ 12345
            return UInt8(127 + Int(state >> 16) % 3)
        }
        XCTAssertTrue(PerceptualSignature(of: try PixelBuffer(width: 120, height: 80, rgb: flat)).lowInformation)
        let tiny = [UInt8](repeating: 0, count: 6 * 6 * 3).enumerated().map { UInt8($0.offset * 7 % 256) }
        XCTAssertTrue(PerceptualSignature(of: try PixelBuffer(width: 6, height: 6, rgb: tiny)).lowInformation)
    }
}
