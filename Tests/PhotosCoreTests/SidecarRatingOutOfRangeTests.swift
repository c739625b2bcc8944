import Foundation
import XCTest

@testable import PhotosCore

/// A rating far out of range in a sidecar (`xmp:Rating="99999999999999999999999"`, JSON
/// `"rating": 1e300`) is no rating, not a crash: import trapped converting it to Int (exit 132).
/// And a JSON sidecar's `"rating": null` (what `photos export --sidecar json` writes for a photo
/// without ratings) states "no rating", as xmp:Rating 0 does, so the embedded one does not win.
final class SidecarRatingOutOfRangeTests: XCTestCase {
    func xmp(rating: String) throws -> XMPSidecar {
        let packet = """
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
            <rdf:Description rdf:about="" xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmp:Rating="\(rating)"/>
            </rdf:RDF></x:xmpmeta>
            """
        return try XMPSidecar.parse(Data(packet.utf8), path: "r.xmp")
    }

    func testXMPRatingsFarOutOfRangeAreNoRating() throws {
        for text in [
            "99999999999999999999999", "-99999999999999999999999", String(repeating: "9", count: 400), "1000000"
        ] {
            let s = try xmp(rating: text)
            XCTAssertNil(s.rating, text)
            XCTAssertTrue(s.hasRating, text)
        }
        XCTAssertEqual(try xmp(rating: "4.5").rating, 5)
        XCTAssertEqual(try xmp(rating: "5.4").rating, 5)
        XCTAssertNil(try xmp(rating: "6").rating)
    }

    func testJSONRatingsFarOutOfRangeAreNoRating() throws {
        for text in ["1e300", "-1e300", "9223372036854775808", "1.7976931348623157e308"] {
            let s = try XMPSidecar.parseJSON(Data("{\"rating\": \(text)}".utf8), path: "r.json")
            XCTAssertNil(s.rating, text)
        }
        XCTAssertEqual(try XMPSidecar.parseJSON(Data("{\"rating\": 3.5}".utf8), path: "r.json").rating, 4)
    }

    func testAJSONNullRatingStatesNoRating() throws {
        let stated = try XMPSidecar.parseJSON(Data("{\"tags\": [], \"rating\": null}".utf8), path: "r.json")
        XCTAssertNil(stated.rating)
        XCTAssertTrue(stated.hasRating)
        let embedded = XMPSidecar(rating: 4)
        XCTAssertNil(XMPSidecar.merged(sidecar: stated, embedded: embedded, iptcKeywords: [])?.rating)
        let silent = try XMPSidecar.parseJSON(Data("{\"tags\": []}".utf8), path: "r.json")
        XCTAssertFalse(silent.hasRating)
        XCTAssertEqual(XMPSidecar.merged(sidecar: silent, embedded: embedded, iptcKeywords: [])?.rating, 4)
    }
}
