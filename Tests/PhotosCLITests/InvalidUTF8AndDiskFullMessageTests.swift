import Foundation
import PhotosTestSupport
import XCTest

/// Issue 31 item 21: text that is not UTF-8 is never stored changed — a tag name given on the
/// command line is refused (64); an XMP sidecar, an image's embedded XMP or IPTC keywords that
/// are not UTF-8 are left out whole, with a warning naming the file, and the image imports
/// (item 13's rule for packets that cannot be read) — and
/// a full disk during an import names the file being imported and where its original was
/// going, not only the ExternalData path.
final class InvalidUTF8AndDiskFullMessageTests: BinaryTestCase {
    override var label: String { "photos-utf8" }

    /// `Insect` of the ladybird's sidecar as `Insect\xE9` (Latin-1 é: not UTF-8).
    private func sidecarWithLatin1() throws -> [UInt8] {
        let text = try String(contentsOfFile: samplesDir + "/ladybird.jpg.xmp", encoding: .utf8)
        let parts = text.components(separatedBy: "Insect")
        XCTAssertEqual(parts.count, 2)
        return Array(parts[0].utf8) + Array("Insect".utf8) + [0xE9] + Array(parts[1].utf8)
    }

    private func listNames(_ lib: String) throws -> [String] {
        let list = try run(["--library", lib, "list", "--json"])
        return list.stdout.split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["displayName"] as? String
        }
    }

    /// The tag names of the library, one per line.
    private func tagNames(_ lib: String) throws -> String {
        try run(["--library", lib, "tag", "list"]).stdout
    }

    /// A sidecar whose keyword is not UTF-8 is left out, naming the sidecar; the image imports
    /// without its tags.
    func testASidecarKeywordThatIsNotUTF8IsLeftOutNamingIt() throws {
        let input = dir + "/in"
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: samplesDir + "/ladybird.jpg", toPath: input + "/ladybird.jpg")
        XCTAssertTrue(
            FileManager.default.createFile(atPath: input + "/ladybird.jpg.xmp", contents: Data(try sidecarWithLatin1()))
        )
        let result = try run(["--library", dir + "/lib", "import", input])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(
            result.stderr.contains(
                "photos import: warning: \(input)/ladybird.jpg.xmp: XMP packet is not UTF-8 text (byte "),
            result.stderr)
        XCTAssertTrue(result.stderr.contains("imported without it"), result.stderr)
        XCTAssertEqual(try listNames(dir + "/lib"), ["ladybird.jpg"])
        let tags = try run(["--library", dir + "/lib", "tag", "list"])
        XCTAssertFalse(tags.stdout.contains("Insect"), tags.stdout)
    }

    /// The same keyword in the image's own XMP (an APP1 segment after SOI): the packet is left
    /// out with a warning naming the image.
    func testAnEmbeddedXMPKeywordThatIsNotUTF8IsLeftOutNamingTheFile() throws {
        let jpeg = try XCTUnwrap(FileManager.default.contents(atPath: samplesDir + "/storm.jpg"))
        let packet = Array("http://ns.adobe.com/xap/1.0/\0".utf8) + (try sidecarWithLatin1())
        let length = packet.count + 2
        let bytes =
            [UInt8](jpeg.prefix(2)) + [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + packet
            + [UInt8](jpeg.dropFirst(2))
        try FileManager.default.createDirectory(atPath: dir + "/in", withIntermediateDirectories: true)
        let path = dir + "/in/embedded.jpg"
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
        let result = try run(["--library", dir + "/lib", "import", path])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(
            result.stderr.contains("photos import: warning: \(path): XMP packet is not UTF-8 text"),
            result.stderr)
        XCTAssertEqual(try listNames(dir + "/lib"), ["embedded.jpg"])
        XCTAssertFalse(try tagNames(dir + "/lib").contains("Insect"))
    }

    /// An IPTC keyword whose record declares UTF-8 (1:90 = ESC % G) but whose bytes are not
    /// (`Caf\xE9`) is left out with a warning naming the image, instead of being stored as
    /// `Caf\u{FFFD}` silently; the same bytes without the declaration are ISO 8859-1 and import
    /// as `Café`.
    func testAnIPTCKeywordDeclaredUTF8ThatIsNotIsLeftOutNamingTheFile() throws {
        let jpeg = try XCTUnwrap(FileManager.default.contents(atPath: samplesDir + "/storm.jpg"))
        func withIPTC(declaringUTF8: Bool) -> [UInt8] {
            var iim: [UInt8] = declaringUTF8 ? [0x1C, 1, 90, 0, 3, 0x1B, 0x25, 0x47] : []
            iim += [0x1C, 2, 25, 0, 4, 0x43, 0x61, 0x66, 0xE9]
            if iim.count % 2 == 1 { iim.append(0) }
            let n = UInt32(iim.count)
            let resource: [UInt8] =
                Array("8BIM".utf8) + [0x04, 0x04, 0, 0]
                + [UInt8(n >> 24), UInt8((n >> 16) & 0xFF), UInt8((n >> 8) & 0xFF), UInt8(n & 0xFF)] + iim
            let payload = Array("Photoshop 3.0\0".utf8) + resource
            return [0xFF, 0xD8, 0xFF, 0xED, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)]
                + payload + [UInt8](jpeg.dropFirst(2))
        }
        try FileManager.default.createDirectory(atPath: dir + "/in", withIntermediateDirectories: true)
        let bad = dir + "/in/declared.jpg", latin1 = dir + "/in/latin1.jpg"
        XCTAssertTrue(FileManager.default.createFile(atPath: bad, contents: Data(withIPTC(declaringUTF8: true))))
        XCTAssertTrue(FileManager.default.createFile(atPath: latin1, contents: Data(withIPTC(declaringUTF8: false))))
        let result = try run(["--library", dir + "/lib", "import", bad])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stderr.contains(bad + ": IPTC keyword \"Caf\u{FFFD}\" is not UTF-8 text"), result.stderr)
        XCTAssertEqual(try listNames(dir + "/lib"), ["declared.jpg"])
        XCTAssertFalse(try tagNames(dir + "/lib").contains("Caf\u{FFFD}"))
        XCTAssertEqual(try run(["--library", dir + "/lib", "import", latin1]).status, 0)
        let tags = try run(["--library", dir + "/lib", "tag", "list"])
        XCTAssertTrue(tags.stdout.contains("Café"), tags.stdout)
    }

    /// A tag name argument that is not UTF-8 (`Caf\xE9` in the argv bytes) is refused, naming
    /// it, with 64 as every bad argument value (`ErrorReporting`); no tag is made.
    func testATagNameArgumentThatIsNotUTF8IsRefused() throws {
        let lib = dir + "/lib"
        XCTAssertEqual(try run(["--library", lib, "import", samplesDir + "/storm.jpg"]).status, 0)
        let name = try XCTUnwrap(
            try run(["--library", lib, "list", "--json"]).stdout.split(separator: "\n").first.flatMap { line in
                line.range(of: "\"uniqueName\":\"").map { String(line[$0.upperBound...].prefix(36)) }
            })
        let result = try runProcess(
            "/bin/sh",
            ["-c", "exec \"$0\" --library \"$1\" tag add \"$(printf 'Caf\\351')\" \"$2\"", try binary(), lib, name])
        XCTAssertEqual(result.status, 64, result.stderr)
        XCTAssertTrue(result.stderr.contains("is not UTF-8 text"), result.stderr)
        let tags = try run(["--library", lib, "tag", "list"])
        XCTAssertFalse(tags.stdout.contains("Caf"), tags.stdout)
        // And as --tag of import.
        let imported = try runProcess(
            "/bin/sh",
            [
                "-c", "exec \"$0\" --library \"$1\" import --tag \"$(printf 'Caf\\351')\" \"$2\"", try binary(), lib,
                samplesDir + "/ladybird.jpg"
            ])
        XCTAssertEqual(imported.status, 64, imported.stderr)
        XCTAssertTrue(imported.stderr.contains("is not UTF-8 text"), imported.stderr)
        XCTAssertEqual(try listNames(lib).count, 1)
    }

    /// A write that fails for lack of room (here: RLIMIT_FSIZE, which fails write(2) with
    /// EFBIG as a full disk fails it with ENOSPC) names the source file and the destination.
    func testAFailedWriteOfAnOriginalNamesTheSourceAndTheDestination() throws {
        let lib = dir + "/lib"
        XCTAssertEqual(try run(["--library", lib, "import", samplesDir + "/storm.jpg"]).status, 0)
        let source = samplesDir + "/kite.png"
        // 600 blocks: 300 KB in dash (512-byte blocks), 600 KB in bash; kite.png is 688 KB.
        let result = try runProcess(
            "/bin/sh",
            ["-c", "trap '' XFSZ; ulimit -f 600; exec \"$0\" --library \"$1\" import \"$2\"", try binary(), lib, source]
        )
        XCTAssertNotEqual(result.status, 0, result.stderr)
        XCTAssertTrue(
            result.stderr.contains("cannot import \(source): cannot write \(lib)/ExternalData/"), result.stderr)
        XCTAssertEqual(try listNames(lib).count, 1)
    }
}

