import Foundation
import XCTest
@testable import PhotosCore

/// Issue 31 B13: the repair of a packet the XMP Toolkit refuses (a property given twice, two
/// rdf:about values) works on the bytes, and no untrusted packet reaches an XML library that
/// can trap. What it removes and keeps, what it declines, and one-byte mutations of hostile
/// packets that never crash and always end in a result or a typed error.
final class XMPByteRepairTests: XCTestCase {
    static let head = """
        <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
        """
    static let tail = "</rdf:RDF></x:xmpmeta>"

    static func packet(_ body: String) -> [UInt8] { Array((head + body + tail).utf8) }

    func testRepeatedPropertiesAreRemovedAfterTheFirst() throws {
        let text = """
            <rdf:Description rdf:about="" xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmlns:dc="http://purl.org/dc/elements/1.1/" xmp:Rating="4">\
            <dc:subject><rdf:Bag><rdf:li>A</rdf:li></rdf:Bag></dc:subject>\
            <xmp:Rating>2</xmp:Rating>\
            <dc:subject><rdf:Bag><rdf:li>B</rdf:li></rdf:Bag></dc:subject></rdf:Description>\
            <rdf:Description rdf:about="other" xmlns:X="http://ns.adobe.com/xap/1.0/" X:Rating="1"/>
            """
        let repaired = try XCTUnwrap(XMPToolkit.repairedRDF(Self.packet(text)))
        let expected = """
            <rdf:Description rdf:about="" xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmlns:dc="http://purl.org/dc/elements/1.1/" xmp:Rating="4">\
            <dc:subject><rdf:Bag><rdf:li>A</rdf:li></rdf:Bag></dc:subject>\
            </rdf:Description>\
            <rdf:Description rdf:about="" xmlns:X="http://ns.adobe.com/xap/1.0/"/>
            """
        XCTAssertEqual(String(decoding: repaired, as: UTF8.self), Self.head + expected + Self.tail)
        let read = try XMPSidecar.parse(Data(Self.packet(text)), path: "t.xmp")
        XCTAssertEqual(read.subjects, ["A"])
        XCTAssertEqual(read.rating, 4)
    }

    func testPacketsTheRepairCannotReadAreNotRepaired() {
        let repeated = """
            <rdf:Description rdf:about="" xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmp:Rating="4"><xmp:Rating>2</xmp:Rating></rdf:Description>
            """
        XCTAssertNotNil(XMPToolkit.repairedRDF(Self.packet(repeated)))
        var invalid = Self.packet(repeated)
        invalid[invalid.count - 40] = 0xE9
        XCTAssertNil(XMPToolkit.repairedRDF(invalid), "invalid UTF-8")
        XCTAssertNil(XMPToolkit.repairedRDF(Array(Self.packet(repeated).dropLast(3))), "unterminated")
        XCTAssertNil(
            XMPToolkit.repairedRDF(Array(("<!DOCTYPE x [<!ENTITY a \"b\">]>" + Self.head + repeated + Self.tail).utf8)),
            "DOCTYPE")
        XCTAssertNil(
            XMPToolkit.repairedRDF(
                Self.packet(repeated.replacingOccurrences(of: "</xmp:Rating>", with: "</xmp:Ratin>"))),
            "mismatched end tag")
        XCTAssertNil(
            XMPToolkit.repairedRDF(Self.packet(repeated.replacingOccurrences(of: "xmp:R", with: "q:R"))),
            "undeclared prefix")
        let deep = String(repeating: "<a>", count: 100) + String(repeating: "</a>", count: 100)
        XCTAssertNil(XMPToolkit.repairedRDF(Self.packet(repeated + deep)), "deeper than repairMaxDepth")
        XCTAssertNil(
            XMPToolkit.repairedRDF(
                Self.packet(repeated.replacingOccurrences(of: "<xmp:Rating>2</xmp:Rating>", with: ""))),
            "nothing to repair")
    }

    /// Every one-byte change (to 0xE9, 0xFF, 0x00, '<', '>', '"', '/') of a packet with repeated
    /// properties, through the whole parse: a result or a SidecarError, never a trap.
    func testOneByteMutationsOfARepeatedPropertyPacketNeverTrap() throws {
        let base = Self.packet(
            """
            <rdf:Description rdf:about="" xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmlns:dc="http://purl.org/dc/elements/1.1/" xmp:Rating="4">\
            <dc:subject><rdf:Bag><rdf:li>Nature</rdf:li><rdf:li>Insect</rdf:li></rdf:Bag></dc:subject>\
            <xmp:Rating>3</xmp:Rating><!-- c --><![CDATA[x]]></rdf:Description>
            """)
        var outcomes = [0, 0]
        for position in 0..<base.count {
            for value: UInt8 in [0xE9, 0xFF, 0x00, 0x3C, 0x3E, 0x22, 0x2F] where base[position] != value {
                var mutated = base
                mutated[position] = value
                do {
                    _ = try XMPSidecar.parse(Data(mutated), path: "m.xmp")
                    outcomes[0] += 1
                } catch is SidecarError {
                    outcomes[1] += 1
                }
            }
        }
        XCTAssertGreaterThan(outcomes[0], 0)
        XCTAssertGreaterThan(outcomes[1], 0)
    }
}
