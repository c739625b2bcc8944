import Foundation
import XCTest
import PhotosTestSupport

/// Issue 31 B13: an XMP packet with a property given twice and an invalid UTF-8 byte — in a
/// JPEG's APP1, a PNG's iTXt or a sidecar — crashed the whole import (SIGSEGV in FoundationXML's
/// re-serialisation of the packet after the XMP Toolkit refused it), without naming the file,
/// at the same point on every re-run. Now the repair works on the bytes and declines a packet
/// that is not valid UTF-8: the photo imports without that packet, with a warning naming the
/// file, and the import goes on (exit 0).
final class XMPRepairCrashTests: BinaryTestCase {
    override var label: String { "photos-xmp-repair" }

    /// Samples/ladybird.jpg.xmp with `xmp:Rating` given a second time (as an element besides the
    /// attribute) and `Insect` followed by the byte 0xE9 (Latin-1 é: invalid as UTF-8).
    func hostilePacket() throws -> [UInt8] {
        let text = try String(contentsOfFile: packageRoot + "/Samples/ladybird.jpg.xmp", encoding: .utf8)
        XCTAssertTrue(text.contains("<rdf:li>Insect</rdf:li>") && text.contains("   </dc:subject>"))
        let doubled = text.replacingOccurrences(
            of: "   </dc:subject>", with: "   </dc:subject>\n   <xmp:Rating>3</xmp:Rating>")
        let parts = doubled.components(separatedBy: "<rdf:li>Insect</rdf:li>")
        return Array(parts[0].utf8) + Array("<rdf:li>Insect".utf8) + [0xE9] + Array("</rdf:li>".utf8)
            + Array(parts[1].utf8)
    }

