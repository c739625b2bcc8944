import Foundation
import PhotosModel
import PhotosTestSupport
import XCTest

@testable import PhotosCore
@testable import PhotosImaging

/// Issue 24 items 1 and 7: a photo's camera make, model and lens and a RAW's container name are
/// read at import (EXIF, XMP, LibRaw), filtered on (`--camera`), counted by `stats`, read again
/// by `--refresh-metadata`, carried by changesets and merge; the duplicates keeper's camera JPEG
/// is a JPEG with a camera make. Both backends (`PHOTOS_TEST_DATABASE_URL`).
///
/// The expected names are exiftool 12's (`exiftool -j -a -G1 -Make -Model -LensModel -Lens`) on
/// the corpus files; the corpus MANIFEST notes hold no Make/Model/LensModel (only LibRaw's
/// normalised names for the RAWs), so they are written here.
final class CameraIdentityTests: SyncTestCase {
    /// (corpus file under camera-formats, make, model, lens, camera format).
    static let expected: [(String, String?, String?, String?, String?)] = [
        // IFD0 Make/Model of the DNG; its lens is the DNG's own XMP `aux:Lens` (IFD0 tag 700).
        ("raw/exiftool_DNG.dng", "Canon", "Canon EOS 350D DIGITAL", "18.0-55.0 mm", "dng"),
        // The RAF's EXIF is in the JPEG its header points at (LibRaw would say "Fujifilm", "S5Pro").
        ("raw/exiftool_FujiFilm.raf", "FUJIFILM", "FinePix S5Pro", nil, "raf"),
        // RW2: TIFF under magic 0x55, IFD0 Make/Model.
        ("raw/exiftool_Panasonic.rw2", "Panasonic", "DMC-LX3", nil, "rw2"),
        // A .nef that is a JPEG (by content): a camera JPEG, no container name.
        ("raw/mei_Issue_247-1.nef", "NIKON CORPORATION", "NIKON D70s", nil, nil),
        ("metadata/exiftool_GPS.jpg", "FUJIFILM", "FinePixS1Pro", nil, nil),
        ("metadata/immich_mongolels.jpg", "Canon", "Canon EOS 500D", nil, nil),
        // No EXIF Make/Model; the lens only as XMP `aux:Lens`.
        ("metadata/immich_thompson-springs.jpg", nil, nil, "Canon EF 24-105mm f/4L IS II USM", nil),
        // HEIF EXIF with LensModel (Exif IFD 0xA434).
        ("heif/mei_IMG_1034.heic", "Apple", "iPhone 8", "iPhone 8 back camera 3.99mm f/1.8", nil),
        // No camera at all.
        ("metadata/immich_portrait-orientation-6.jpg", nil, nil, nil, nil)
    ]

    /// Imports the expected corpus files into `library`. - Returns: photos by display name.
    private func importCorpus(_ library: Library) throws -> [String: PhotoRecord] {
        let corpus = try requireCorpus() + "/camera-formats/"
        var options = ImportOptions(paths: Self.expected.map { corpus + $0.0 })
        options.jobs = 1
        let summary = try Importer(library: library, libraryRoot: library.root, options: options).run()
        XCTAssertEqual(summary.imported, Self.expected.count, "\(summary.failures)")
        return Dictionary(uniqueKeysWithValues: try photos(library).map { ($0.displayName, $0) })
    }

