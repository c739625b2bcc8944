import Foundation
import PhotosTestSupport
import XCTest

@testable import PhotosCore

/// Issue 26: `photos merge` carries every column of a photo it brings in, its position too
/// (it used to drop latitude, longitude and altitude).
final class MergePositionTests: SyncTestCase {
    func testMergedPhotoKeepsItsPositionAndEveryOtherColumn() throws {
        let a = try library("A")
        let path = try distinctJPEG()
        try """
        <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
        <rdf:Description rdf:about="" xmlns:exif="http://ns.adobe.com/exif/1.0/"
         exif:GPSLatitude="33,52.12918S" exif:GPSLongitude="151,12.55773W" exif:GPSAltitude="4125/10" exif:GPSAltitudeRef="1"/>
        </rdf:RDF></x:xmpmeta>
        """.write(toFile: path + ".xmp", atomically: true, encoding: .utf8)
        var options = ImportOptions(paths: [path])
        options.jobs = 1
        XCTAssertEqual(try Importer(library: a, libraryRoot: a.root, options: options).run().imported, 1)
        let source = try XCTUnwrap(try photos(a).first)
        XCTAssertEqual(source.position?.latitudeE7, -338_688_197)

        let b = try library("B")
        let report = try b.merge(from: a)
        XCTAssertEqual(report.photos, 1)
        let merged = try XCTUnwrap(try photos(b).first)
        XCTAssertEqual(merged.position?.latitudeE7, -338_688_197)
        XCTAssertEqual(merged.position?.longitudeE7, -1_512_092_955)
        XCTAssertEqual(merged.position?.altitudeMM, -412_500)
        // Every other column of the photo too: the canonical dump of the photo row is A's.
        XCTAssertEqual(merged.uniqueName, source.uniqueName)
        XCTAssertEqual(merged.displayName, source.displayName)
        XCTAssertEqual(merged.importedAt, source.importedAt)
        XCTAssertEqual(merged.captureDate, source.captureDate)
        XCTAssertEqual(merged.captureOffset, source.captureOffset)
        XCTAssertEqual(merged.captureSource, source.captureSource)
        XCTAssertEqual(merged.width, source.width)
        XCTAssertEqual(merged.height, source.height)
        XCTAssertEqual(merged.format, source.format)
        XCTAssertEqual(merged.orientation, source.orientation)
        XCTAssertEqual(try CanonicalDump.of(b.root), try CanonicalDump.of(a.root))
        try assertVerifyClean(b)
    }
}

/// Issue 26 item 1, the same kind as merge: a JSON sidecar (`export --sidecar json`, the
/// `list --json` object) carries the position, and import reads it back (it used to drop it).
final class JSONSidecarPositionTests: SyncTestCase {
    func testJSONSidecarPositionIsReadOnImport() throws {
        let a = try library("A")
        let path = try distinctJPEG()
        try """
        <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
        <rdf:Description rdf:about="" xmlns:exif="http://ns.adobe.com/exif/1.0/"
         exif:GPSLatitude="33,52.12918S" exif:GPSLongitude="151,12.55773W" exif:GPSAltitude="4125/10" exif:GPSAltitudeRef="1"/>
        </rdf:RDF></x:xmpmeta>
        """.write(toFile: path + ".xmp", atomically: true, encoding: .utf8)
        var options = ImportOptions(paths: [path])
        options.jobs = 1
        XCTAssertEqual(try Importer(library: a, libraryRoot: a.root, options: options).run().imported, 1)
        let record = try XCTUnwrap(try photos(a).first)
        // The JSON object export writes, read back as a sidecar.
        let json = record.json.serialized()
        let sidecar = try XMPSidecar.parseJSON(Data(json.utf8), path: "x.jpg.json")
        XCTAssertEqual(sidecar.position?.latitudeE7, -338_688_197, json)
        XCTAssertEqual(sidecar.position?.longitudeE7, -1_512_092_955)
        XCTAssertEqual(sidecar.position?.altitudeMM, -412_500)
        // Imported into another library with that JSON sidecar in place of the XMP one.
        try FileManager.default.removeItem(atPath: path + ".xmp")
        try json.write(toFile: path + ".json", atomically: true, encoding: .utf8)
        let b = try library("B")
        XCTAssertEqual(try Importer(library: b, libraryRoot: b.root, options: options).run().imported, 1)
        let imported = try XCTUnwrap(try photos(b).first)
        XCTAssertEqual(imported.position?.latitudeE7, -338_688_197)
        XCTAssertEqual(imported.position?.longitudeE7, -1_512_092_955)
        XCTAssertEqual(imported.position?.altitudeMM, -412_500)
        // Out of range, or half a position: none.
        for bad in [#"{"latitude":91,"longitude":0}"#, #"{"latitude":10}"#, #"{"latitude":"10","longitude":2}"#] {
            XCTAssertNil(try XMPSidecar.parseJSON(Data(bad.utf8), path: "y.json").position, bad)
        }
    }
}
