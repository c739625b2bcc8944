import Foundation
import PhotosTestSupport
import XCTest

@testable import PhotosCore

/// Issue 26 item 1: a changeset carries a photo's position, and a changed position.
final class SyncPositionTests: SyncTestCase {
    func sidecar(_ latitude: String, _ longitude: String) -> String {
        """
        <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
        <rdf:Description rdf:about="" xmlns:exif="http://ns.adobe.com/exif/1.0/"
         exif:GPSLatitude="\(latitude)" exif:GPSLongitude="\(longitude)" exif:GPSAltitude="4125/10" exif:GPSAltitudeRef="1"/>
        </rdf:RDF></x:xmpmeta>
        """
    }

    func testChangesetCarriesAPositionAndItsChange() throws {
        let a = try library("A")
        let path = try distinctJPEG()
        try sidecar("43,36.27912N", "1,26.65254E").write(toFile: path + ".xmp", atomically: true, encoding: .utf8)
        var options = ImportOptions(paths: [path])
        options.jobs = 1
        XCTAssertEqual(try Importer(library: a, libraryRoot: a.root, options: options).run().imported, 1)
        let b = try library("B")
        _ = try b.applyChangeset(at: try export(a))
        let carried = try XCTUnwrap(try photos(b).first?.position)
        XCTAssertEqual(carried.latitudeE7, 436_046_520)
        XCTAssertEqual(carried.longitudeE7, 14_442_090)
        XCTAssertEqual(carried.altitudeMM, -412_500, "Ref 1 is below sea level")
        // Changed in A (the sidecar corrected, metadata refreshed): B takes the change.
        try sidecar("33,52.12918S", "151,12.55773W").write(toFile: path + ".xmp", atomically: true, encoding: .utf8)
        options.refreshMetadata = true
        _ = try Importer(library: a, libraryRoot: a.root, options: options).run()
        XCTAssertEqual(try photos(a).first?.position?.latitudeE7, -338_688_197)
        _ = try b.applyChangeset(at: try export(a))
        let changed = try XCTUnwrap(try photos(b).first?.position)
        XCTAssertEqual(changed.latitudeE7, -338_688_197)
        XCTAssertEqual(changed.longitudeE7, -1_512_092_955)
        XCTAssertEqual(try CanonicalDump.of(b.root), try CanonicalDump.of(a.root))
        try assertVerifyClean(b)
    }

    /// A changeset's 0,0 without an altitude is no position, by import's rule: it once was stored,
    /// listed by `--with-location` and shown as none.
    func testAZeroZeroPositionWithoutAltitudeFromAChangesetIsNoPosition() throws {
        let a = try library("A")
        var options = ImportOptions(paths: [try distinctJPEG()])
        options.jobs = 1
        XCTAssertEqual(try Importer(library: a, libraryRoot: a.root, options: options).run().imported, 1)
        let name = try XCTUnwrap(try photos(a).first?.uniqueName)
        try a.store.setPhotoPosition(name, latitudeE7: 0, longitudeE7: 0, altitudeMM: nil)
        var located = PhotoFilter()
        located.hasPosition = true
        var inA: [String] = []
        try a.forEachPhoto(matching: located) { inA.append($0.uniqueName) }
        XCTAssertEqual(inA, [name], "the changeset below carries 0,0")
        let b = try library("B")
        _ = try b.applyChangeset(at: try export(a))
        XCTAssertEqual(try photos(b).map(\.uniqueName), [name])
        var inB: [String] = []
        try b.forEachPhoto(matching: located) { inB.append($0.uniqueName) }
        XCTAssertEqual(inB, [])
    }
}
