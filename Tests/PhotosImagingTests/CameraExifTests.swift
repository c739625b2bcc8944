import Foundation
import PhotosModel
import PhotosTestSupport
import XCTest

@testable import PhotosImaging

/// Issue 24 item 1 at the reader: the camera each RAW container holds, read by content, for the
/// corpus RAWs of five makers (the NEF and CR3 stubs too, which cannot be imported: their
/// previews and raw data are stripped). Expected values are exiftool 12's
/// (`exiftool -a -G1 -Make -Model -LensModel`).
final class CameraExifTests: XCTestCase {
    private func bytes(_ name: String) throws -> [UInt8] {
        let path = try requireCorpus() + "/camera-formats/raw/" + name
        return [UInt8](try XCTUnwrap(FileManager.default.contents(atPath: path)))
    }

    func testTheRawsOwnTIFFDirectoriesNameTheCamera() throws {
        for (name, make, model) in [
            ("exiftool_Nikon.nef", "NIKON CORPORATION", "NIKON D70"),
            ("exiftool_DNG.dng", "Canon", "Canon EOS 350D DIGITAL"),
            ("exiftool_Panasonic.rw2", "Panasonic", "DMC-LX3")
        ] {
            let exif = try bytes(name).withUnsafeBytes { ExifReader.parse($0, rawMagic: true) }
            XCTAssertEqual(exif.camera, CameraIdentity(make: make, model: model, lens: nil), name)
        }
        // RW2's magic 0x55 is read only as a RAW.
        XCTAssertNil(try bytes("exiftool_Panasonic.rw2").withUnsafeBytes { ExifReader.parse($0) }.camera)
    }

    func testARAFsEXIFIsInTheJPEGItsHeaderPointsAt() throws {
        let raf = try bytes("exiftool_FujiFilm.raf")
        let camera = try raf.withUnsafeBytes { file -> CameraIdentity? in
            let range = try XCTUnwrap(ExifReader.rafEmbeddedJPEG(file))
            XCTAssertEqual(range.lowerBound, 148)
            return EmbeddedMetadata.read(jpeg: UnsafeRawBufferPointer(rebasing: file[range])).exif.camera
        }
        XCTAssertEqual(camera, CameraIdentity(make: "FUJIFILM", model: "FinePix S5Pro", lens: nil))
        // A header whose JPEG offset points past the file is no JPEG.
        var bad = Array(raf.prefix(200))
        bad[84...87] = [0x7F, 0, 0, 0]
        XCTAssertNil(bad.withUnsafeBytes { ExifReader.rafEmbeddedJPEG($0) })
    }

    func testADNGsOwnXMPPacketIsFoundInIFD0() throws {
        let dng = try bytes("exiftool_DNG.dng")
        let text = try dng.withUnsafeBytes { file -> String in
            let range = try XCTUnwrap(ExifReader.xmpPacket(inTIFF: file, maxBytes: 1 << 20))
            return String(decoding: file[range], as: UTF8.self)
        }
        XCTAssertTrue(text.contains("18.0-55.0 mm"), text)
        XCTAssertNil(dng.withUnsafeBytes { ExifReader.xmpPacket(inTIFF: $0, maxBytes: 16) }, "over the bound")
    }

    func testTheContainerIsNamedByContent() throws {
        for (name, format) in [
            ("exiftool_Nikon.nef", "nef"), ("exiftool_DNG.dng", "dng"), ("exiftool_Panasonic.rw2", "rw2"),
            ("exiftool_FujiFilm.raf", "raf"), ("exiftool_CanonRaw.cr3", "cr3")
        ] {
            XCTAssertEqual(try bytes(name).withUnsafeBytes { RawThumbnailer.cameraFormat($0) }, format, name)
        }
        XCTAssertNil(try bytes("mei_Issue_247-1.nef").withUnsafeBytes { RawThumbnailer.cameraFormat($0) }, "a JPEG")
    }

    func testExifTextIsReadUpToItsNulAndBounded() {
        // II*\0, IFD0 at 8 with one entry: Make, ASCII, 12 bytes at offset 26.
        var tiff: [UInt8] = [
            0x49, 0x49, 42, 0, 8, 0, 0, 0, 1, 0, 0x0F, 0x01, 2, 0, 12, 0, 0, 0, 26, 0, 0, 0, 0, 0, 0, 0
        ]
        tiff += Array("Canon  \0junk".utf8)
        XCTAssertEqual(tiff.withUnsafeBytes { ExifReader.parse($0) }.camera?.make, "Canon")
        // A count past the block's end is not read.
        tiff[14] = 200
        XCTAssertNil(tiff.withUnsafeBytes { ExifReader.parse($0) }.camera)
    }
}
