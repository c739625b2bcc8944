import Foundation
import XCTest

@testable import PhotosCore

/// A sidecar's `photoshop:DateCreated` and `exif:DateTimeOriginal` carry one value (MWG 2.0
/// §5.4); when DateCreated is less precise — the date only (as Photoshop and Lightroom copy
/// IPTC's Date Created), or no offset — the more precise `exif:DateTimeOriginal` of the same
/// moment is the capture time. Before, the date-only DateCreated won: midnight, offset lost.
final class SidecarDatePrecisionTests: XCTestCase {
    func captureTime(dateCreated: String?, dateTimeOriginal: String?) throws -> String? {
        var attributes = ""
        if let dateCreated { attributes += " photoshop:DateCreated=\"\(dateCreated)\"" }
        if let dateTimeOriginal { attributes += " exif:DateTimeOriginal=\"\(dateTimeOriginal)\"" }
        let packet = """
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
            <rdf:Description rdf:about="" xmlns:photoshop="http://ns.adobe.com/photoshop/1.0/"
             xmlns:exif="http://ns.adobe.com/exif/1.0/"\(attributes)/></rdf:RDF></x:xmpmeta>
            """
        return try XMPSidecar.parse(Data(packet.utf8), path: "d.xmp").captureTime?.iso
    }

    func testADateOnlyDateCreatedTakesTheTimeOfTheSameDay() throws {
        XCTAssertEqual(
            try captureTime(dateCreated: "2021-03-01", dateTimeOriginal: "2021-03-01T14:30:00+02:00"),
            "2021-03-01T14:30:00+02:00")
        XCTAssertEqual(
            try captureTime(dateCreated: "2021-03-01", dateTimeOriginal: "2021:03:01 14:30:05"),
            "2021-03-01T14:30:05")
    }

    func testADateCreatedWithoutOffsetTakesTheOffsetOfTheSameTime() throws {
        XCTAssertEqual(
            try captureTime(dateCreated: "2021-03-01T14:30:00", dateTimeOriginal: "2021-03-01T14:30:00-05:30"),
            "2021-03-01T14:30:00-05:30")
    }

    /// Two different moments, or DateCreated as precise: DateCreated, as before.
    func testOtherwiseDateCreatedWins() throws {
        XCTAssertEqual(
            try captureTime(dateCreated: "2021-03-01", dateTimeOriginal: "2021-03-02T14:30:00"), "2021-03-01T00:00:00")
        XCTAssertEqual(
            try captureTime(dateCreated: "2021-03-01T10:00:00", dateTimeOriginal: "2021-03-01T14:30:00+02:00"),
            "2021-03-01T10:00:00")
        XCTAssertEqual(
            try captureTime(dateCreated: "2021-03-01T10:00:00+01:00", dateTimeOriginal: "2021-03-01T10:00:00+02:00"),
            "2021-03-01T10:00:00+01:00")
    }

    /// A partial or invalid DateCreated (`2021`, `2021-03`, 30 February) gives way to the other.
    func testAnUnreadableDateCreatedGivesWay() throws {
        for bad in ["2021", "2021-03", "2021-02-30T10:00:00", "yesterday"] {
            XCTAssertEqual(
                try captureTime(dateCreated: bad, dateTimeOriginal: "2021-03-01T14:30:00"), "2021-03-01T14:30:00", bad)
            XCTAssertNil(try captureTime(dateCreated: bad, dateTimeOriginal: nil), bad)
        }
        XCTAssertEqual(try captureTime(dateCreated: "2021-03-01", dateTimeOriginal: nil), "2021-03-01T00:00:00")
    }
}
