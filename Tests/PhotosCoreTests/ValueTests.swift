import Foundation
import XCTest
import PhotosFiles
@testable import PhotosCore

final class ValueTests: XCTestCase {
    func testRatingIsTheMeanRoundedHalfUp() {
        func rating(_ values: [Int]) -> Int? {
            PhotoRecord(
                rowID: 1, uniqueName: "", displayName: "", sha256: "", byteSize: 0, fileReference: "", format: .jpeg,
                width: 1, height: 1, orientation: .up, captureDate: nil, importedAt: "", thumbnailWidth: 1,
                thumbnailHeight: 1, tags: [], ratings: values, zone: "default", scope: .private
            ).rating
        }
        XCTAssertNil(rating([]))
        XCTAssertEqual(rating([4]), 4)
        XCTAssertEqual(rating([3, 4]), 4, "3.5 rounds up")
        XCTAssertEqual(rating([1, 2]), 2, "1.5 rounds up")
        XCTAssertEqual(rating([1, 1, 2]), 1, "1.33 rounds down")
        XCTAssertEqual(rating([5, 5, 4]), 5, "4.67 rounds up")
    }

    func testCommandLineDatesParse() throws {
        let day = try XCTUnwrap(ISODate.parse("2024-05-01"))
        XCTAssertTrue(day.dayOnly)
        XCTAssertEqual(ISODate.string(from: day.date), "2024-05-01T00:00:00Z")
        XCTAssertEqual(
            ISODate.parse("2024-05-01T12:30:00Z").map { ISODate.string(from: $0.date) }, "2024-05-01T12:30:00Z")
        XCTAssertEqual(
            ISODate.parse("2024-05-01T12:30+02:00").map { ISODate.string(from: $0.date) }, "2024-05-01T10:30:00Z")
        XCTAssertNil(ISODate.parse("2024-13-01"))
        XCTAssertNil(ISODate.parse("someday")) // "yesterday" is a relative date (issue 32 item 7)
        XCTAssertNil(ISODate.parse("2024-05-01T12:30:00Zjunk"))
    }

    func testJSONEscapesAndKeepsKeyOrder() {
        let value = JSONValue.object([
            ("b", .int(1)), ("a", .string("quote\" slash\\ nl\n tab\t bell\u{7}")), ("n", .null), ("d", .double(1.5))
        ])
        XCTAssertEqual(value.serialized(), #"{"b":1,"a":"quote\" slash\\ nl\n tab\t bell\u0007","n":null,"d":1.500}"#)
    }

    func testTagNamesAreTrimmedNFCAndRefusedWhenEmptyOrControl() throws {
        XCTAssertEqual(try TagName.normalize("  Cafe\u{301} "), "Caf\u{E9}")
        XCTAssertThrowsError(try TagName.normalize(" \t ")) { XCTAssertEqual($0 as? ValueError, .tagNameEmpty) }
        XCTAssertThrowsError(try TagName.normalize("a\u{0}b"))
    }

    func testXMPSidecarReadsSubjectsAndRatingInBothForms() throws {
        let attribute = """
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
            <rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmp:Rating="3">
            <dc:subject><rdf:Bag><rdf:li>Beach</rdf:li><rdf:li> Sun </rdf:li><rdf:li></rdf:li></rdf:Bag></dc:subject>
            </rdf:Description></rdf:RDF></x:xmpmeta>
            """
        XCTAssertEqual(
            try XMPSidecar.parse(Data(attribute.utf8), path: "a.xmp"), XMPSidecar(subjects: ["Beach", "Sun"], rating: 3)
        )
        let element = """
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
            <rdf:Description rdf:about="" xmlns:xmp="http://ns.adobe.com/xap/1.0/"><xmp:Rating>5</xmp:Rating></rdf:Description>
            <rdf:Description rdf:about="" xmlns:d="http://purl.org/dc/elements/1.1/"><d:subject><rdf:Bag><rdf:li>x</rdf:li></rdf:Bag></d:subject></rdf:Description>
            </rdf:RDF></x:xmpmeta>
            """
        XCTAssertEqual(try XMPSidecar.parse(Data(element.utf8), path: "b.xmp"), XMPSidecar(subjects: ["x"], rating: 5))
        let rejected =
            #"<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmp:Rating="-1"/></rdf:RDF></x:xmpmeta>"#
        XCTAssertNil(try XMPSidecar.parse(Data(rejected.utf8), path: "c.xmp").rating, "-1 (rejected) is no rating")
        XCTAssertThrowsError(try XMPSidecar.parse(Data("<x:xmpmeta".utf8), path: "broken.xmp")) { error in
            guard case .malformedPacket(path: "broken.xmp", _)? = error as? SidecarError else {
                return XCTFail("\(error)")
            }
            XCTAssertTrue("\(error)".hasPrefix("broken.xmp: "))
        }
    }

    func testLibraryPathResolutionOrder() {
        XCTAssertEqual(
            Library.resolvePath(
                explicit: "/x/lib",
                in: LibraryEnvironment(
                    variables: ["PHOTOS_LIBRARY": "/y", "HOME": "/h"], currentDirectory: "/cwd", fallbackHome: "/pw")),
            "/x/lib")
        XCTAssertEqual(
            Library.resolvePath(
                explicit: nil,
                in: LibraryEnvironment(
                    variables: ["PHOTOS_LIBRARY": "/y/", "HOME": "/h"], currentDirectory: "/cwd", fallbackHome: "/pw")),
            "/y")
        XCTAssertEqual(
            Library.resolvePath(
                explicit: nil,
                in: LibraryEnvironment(
                    variables: ["XDG_DATA_HOME": "/d", "HOME": "/h"], currentDirectory: "/cwd", fallbackHome: "/pw")),
            "/d/photos/Library")
        XCTAssertEqual(
            Library.resolvePath(
                explicit: nil,
                in: LibraryEnvironment(
                    variables: ["XDG_DATA_HOME": "relative", "HOME": "/h"], currentDirectory: "/cwd",
                    fallbackHome: "/pw")), "/h/.local/share/photos/Library",
            "a relative XDG_DATA_HOME is invalid and ignored (XDG Base Directory spec)")
        XCTAssertEqual(
            Library.resolvePath(
                explicit: nil,
                in: LibraryEnvironment(variables: ["HOME": "/h"], currentDirectory: "/cwd", fallbackHome: "/pw")),
            "/h/.local/share/photos/Library")
    }

    func testSHA256OfKnownVectors() throws {
        XCTAssertEqual(
            try Array("abc".utf8).withUnsafeBytes { try SHA256Hasher.hex(of: $0) },
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", "FIPS 180-2 Appendix B.1")
        XCTAssertEqual(
            try [UInt8]().withUnsafeBytes { try SHA256Hasher.hex(of: $0) },
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }
}