    /// A JPEG with `packet` as an XMP APP1 segment (Adobe XMP Part 3 §1.1.3) right after SOI.
    static func jpeg(_ jpeg: [UInt8], withXMP packet: [UInt8]) -> [UInt8] {
        let body = Array("http://ns.adobe.com/xap/1.0/".utf8) + [0] + packet
        let length = body.count + 2
        return Array(jpeg[0..<2]) + [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + body
            + Array(jpeg[2...])
    }

    /// A PNG with `packet` as an uncompressed iTXt chunk `XML:com.adobe.xmp` (Part 3 §1.1.5)
    /// after IHDR.
    static func png(_ png: [UInt8], withXMP packet: [UInt8]) -> [UInt8] {
        let data = Array("XML:com.adobe.xmp".utf8) + [0, 0, 0, 0, 0] + packet
        let type = Array("iTXt".utf8)
        var chunk = [UInt8]()
        for shift in [24, 16, 8, 0] { chunk.append(UInt8((data.count >> shift) & 0xFF)) }
        chunk += type + data
        let crc = crc32(type + data)
        for shift in [24, 16, 8, 0] { chunk.append(UInt8((crc >> UInt32(shift)) & 0xFF)) }
        let afterIHDR = 8 + 8 + 13 + 4
        return Array(png[0..<afterIHDR]) + chunk + Array(png[afterIHDR...])
    }

    /// CRC-32 of ISO 3309 / PNG §5.5.
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    func listed(_ library: String) throws -> [String: [String: Any]] {
        let list = try run(["--library", library, "--json", "list"])
        XCTAssertEqual(list.status, 0, list.stderr)
        var photos: [String: [String: Any]] = [:]
        for line in list.stdout.split(separator: "\n") {
            let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            photos[try XCTUnwrap(object["displayName"] as? String)] = object
        }
        return photos
    }

    func testRepeatedPropertyWithInvalidUTF8ImportsThePhotoWithAWarning() throws {
        let samples = packageRoot + "/Samples"
        try requireSamples(["path.jpg", "storm.jpg", "kite.png", "ladybird.jpg.xmp"])
        let packet = try hostilePacket()
        XCTAssertNil(String(validating: packet, as: UTF8.self), "the packet is not valid UTF-8")
        let input = dir + "/in"
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        let path = try [UInt8](Data(contentsOf: URL(fileURLWithPath: samples + "/path.jpg")))
        let storm = try [UInt8](Data(contentsOf: URL(fileURLWithPath: samples + "/storm.jpg")))
        let kite = try [UInt8](Data(contentsOf: URL(fileURLWithPath: samples + "/kite.png")))
        try Data(Self.jpeg(path, withXMP: packet)).write(to: URL(fileURLWithPath: input + "/app1.jpg"))
        try Data(Self.png(kite, withXMP: packet)).write(to: URL(fileURLWithPath: input + "/itxt.png"))
        try Data(storm).write(to: URL(fileURLWithPath: input + "/side.jpg"))
        try Data(packet).write(to: URL(fileURLWithPath: input + "/side.jpg.xmp"))

        let library = dir + "/lib"
        let result = try run(["--library", library, "import", input])
        XCTAssertEqual(result.status, 0, "no crash (139 before), no failure: \(result.stderr)")
        XCTAssertTrue(result.stdout.contains("Imported 3 photos"), result.stdout)
        for (file, packetName) in [
            ("app1.jpg", "\(input)/app1.jpg"), ("itxt.png", "\(input)/itxt.png"), ("side.jpg", "\(input)/side.jpg.xmp")
        ] {
            XCTAssertTrue(
                result.stderr.contains(
                    "photos import: warning: \(packetName): XMP packet is not UTF-8 text (byte 412 starts no UTF-8 character); not read"
                ), "\(file): \(result.stderr)")
        }
        XCTAssertFalse(result.stderr.contains("Signal"), result.stderr)
        let photos = try listed(library)
        XCTAssertEqual(photos.keys.sorted(), ["app1.jpg", "itxt.png", "side.jpg"])
        for (name, photo) in photos {
            // Imported without the packet: none of its tags or ratings.
            XCTAssertEqual(photo["tags"] as? [String], [], name)
            XCTAssertEqual(RatingsJSON.values(photo), [], name)
        }
        // Re-running is a clean run of duplicates (a cron import does not stop for good).
        let again = try run(["--library", library, "import", input])
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertTrue(again.stdout.contains("0 photos, 3 duplicates"), again.stdout)
        // --refresh-metadata reads the packets again: a packet it cannot read fails that file
        // (nothing of the photo changes: read without it, the file would seem to have lost its
        // keywords), embedded or a sidecar, as a malformed sidecar does on a refresh.
        let refresh = try run(["--library", library, "import", "--refresh-metadata", input])
        XCTAssertEqual(refresh.status, 1, refresh.stderr)
        XCTAssertTrue(
            refresh.stderr.contains(
                "\(input)/side.jpg: error: \(input)/side.jpg.xmp: XMP packet is not UTF-8 text (byte 412 starts no UTF-8 character); not read"
            ),
            refresh.stderr)
        XCTAssertTrue(
            refresh.stderr.contains(
                "\(input)/app1.jpg: error: \(input)/app1.jpg: XMP packet is not UTF-8 text (byte 412 starts no UTF-8 character); not read (the packet embedded in the image)"
            ), refresh.stderr)
    }

    /// The same packets without the invalid byte are repaired (first of each property, first
    /// rdf:about) and read, in every carrier.
    func testRepeatedPropertyInValidUTF8IsRepairedInEveryCarrier() throws {
        let samples = packageRoot + "/Samples"
        try requireSamples(["path.jpg", "storm.jpg", "kite.png", "ladybird.jpg.xmp"])
        let packet = try hostilePacket().map { $0 == 0xE9 ? UInt8(ascii: "s") : $0 }
        let input = dir + "/in"
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        let path = try [UInt8](Data(contentsOf: URL(fileURLWithPath: samples + "/path.jpg")))
        let kite = try [UInt8](Data(contentsOf: URL(fileURLWithPath: samples + "/kite.png")))
        try Data(Self.jpeg(path, withXMP: packet)).write(to: URL(fileURLWithPath: input + "/app1.jpg"))
        try Data(Self.png(kite, withXMP: packet)).write(to: URL(fileURLWithPath: input + "/itxt.png"))
        try FileManager.default.copyItem(atPath: samples + "/storm.jpg", toPath: input + "/side.jpg")
        try Data(packet).write(to: URL(fileURLWithPath: input + "/side.jpg.xmp"))
        let library = dir + "/lib"
        let result = try run(["--library", library, "import", input])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertFalse(result.stderr.contains("warning"), result.stderr)
        let photos = try listed(library)
        XCTAssertEqual(photos.count, 3)
        for (name, photo) in photos {
            XCTAssertEqual(photo["tags"] as? [String], ["Insects", "Nature"], name)
            XCTAssertEqual(RatingsJSON.values(photo), [4], "the first xmp:Rating: \(name)")
        }
    }
}
