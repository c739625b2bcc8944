import Foundation
import XCTest
import PhotosTestSupport
@testable import PhotosImaging

/// Issue 24 item 1: camera RAW files through LibRaw (raw.c): detection by content, the embedded
/// preview or a half-size develop, orientation, capture time, and hostile bytes failing alone.
final class CameraRawTests: XCTestCase {
    static func thumbnail(_ bytes: [UInt8], edge: Int = 120) throws -> ThumbnailResult {
        try bytes.withUnsafeBytes {
            try Thumbnailer.makeThumbnail(from: $0, options: ThumbnailOptions(maxEdge: edge, quality: 100))
        }
    }

    static func pixels(ofJPEG jpeg: [UInt8]) throws -> PixelBuffer {
        try jpeg.withUnsafeBytes {
            try ImageDecoder.decode($0, format: .jpeg, targetEdge: 10_000, maxPixels: 1 << 24).pixels
        }
    }

    static func meanAbsoluteDifference(_ a: PixelBuffer, _ b: PixelBuffer) -> Double {
        XCTAssertEqual([a.width, a.height], [b.width, b.height])
        let x = a.bytes, y = b.bytes
        return Double(zip(x, y).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }) / Double(max(1, x.count))
    }

    /// Samples/ladybird.jpg upright at `edge` pixels on its long edge, as decoded RGB.
    static func samplePicture(edge: Int) throws -> PixelBuffer {
        let bytes = try XCTUnwrap(FileManager.default.contents(atPath: samplesDir + "/ladybird.jpg"))
        return try pixels(ofJPEG: try thumbnail(Array(bytes), edge: edge).thumbnail)
    }

    /// The stored image whose display under `orientation` is `upright` (EXIF 2.32 Table 4: 6 and 8 are
    /// each other's inverse, every other value its own).
    static func stored(_ upright: PixelBuffer, for orientation: Int) throws -> PixelBuffer {
        let inverse = orientation == 6 ? 8 : orientation == 8 ? 6 : orientation
        return try Orientation(exif: inverse).apply(to: upright)
    }

    static func exiftool(_ note: String) -> [String: Any] {
        guard let start = note.range(of: "exiftool=")?.upperBound,
            let end = note.range(of: "; src=", range: start..<note.endIndex)?.lowerBound,
            let json = try? JSONSerialization.jsonObject(with: Data(note[start..<end].utf8)) as? [String: Any]
        else { return [:] }
        return json
    }

    /// Every RAW row of camera-formats/MANIFEST.tsv: `ok` with the manifest's size, exiftool's
    /// Orientation and DateTimeOriginal; `reject` refused with a reason; `either` no crash.
    func testCorpusRawFilesPerManifest() throws {
        let corpus = try requireCorpus()
        let rows = try loadManifest(corpus + "/camera-formats").filter { $0.path.hasPrefix("camera-formats/raw/") }
        XCTAssertEqual(rows.count, 6)
        var checked = 0
        for row in rows {
            let bytes = try XCTUnwrap(FileManager.default.contents(atPath: corpus + "/" + row.path), row.path)
            let outcome = Result { try Self.thumbnail(Array(bytes)) }
            switch (row.expect, outcome) {
            case ("ok", .success(let result)):
                XCTAssertEqual(result.format, row.format.hasPrefix("raw") ? .raw : .jpeg, row.path)
                XCTAssertEqual([result.width, result.height], [row.width, row.height], row.path)
                let exif = Self.exiftool(row.note)
                XCTAssertEqual(result.orientation.rawValue, exif["Orientation"] as? Int ?? 1, row.path)
                XCTAssertEqual(result.dateTimeOriginal, exif["DateTimeOriginal"] as? String, row.path)
                XCTAssertGreaterThan(result.thumbnail.count, 100, row.path)
                if result.format == .raw { XCTAssertNotNil(result.camera, row.path) }
                checked += 1
            case ("ok", .failure(let error)):
                XCTFail("\(row.path): \(error)")
            case ("reject", .success):
                XCTFail("\(row.path) imported, the manifest says reject")
            case ("reject", .failure(let error)):
                XCTAssertFalse("\(error)".isEmpty)
            default:
                break // either: no crash is the assertion
            }
        }
        XCTAssertEqual(checked, 4, "RAF, DNG, RW2 and the JPEG named .nef")
    }

    /// What LibRaw and the corpus say of specific files: the RAF's 160×120 JPEG preview, the DNG's
    /// 8×8 IFD0 thumbnail (its declared 3456×2304 preview and raw data are stripped), camera names.
    func testCorpusRawSourcesAndCameras() throws {
        let corpus = try requireCorpus()
        func result(_ name: String) throws -> ThumbnailResult {
            let bytes = try XCTUnwrap(FileManager.default.contents(atPath: corpus + "/camera-formats/raw/" + name))
            return try Self.thumbnail(Array(bytes))
        }
        let raf = try result("exiftool_FujiFilm.raf")
        XCTAssertEqual(raf.camera?.cameraFormat, "raf")
        XCTAssertEqual(raf.camera?.make, "Fujifilm")
        XCTAssertEqual(raf.camera?.model, "S5Pro")
        XCTAssertEqual(raf.camera?.source, .jpegPreview)
        XCTAssertEqual([raf.camera?.previewWidth, raf.camera?.previewHeight], [160, 120])
        // The thumbnail has the size SPEC §6 gives the photo's recorded size (LibRaw's 3584×3583
        // for this SuperCCD stub), which verify checks, whatever the preview's aspect.
        XCTAssertEqual([raf.width, raf.height], [3584, 3583])
        XCTAssertEqual([raf.thumbnailWidth, raf.thumbnailHeight], [120, 120])
        let dng = try result("exiftool_DNG.dng")
        XCTAssertEqual(dng.camera?.cameraFormat, "dng")
        XCTAssertEqual(dng.camera?.model, "EOS 350D")
        XCTAssertEqual(dng.camera?.source, .bitmapPreview)
        // Its only picture is IFD0's 8×8 thumbnail, resampled to the 3474×2314 photo's 120×80.
        XCTAssertEqual([dng.thumbnailWidth, dng.thumbnailHeight], [120, 80])
        let rw2 = try result("exiftool_Panasonic.rw2")
        XCTAssertEqual(rw2.camera?.cameraFormat, "rw2")
        XCTAssertEqual(rw2.camera?.model, "DMC-LX3")
        let error = Result { try result("exiftool_Nikon.nef") }
        guard case .failure(let failure) = error else {
            return XCTFail("the stripped NEF has neither preview nor data")
        }
        XCTAssertTrue(
            "\(failure)".contains("RAW file has no embedded preview and its image data cannot be decoded"), "\(failure)"
        )
    }

    /// Content decides: the RAW files are `.raw`, the JPEG named .nef is a JPEG, and no plain TIFF of
    /// the corpus (scanner files, a Parrot multispectral band LibRaw itself takes for a camera) is RAW.
    func testDetectionByContent() throws {
        let corpus = try requireCorpus()
        let rows = try loadManifest(corpus + "/camera-formats")
        var tiffs = 0
        for row in rows where row.path.hasPrefix("camera-formats/raw/") || row.path.hasPrefix("camera-formats/tiff/") {
            let bytes = try XCTUnwrap(FileManager.default.contents(atPath: corpus + "/" + row.path))
            let format = bytes.withUnsafeBytes { ImageFormatSniffer.detect($0, heifAndWebP: true) }
            if row.format.hasPrefix("raw") {
                XCTAssertEqual(format, .raw, row.path)
            } else if row.format == "jpeg" {
                XCTAssertEqual(format, .jpeg, row.path)
            } else {
                XCTAssertNotEqual(format, .raw, row.path)
                tiffs += 1
            }
        }
        XCTAssertEqual(tiffs, 30)
        // The signatures of the non-TIFF containers.
        let signatures: [(String, [UInt8])] = [
            ("orf", Array("IIRO".utf8) + [8, 0, 0, 0]), ("crw", Array("II\u{1a}\0\0\0HEAPCCDR".utf8)),
            ("x3f", Array("FOVb".utf8)), ("mrw", [0] + Array("MRM".utf8)),
            ("cr3", [0, 0, 0, 24] + Array("ftypcrx ".utf8)), ("raf", Array("FUJIFILMCCD-RAW 0201".utf8))
        ]
        for (name, head) in signatures {
            let bytes = head + [UInt8](repeating: 0, count: 64)
            XCTAssertEqual(bytes.withUnsafeBytes { RawThumbnailer.cameraFormat($0) }, name)
            XCTAssertEqual(bytes.withUnsafeBytes { ImageFormatSniffer.detect($0, heifAndWebP: true) }, .raw, name)
        }
    }

    /// A DNG with a JPEG preview in IFD0: the thumbnail is exactly that preview's thumbnail; the
    /// photo's size is the raw image's, not the preview's.
    func testDNGWithPreviewUsesIt() throws {
        let picture = try Self.samplePicture(edge: 200)
        let jpeg = try ImageDecoder.encodeJPEG(picture, quality: 90)
        let dng = DNGWriter.make(image: picture, preview: (jpeg, picture.width, picture.height))
        let result = try Self.thumbnail(dng)
        XCTAssertEqual(result.format, .raw)
        XCTAssertEqual(result.camera?.cameraFormat, "dng")
        XCTAssertEqual(result.camera?.source, .jpegPreview)
        XCTAssertEqual([result.width, result.height], [picture.width * 2, picture.height * 2])
        let own = try Self.thumbnail(jpeg)
        XCTAssertEqual([result.thumbnailWidth, result.thumbnailHeight], [own.thumbnailWidth, own.thumbnailHeight])
        XCTAssertEqual([result.camera?.previewWidth, result.camera?.previewHeight], [picture.width, picture.height])
        XCTAssertTrue(result.thumbnail == own.thumbnail, "the preview's own thumbnail, byte for byte")
        if result.thumbnail != own.thumbnail {
            XCTAssertEqual(
                Self.meanAbsoluteDifference(
                    try Self.pixels(ofJPEG: result.thumbnail), try Self.pixels(ofJPEG: own.thumbnail)), 0)
        }
    }

    /// A DNG without a preview: LibRaw's half-size develop (camera white balance 1 1 1, sRGB) gives the
    /// source picture back: mean absolute difference of the 120-px thumbnails under 3 levels of 255.
    func testDNGWithoutPreviewIsDeveloped() throws {
        let picture = try Self.samplePicture(edge: 240)
        let dng = DNGWriter.make(image: picture, preview: nil)
        let result = try Self.thumbnail(dng)
        XCTAssertEqual(result.camera?.source, .developed)
        XCTAssertEqual([result.width, result.height], [picture.width * 2, picture.height * 2])
        let expected = try Self.pixels(
            ofJPEG: Self.thumbnail(try ImageDecoder.encodeJPEG(picture, quality: 100)).thumbnail)
        let got = try Self.pixels(ofJPEG: result.thumbnail)
        XCTAssertLessThan(Self.meanAbsoluteDifference(got, expected), 3)
    }

    /// Orientation 1...8 in the DNG's IFD0, stored pixels turned so that each displays upright: every
    /// thumbnail is the upright picture (preview path and develop path).
    func testDNGOrientationsAreUpright() throws {
        let upright = try Self.samplePicture(edge: 160)
        let expected = try Self.pixels(
            ofJPEG: Self.thumbnail(try ImageDecoder.encodeJPEG(upright, quality: 100)).thumbnail)
        for orientation in 1...8 {
            let stored = try Self.stored(upright, for: orientation)
            let jpeg = try ImageDecoder.encodeJPEG(stored, quality: 100)
            for preview in [true, false] {
                let dng = DNGWriter.make(
                    image: stored, orientation: orientation,
                    preview: preview ? (jpeg, stored.width, stored.height) : nil)
                let result = try Self.thumbnail(dng)
                XCTAssertEqual(result.orientation.rawValue, orientation)
                XCTAssertEqual([result.width, result.height], [upright.width * 2, upright.height * 2], "\(orientation)")
                let got = try Self.pixels(ofJPEG: result.thumbnail)
                XCTAssertEqual([got.width, got.height], [expected.width, expected.height], "\(orientation) \(preview)")
                if got.width == expected.width && got.height == expected.height {
                    XCTAssertLessThan(
                        Self.meanAbsoluteDifference(got, expected), 4, "orientation \(orientation) \(preview)")
                }
            }
        }
    }

    /// Truncations and bit flips of the corpus RAWs and of our DNGs: each either makes a thumbnail or
    /// fails with an `ImageError` that has a reason; none crashes the test process (LibRaw runs in a child).
    func testHostileRawInputsFailAlone() throws {
        var seeds: [[UInt8]] = []
        if let corpus = corpusDir {
            for name in [
                "exiftool_FujiFilm.raf", "exiftool_DNG.dng", "exiftool_Panasonic.rw2", "exiftool_Nikon.nef",
                "exiftool_CanonRaw.cr3"
            ] {
                if let data = FileManager.default.contents(atPath: corpus + "/camera-formats/raw/" + name) {
                    seeds.append(Array(data))
                }
            }
        }
        let picture = try Self.samplePicture(edge: 60)
        seeds.append(DNGWriter.make(image: picture, preview: nil))
        seeds.append(
            DNGWriter.make(image: picture, preview: (try ImageDecoder.encodeJPEG(picture, quality: 80), 60, 40)))
        var generator = SystemRandomNumberGenerator()
        var failures = 0, successes = 0
        for seed in seeds {
            var variants: [[UInt8]] = [16, 64, 200, seed.count / 3, seed.count / 2, seed.count - 1].map {
                Array(seed.prefix($0))
            }
            for _ in 0..<6 {
                var flipped = seed
                for _ in 0..<8 {
                    let at = Int.random(in: 0..<flipped.count, using: &generator)
                    flipped[at] ^= UInt8(1 << Int.random(in: 0..<8, using: &generator))
                }
                variants.append(flipped)
            }
            for bytes in variants {
                do {
                    let result = try Self.thumbnail(bytes)
                    XCTAssertFalse(result.thumbnail.isEmpty)
                    successes += 1
                } catch let error as ImageError {
                    XCTAssertFalse("\(error)".isEmpty)
                    failures += 1
                }
            }
        }
        XCTAssertGreaterThan(failures, 0)
        XCTAssertEqual(failures + successes, seeds.count * 12)
    }
}