/// Issue 31 item 21: `history --since`, `--until` and `history compact --before` take every
/// date `list --since` takes (one parser), `2024-12-31Z` among them.
final class HistoryDateFormsCLITests: BinaryTestCase {
    override var label: String { "photos-history-dates" }

    func testHistoryTakesTheDatesListTakes() throws {
        let lib = dir + "/lib"
        XCTAssertEqual(try run(["--library", lib, "import", samplesDir + "/storm.jpg"]).status, 0)
        for form in ["2000-01-01Z", "2000-01-01+05:00", "2000-01-01T12:00Z", "2000-01-01T12:00:00.500Z"] {
            let list = try run(["--library", lib, "list", "--since", form])
            XCTAssertEqual(list.status, 0, "list --since \(form): \(list.stderr)")
            let history = try run(["--library", lib, "history", "--since", form])
            XCTAssertEqual(history.status, 0, "history --since \(form): \(history.stderr)")
            XCTAssertTrue(history.stdout.contains("import"), history.stdout)
            let until = try run(["--library", lib, "history", "--until", form])
            XCTAssertEqual(until.status, 0, "history --until \(form): \(until.stderr)")
            XCTAssertFalse(until.stdout.contains("import"), until.stdout)
        }
        let bad = try run(["--library", lib, "history", "--since", "2000-01-01Zjunk"])
        XCTAssertEqual(bad.status, 64, bad.stderr)
    }
}