    func testCorpusCamerasAreReadAtImportAndStoredOnTheRow() throws {
        let a = try library("A")
        let byName = try importCorpus(a)
        for (path, make, model, lens, format) in Self.expected {
            let name = String(path.split(separator: "/").last ?? "")
            let p = try XCTUnwrap(byName[name], name)
            XCTAssertEqual(p.camera?.make, make, name)
            XCTAssertEqual(p.camera?.model, model, name)
            XCTAssertEqual(p.camera?.lens, lens, name)
            XCTAssertEqual(p.cameraFormat, format, name)
        }
        // The store's read of every camera at once: the eight photos that have one, by row id.
        let cameras = try a.store.readTransaction { try a.catalogStore.cameraIdentities() }
        XCTAssertEqual(cameras.count, 8)
        let dng = try XCTUnwrap(byName["exiftool_DNG.dng"])
        XCTAssertEqual(
            cameras[dng.rowID], CameraIdentity(make: "Canon", model: "Canon EOS 350D DIGITAL", lens: "18.0-55.0 mm"))
        XCTAssertNil(cameras[try XCTUnwrap(byName["immich_portrait-orientation-6.jpg"]).rowID])
        // `show`'s line: the model alone when it begins with the make.
        XCTAssertEqual(dng.camera?.text, "Canon EOS 350D DIGITAL, 18.0-55.0 mm")
        XCTAssertEqual(byName["exiftool_GPS.jpg"]?.camera?.text, "FUJIFILM FinePixS1Pro")
        // list --json: `camera` only when known, `cameraFormat` always.
        let json = dng.json.serialized()
        XCTAssertTrue(
            json.contains(
                #""cameraFormat":"dng","camera":{"make":"Canon","model":"Canon EOS 350D DIGITAL","lens":"18.0-55.0 mm"}"#
            ),
            json)
        let none = try XCTUnwrap(byName["immich_portrait-orientation-6.jpg"]).json.serialized()
        XCTAssertTrue(none.contains(#""cameraFormat":null"#), none)
        XCTAssertFalse(none.contains(#""camera":"#), none)
    }

    func testCameraFilterSelectsInSQLAndStatsCountFormatsAndRawContainers() throws {
        let a = try library("A")
        _ = try importCorpus(a)
        func names(_ camera: String) throws -> [String] {
            var filter = PhotoFilter()
            filter.camera = camera
            filter.sort = .name
            var names: [String] = []
            try a.forEachPhoto(matching: filter) { names.append($0.displayName) }
            return names
        }
        // Make or model, any ASCII case.
        XCTAssertEqual(try names("canon"), ["exiftool_DNG.dng", "immich_mongolels.jpg"])
        XCTAssertEqual(try names("FUJIFILM"), ["exiftool_FujiFilm.raf", "exiftool_GPS.jpg"])
        XCTAssertEqual(try names("d70"), ["mei_Issue_247-1.nef"])
        XCTAssertEqual(try names("iPhone 8"), ["mei_IMG_1034.heic"])
        // The lens is not searched (thompson-springs names Canon only in its lens), nor is a
        // LIKE wildcard a wildcard.
        XCTAssertEqual(try names("24-105"), [])
        XCTAssertEqual(try names("%"), [])
        XCTAssertEqual(try names("_"), [])
        let stats = try a.stats()
        XCTAssertEqual(stats.formats.map { "\($0.format)=\($0.photos)" }, ["jpeg=5", "heif=1", "raw=3"])
        XCTAssertEqual(stats.cameraFormats.map { "\($0.format)=\($0.photos)" }, ["dng=1", "raf=1", "rw2=1"])
        let json = stats.json.serialized()
        XCTAssertTrue(
            json.contains(#""formats":{"jpeg":5,"heif":1,"raw":3},"cameraFormats":{"dng":1,"raf":1,"rw2":1}"#), json)
    }

    func testChangesetAndMergeCarryTheCameraBetweenLibraries() throws {
        let a = try library("A")
        let fromA = try importCorpus(a)
        let b = try library("B")
        _ = try b.applyChangeset(at: try export(a))
        let c = try library("C")
        XCTAssertEqual(try c.merge(from: a).photos, Self.expected.count)
        for other in [b, c] {
            let got = Dictionary(uniqueKeysWithValues: try photos(other).map { ($0.displayName, $0) })
            XCTAssertEqual(got.count, fromA.count)
            for (name, p) in fromA {
                XCTAssertEqual(got[name]?.camera, p.camera, "\(other.root) \(name)")
                XCTAssertEqual(got[name]?.cameraFormat, p.cameraFormat, "\(other.root) \(name)")
            }
            XCTAssertEqual(got["exiftool_FujiFilm.raf"]?.camera?.model, "FinePix S5Pro")
        }
        XCTAssertEqual(try CanonicalDump.of(b.root), try CanonicalDump.of(a.root))
    }

    /// A photo from before schema 18 has no camera; `import --refresh-metadata` reads it.
    func testRefreshMetadataReadsTheCameraAgain() throws {
        let a = try library("A")
        let corpus = try requireCorpus() + "/camera-formats/"
        let files = [corpus + "raw/exiftool_Panasonic.rw2", corpus + "metadata/immich_mongolels.jpg"]
        var options = ImportOptions(paths: files)
        options.jobs = 1
        XCTAssertEqual(try Importer(library: a, libraryRoot: a.root, options: options).run().imported, 2)
        try a.write {
            for p in try photos(a) { try a.metadataStore.setCamera(ofPhoto: p.rowID, nil, cameraFormat: nil) }
        }
        XCTAssertEqual(try photos(a).compactMap(\.camera), [])
        options.refreshMetadata = true
        let summary = try Importer(library: a, libraryRoot: a.root, options: options).run()
        XCTAssertEqual(summary.refreshed, 2)
        let byName = Dictionary(uniqueKeysWithValues: try photos(a).map { ($0.displayName, $0) })
        XCTAssertEqual(
            byName["exiftool_Panasonic.rw2"]?.camera, CameraIdentity(make: "Panasonic", model: "DMC-LX3", lens: nil))
        XCTAssertEqual(byName["exiftool_Panasonic.rw2"]?.cameraFormat, "rw2")
        XCTAssertEqual(byName["immich_mongolels.jpg"]?.camera?.model, "Canon EOS 500D")
        // Nothing changed the second time.
        XCTAssertEqual(try Importer(library: a, libraryRoot: a.root, options: options).run().refreshed, 0)
    }

    /// The keeper rule's camera JPEG is a JPEG whose stored camera has a make, whatever its
    /// capture time's source (it once guessed from an EXIF capture time).
    func testDuplicatesKeeperTakesACameraJPEGByItsStoredMake() throws {
        func record(_ name: String, _ format: ImageFormat, camera: CameraIdentity?, source: String?) -> PhotoRecord {
            var r = PhotoRecord(
                rowID: 1, uniqueName: name, displayName: name, sha256: "", byteSize: 1, fileReference: "",
                format: format, width: 100, height: 100, orientation: .up, captureDate: nil, captureSource: source,
                importedAt: "2025-01-01T00:00:00.000Z", thumbnailWidth: 0, thumbnailHeight: 0, tags: [], ratings: [],
                zone: "default", scope: .private)
            r.camera = camera
            return r
        }
        let canon = CameraIdentity(make: "Canon", model: "Canon EOS 500D", lens: nil)
        let lensOnly = CameraIdentity(make: nil, model: nil, lens: "EF 24-105mm")
        XCTAssertEqual(DuplicateKeeper.formatRank(record("r", .raw, camera: nil, source: nil)), 0)
        XCTAssertEqual(DuplicateKeeper.formatRank(record("j", .jpeg, camera: canon, source: "xmp")), 1)
        XCTAssertEqual(DuplicateKeeper.formatRank(record("e", .jpeg, camera: nil, source: "exif")), 2)
        XCTAssertEqual(DuplicateKeeper.formatRank(record("l", .jpeg, camera: lensOnly, source: "exif")), 2)
        XCTAssertEqual(DuplicateKeeper.formatRank(record("p", .png, camera: canon, source: "exif")), 2)
        // "Z" sorts after "A": only the camera make puts the camera JPEG first.
        let (order, reason) = DuplicateKeeper.order([
            record("A", .jpeg, camera: nil, source: "exif"), record("Z", .jpeg, camera: canon, source: "xmp")
        ])
        XCTAssertEqual(order.map(\.uniqueName), ["Z", "A"])
        XCTAssertEqual(reason, "a camera JPEG (RAW over camera JPEG over other formats; the next is jpeg)")
    }

    func testCameraTextIsCleanedBoundedAndCheckedInChangesets() {
        XCTAssertEqual(CameraIdentity.clean("Canon EOS 5D     \0\0garbage"), "Canon EOS 5D")
        XCTAssertEqual(CameraIdentity.clean("  \u{1}NIKON\u{7F} "), "NIKON")
        XCTAssertNil(CameraIdentity.clean("   \0"))
        XCTAssertNil(CameraIdentity(make: " ", model: "\0", lens: nil))
        let long = String(repeating: "é", count: 100) // 200 bytes of UTF-8
        XCTAssertEqual(CameraIdentity.clean(long), String(repeating: "é", count: 64))
        XCTAssertEqual(CameraIdentity.asciiLowercased("NIKON Éclair"), "nikon Éclair")
        XCTAssertNil(SyncValues.problem(.photo, "cameraMake", "NIKON CORPORATION"))
        XCTAssertNil(SyncValues.problem(.photo, "lensModel", nil))
        XCTAssertNotNil(SyncValues.problem(.photo, "cameraModel", " padded"))
        XCTAssertNotNil(SyncValues.problem(.photo, "cameraModel", "a\nb"))
        XCTAssertNotNil(SyncValues.problem(.photo, "cameraMake", String(repeating: "x", count: 129)))
        XCTAssertNil(SyncValues.problem(.photo, "cameraFormat", "3fr"))
        XCTAssertNotNil(SyncValues.problem(.photo, "cameraFormat", "NEF"))
        XCTAssertNotNil(SyncValues.problem(.photo, "cameraFormat", "../x"))
    }
}

/// `Importer.cameraFormat`: by content, the extension only a tie-break (issue 24 item 7).
final class CameraFormatNameTests: XCTestCase {
    private func result(_ format: ImageFormat, sniffed: String?, make: String = "") -> ThumbnailResult {
        var r = ThumbnailResult(
            format: format, width: 1, height: 1, orientation: .up, dateTimeOriginal: nil, offsetTimeOriginal: nil,
            thumbnail: [], thumbnailWidth: 1, thumbnailHeight: 1, warnings: [])
        r.camera = sniffed.map {
            CameraRawInfo(
                cameraFormat: $0, make: make, model: "", lens: "", source: .jpegPreview, previewWidth: 0,
                previewHeight: 0)
        }
        return r
    }

    func testTheContentNamesTheContainerAndTheNameOnlyBreaksTies() {
        // The content wins over a name that says otherwise.
        XCTAssertEqual(Importer.cameraFormat(result(.raw, sniffed: "nef"), path: "/a/IMG_1.CR2"), "nef")
        // Nikon's NEF and NRW (Sony's ARW/SR2/SRF) are one TIFF layout: the name tells them apart.
        XCTAssertEqual(Importer.cameraFormat(result(.raw, sniffed: "nef"), path: "/a/DSCN1.NRW"), "nrw")
        XCTAssertEqual(Importer.cameraFormat(result(.raw, sniffed: "arw"), path: "/a/DSC1.sr2"), "sr2")
        // A TIFF RAW of a maker the sniffer does not know: LibRaw's maker, else a RAW name.
        XCTAssertEqual(Importer.cameraFormat(result(.raw, sniffed: "raw", make: "Phase One"), path: "/a/x.tif"), "iiq")
        XCTAssertEqual(Importer.cameraFormat(result(.raw, sniffed: "raw"), path: "/a/x.kdc"), "kdc")
        // ... but never a container that has its own signature, nor a non-RAW name.
        XCTAssertNil(Importer.cameraFormat(result(.raw, sniffed: "raw"), path: "/a/x.cr3"))
        XCTAssertNil(Importer.cameraFormat(result(.raw, sniffed: "raw"), path: "/a/x.tif"))
        // Not a RAW: no container, whatever the name.
        XCTAssertNil(Importer.cameraFormat(result(.jpeg, sniffed: nil), path: "/a/x.nef"))
    }
}
