import Foundation
import PhotosTestSupport
import XCTest

/// Issue 26 item 6 through the binary, on both backends: titles and descriptions read at import
/// from each source (XMP `dc:title`/`dc:description` embedded and in a sidecar, a JSON sidecar,
/// IPTC Object Name/Caption-Abstract, EXIF ImageDescription), camera boilerplate ignored; set by
/// `describe`, shown by `show` and `list --json`, found by `list --search`, carried by `sync`,
/// refused (77) to a read-only participant. Files are corpus photos with metadata written by
/// Debian's exiftool.
final class DescribeCLITests: BinaryTestCase {
    override var label: String { "photos-describe" }
    var lib: String { dir + "/lib" }

    @discardableResult
    private func ok(_ args: [String], library: String? = nil, file: StaticString = #filePath, line: UInt = #line)
        throws -> String
    {
        let r = try run(["--library", library ?? lib] + args)
        XCTAssertEqual(r.status, 0, "\(args): \(r.stderr)", file: file, line: line)
        return r.stdout
    }

    /// Runs Debian's exiftool with `args`, asserting it succeeded.
    private func exiftool(_ args: [String]) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/exiftool")
        p.arguments = ["-q", "-m"] + args
        try p.run()
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 0, "exiftool \(args)")
    }

    /// displayName → (title, description) as `list --json` gives them ("nil" for null).
    private func texts(_ library: String? = nil) throws -> [String: [String]] {
        try listedByDisplayName(library ?? lib).mapValues {
            [($0["title"] as? String) ?? "nil", ($0["description"] as? String) ?? "nil"]
        }
    }

    func testEachSourceIsReadAndCameraBoilerplateIgnored() throws {
        let bench = try requireCorpus() + "/bench"
        let input = dir + "/in"
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        for name in ["xmp", "iptc", "exif", "sidecar", "json", "boiler", "padded", "all"] {
            try FileManager.default.copyItem(atPath: bench + "/mate_Aqua.jpg", toPath: "\(input)/\(name).jpg")
        }
        // The Olympus E-M1 file: ImageDescription "OLYMPUS DIGITAL CAMERA", and dc:description's
        // x-default item holding the text "x-default".
        try FileManager.default.copyItem(atPath: bench + "/plasma_Kite_2560x1600.jpg", toPath: input + "/olympus.jpg")
        try exiftool([
            "-overwrite_original", "-XMP-dc:Title-fr=Cerf-volant", "-XMP-dc:Title=Kite",
            "-XMP-dc:Description=A kite over the beach", input + "/xmp.jpg"
        ])
        try exiftool([
            "-overwrite_original", "-IPTC:CodedCharacterSet=UTF8", "-IPTC:ObjectName=Hafen",
            "-IPTC:Caption-Abstract=Boote im Morgengrauen, Überfahrt", input + "/iptc.jpg"
        ])
        try exiftool(["-overwrite_original", "-EXIF:ImageDescription=Grandma’s garden", input + "/exif.jpg"])
        try exiftool(["-overwrite_original", "-EXIF:ImageDescription=SONY DSC", input + "/boiler.jpg"])
        try exiftool(["-overwrite_original", "-EXIF:ImageDescription=                ", input + "/padded.jpg"])
        // XMP wins over IPTC, which wins over EXIF (MWG 2.0).
        try exiftool([
            "-overwrite_original", "-EXIF:ImageDescription=from exif", "-IPTC:Caption-Abstract=from iptc",
            "-IPTC:ObjectName=iptc title", "-XMP-dc:Description=from xmp", input + "/all.jpg"
        ])
        // Distinct bytes (an identical file is a duplicate, not imported).
        try exiftool(["-overwrite_original", "-EXIF:Artist=sidecar", input + "/sidecar.jpg"])
        try exiftool(["-overwrite_original", "-EXIF:Artist=json", input + "/json.jpg"])
        try exiftool(["-o", input + "/sidecar.xmp", "-XMP-dc:Title=Sidecar title", input + "/sidecar.jpg"])
        XCTAssertTrue(
            FileManager.default.createFile(
                atPath: input + "/json.jpg.json",
                contents: Data(#"{"tags":[],"title":"  JSON title ","description":"two\nlines"}"#.utf8)))
        try ok(["import", "-q", input])
        let got = try texts()
        XCTAssertEqual(got["xmp.jpg"], ["Kite", "A kite over the beach"])
        XCTAssertEqual(got["iptc.jpg"], ["Hafen", "Boote im Morgengrauen, Überfahrt"])
        XCTAssertEqual(got["exif.jpg"], ["nil", "Grandma’s garden"])
        XCTAssertEqual(got["sidecar.jpg"], ["Sidecar title", "nil"])
        XCTAssertEqual(got["json.jpg"], ["JSON title", "two\nlines"])
        XCTAssertEqual(got["boiler.jpg"], ["nil", "nil"])
        XCTAssertEqual(got["padded.jpg"], ["nil", "nil"])
        XCTAssertEqual(got["olympus.jpg"], ["nil", "nil"])
        XCTAssertEqual(got["all.jpg"], ["iptc title", "from xmp"])
        let catalog = try TestCatalog(root: lib)
        XCTAssertEqual(try catalog.scalarInt("SELECT count(*) FROM photo WHERE title IS NOT NULL"), 5)
        XCTAssertEqual(try catalog.scalarInt("SELECT count(*) FROM photo WHERE description = ''"), 0)
    }

    func testDescribeShowListSearchAndSync() throws {
        let bench = try requireCorpus() + "/bench"
        let input = dir + "/in"
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: bench + "/mate_Aqua.jpg", toPath: input + "/aqua.jpg")
        try FileManager.default.copyItem(atPath: bench + "/plasma_Kite_2560x1600.jpg", toPath: input + "/kite.jpg")
        try ok(["import", "-q", input])
        let names = try listedByDisplayName(lib).compactMapValues { $0["uniqueName"] as? String }
        let aqua = try XCTUnwrap(names["aqua.jpg"]), kite = try XCTUnwrap(names["kite.jpg"])
        let peer = dir + "/peer"
        try ok(["init", "-q"], library: peer)
        try ok(["sync", "--from", lib], library: peer)

        let tokens = try TestCatalog(root: lib).scalarInt("SELECT count(*) FROM history_transaction")
        let set = try json(
            try ok(["--json", "describe", aqua, "--title", "  Café de la plage ", "--description", "Sur la\ncôte"]))
        XCTAssertEqual(set["title"] as? String, "Café de la plage")
        XCTAssertEqual(set["changed"] as? Bool, true)
        let catalog = try TestCatalog(root: lib)
        XCTAssertEqual(try catalog.scalarInt("SELECT count(*) FROM history_transaction"), (tokens ?? 0) + 1)
        XCTAssertEqual(
            try catalog.rows("SELECT title, description FROM photo WHERE unique_name = ?", [aqua]).first,
            ["Café de la plage", "Sur la\ncôte"])
        let shown = try ok(["show", aqua])
        XCTAssertTrue(shown.contains("title:       Café de la plage\n"), shown)
        XCTAssertTrue(shown.contains("description: Sur la\\ncôte\n"), shown)
        XCTAssertEqual(try texts()["aqua.jpg"], ["Café de la plage", "Sur la\ncôte"])
        XCTAssertEqual(try texts()["kite.jpg"], ["nil", "nil"])
        // --search: name, title or description, ignoring case and accents (as tag filters).
        func found(_ text: String) throws -> [String] {
            try ok(["list", "--json", "--search", text]).split(separator: "\n").compactMap {
                try json(String($0))["displayName"] as? String
            }.sorted()
        }
        XCTAssertEqual(try found("CAFE"), ["aqua.jpg"])
        XCTAssertEqual(try found("cote"), ["aqua.jpg"])
        XCTAssertEqual(try found("kite"), ["kite.jpg"])
        XCTAssertEqual(try found("plage sur"), [])

        // A changed title reaches the peer; the description it did not change stays.
        try ok(["sync", "--from", lib], library: peer)
        XCTAssertEqual(try texts(peer)["aqua.jpg"], ["Café de la plage", "Sur la\ncôte"])
        try ok(["describe", aqua, kite, "--title", "Beach"])
        try ok(["sync", "--from", lib], library: peer)
        XCTAssertEqual(try texts(peer)["aqua.jpg"], ["Beach", "Sur la\ncôte"])
        XCTAssertEqual(try texts(peer)["kite.jpg"], ["Beach", "nil"])
        // The empty string clears; a peer's later change comes back.
        try ok(["describe", kite, "--title", ""], library: peer)
        try ok(["sync", "--from", peer, "--yes"])
        XCTAssertEqual(try texts()["kite.jpg"], ["nil", "nil"])

        // Bad arguments: 64, nothing changed.
        let before = try LibrarySnapshot.dumpCatalog(lib)
        for (args, words) in [
            ([aqua], "give --title, --description or both"),
            ([aqua, "--title", String(repeating: "é", count: 1001)], "--title is longer than 2000 bytes"),
            (["nope0000", "--title", "x"], "nope0000")
        ] {
            let refused = try run(["--library", lib, "describe"] + args)
            XCTAssertEqual(refused.status, args[0] == "nope0000" ? 66 : 64, refused.stderr)
            XCTAssertTrue(refused.stderr.contains(words), refused.stderr)
        }
        XCTAssertEqual(try LibrarySnapshot.dumpCatalog(lib), before)
    }

    /// Export writes them to XMP sidecars (exiftool reads them back) and JSON sidecars, and
    /// `{title}` names files; a re-import of the export into a new library restores them.
    func testExportSidecarsAndTemplateCarryThem() throws {
        let input = dir + "/in"
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: try requireCorpus() + "/bench/mate_Aqua.jpg", toPath: input + "/a.jpg")
        try ok(["import", "-q", input])
        let aqua = try XCTUnwrap(try listedByDisplayName(lib)["a.jpg"]?["uniqueName"] as? String)
        try ok(["describe", aqua, "--title", "Côte & <mer>/nord", "--description", "Deux\nlignes"])
        let out = dir + "/out"
        try ok(["export", out, "--sidecar", "xmp", "-q", "--template", "{title}.{ext}"])
        let file = out + "/Côte & <mer>_nord.jpg"
        XCTAssertTrue(
            FileManager.default.fileExists(atPath: file),
            "\((try? FileManager.default.contentsOfDirectory(atPath: out)) ?? [])")
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/exiftool")
        p.arguments = ["-j", "-XMP-dc:Title", "-XMP-dc:Description", file + ".xmp"]
        let pipe = Pipe()
        p.standardOutput = pipe
        try p.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        let read = try XCTUnwrap((try JSONSerialization.jsonObject(with: data) as? [[String: Any]])?.first)
        XCTAssertEqual(read["Title"] as? String, "Côte & <mer>/nord")
        XCTAssertEqual(read["Description"] as? String, "Deux\nlignes")
        let again = dir + "/again"
        try ok(["init", "-q"], library: again)
        try ok(["import", "-q", out], library: again)
        XCTAssertEqual(try texts(again)["Côte & <mer>_nord.jpg"], ["Côte & <mer>/nord", "Deux\nlignes"])
        let json = dir + "/json"
        try ok(["export", json, "--sidecar", "json", "-q"])
        let sidecar = try self.json(
            String(decoding: try Data(contentsOf: URL(fileURLWithPath: json + "/a.jpg.json")), as: UTF8.self))
        XCTAssertEqual(sidecar["title"] as? String, "Côte & <mer>/nord")
        XCTAssertEqual(sidecar["description"] as? String, "Deux\nlignes")
    }

    /// A read-only participant may not describe the share's photos (77, as every write).
    func testAReadOnlyParticipantIsRefused() throws {
        let input = dir + "/in"
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: try requireCorpus() + "/bench/mate_Aqua.jpg", toPath: input + "/a.jpg")
        try ok(["import", "-q", input])
        let aqua = try XCTUnwrap(try listedByDisplayName(lib)["a.jpg"]?["uniqueName"] as? String)
        let share = try XCTUnwrap(
            try json(try ok(["--json", "share", "create", aqua, "--title", "Sea"]))["id"] as? String)
        try ok(["share", "invite", share, "bob@example.org", "--permission", "read-only"])
        try ok(["share", "export", share, "--for", "bob@example.org", "-o", dir + "/to-bob"])
        let bob = dir + "/bob"
        try ok(["share", "accept", dir + "/to-bob"], library: bob)
        let before = try LibrarySnapshot.dumpCatalog(bob)
        let refused = try run(["--library", bob, "describe", aqua, "--title", "Mine"])
        XCTAssertEqual(refused.status, 77, refused.stderr)
        XCTAssertEqual(try LibrarySnapshot.dumpCatalog(bob), before)
    }
}
