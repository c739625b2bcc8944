import Foundation
import XCTest
import PhotosFiles
import PhotosTestSupport

/// Issue 31 item 5: a file whose metadata another tool rewrote (`exiftool -XMP-dc:Subject=…`,
/// digiKam's or Lightroom's "write metadata to file") is the photo it was, recognised by the
/// hash of its image data: no second photo; the photo keeps its uniqueName, tags and ratings,
/// takes the file's metadata changes, and the new bytes become its original (the old file
/// goes), on both backends. The edited files are made here (an APP1 XMP segment, a PNG iTXt
/// chunk), not with exiftool.
final class RewrittenMetadataSamePhotoTests: BinaryTestCase {
    override var label: String { "photos-rewritten-meta" }

    static func xmp(_ subjects: [String]) -> [UInt8] {
        let bag = subjects.map { "<rdf:li>\($0)</rdf:li>" }.joined()
        return Array(
            """
            <?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?><x:xmpmeta xmlns:x="adobe:ns:meta/">\
            <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about="" \
            xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:subject><rdf:Bag>\(bag)</rdf:Bag></dc:subject>\
            </rdf:Description></rdf:RDF></x:xmpmeta><?xpacket end="w"?>
            """.utf8)
    }

    /// `jpeg` with an APP1 XMP segment of `subjects` right after SOI.
    static func jpeg(_ jpeg: [UInt8], subjects: [String]) -> [UInt8] {
        let payload = Array("http://ns.adobe.com/xap/1.0/\0".utf8) + xmp(subjects)
        let app1: [UInt8] = [0xFF, 0xE1, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)] + payload
        return Array(jpeg.prefix(2)) + app1 + Array(jpeg.dropFirst(2))
    }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for b in bytes {
            crc ^= UInt32(b)
            for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    /// `png` with an iTXt chunk `XML:com.adobe.xmp` of `subjects` after IHDR.
    static func png(_ png: [UInt8], subjects: [String]) -> [UInt8] {
        let data = Array("XML:com.adobe.xmp".utf8) + [0, 0, 0, 0, 0] + xmp(subjects)
        let typeAndData = Array("iTXt".utf8) + data
        let n = UInt32(data.count), crc = crc32(typeAndData)
        let chunk =
            [UInt8(n >> 24), UInt8((n >> 16) & 0xFF), UInt8((n >> 8) & 0xFF), UInt8(n & 0xFF)] + typeAndData
            + [UInt8(crc >> 24), UInt8((crc >> 16) & 0xFF), UInt8((crc >> 8) & 0xFF), UInt8(crc & 0xFF)]
        return Array(png.prefix(33)) + chunk + Array(png.dropFirst(33))
    }

    func listed(_ lib: String) throws -> [[String: Any]] {
        try run(["--library", lib, "list", "--json"]).stdout.split(separator: "\n").map {
            try XCTUnwrap(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }

    func sha256(_ bytes: [UInt8]) throws -> String { try bytes.withUnsafeBytes { try SHA256Hasher.hex(of: $0) } }

    func originals(_ lib: String) -> [String] {
        (FileManager.default.subpaths(atPath: lib + "/ExternalData") ?? []).filter { $0.count > 60 }
            .map { ($0 as NSString).lastPathComponent }.sorted()
    }

    func check(sample: String, edit: ([UInt8], [String]) -> [UInt8], refresh: Bool) throws {
        let input = dir + "/in", lib = dir + "/lib"
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        let plain = [UInt8](try XCTUnwrap(FileManager.default.contents(atPath: samplesDir + "/" + sample)))
        let before = edit(plain, ["Trip"])
        let file = input + "/" + sample
        XCTAssertTrue(FileManager.default.createFile(atPath: file, contents: Data(before)))
        XCTAssertEqual(try run(["--library", lib, "import", input, "-q"]).status, 0)
        let first = try XCTUnwrap(try listed(lib).first)
        let name = try XCTUnwrap(first["uniqueName"] as? String)
        XCTAssertEqual(first["tags"] as? [String], ["Trip"])
        XCTAssertEqual(try run(["--library", lib, "tag", "add", "Keep", name, "-q"]).status, 0)
        XCTAssertEqual(try run(["--library", lib, "--author", "ann", "rate", name, "2", "-q"]).status, 0)

        // Another tool rewrites the file's XMP: Trip → Holiday.
        let after = edit(plain, ["Holiday"])
        XCTAssertNotEqual(try sha256(after), try sha256(before))
        XCTAssertTrue(FileManager.default.createFile(atPath: file, contents: Data(after)))
        // A dry run says what would change and changes nothing.
        let dry = try run(["--library", lib, "import", "--dry-run", input] + (refresh ? ["--refresh-metadata"] : []))
        XCTAssertEqual(dry.status, 0, dry.stderr)
        XCTAssertTrue(dry.stdout.contains("would change +tag Holiday, \u{2212}tag Trip, original replaced"), dry.stdout)
        XCTAssertEqual(originals(lib), [try sha256(before)])
        XCTAssertEqual(try listed(lib).first?["sha256"] as? String, try sha256(before))
        let result = try run(["--library", lib, "import", input, "--json"] + (refresh ? ["--refresh-metadata"] : []))
        XCTAssertEqual(result.status, 0, result.stderr)
        let summary = try json(result.stdout)
        XCTAssertEqual(summary["imported"] as? Int, 0, result.stdout)
        XCTAssertEqual(summary["replaced"] as? Int, 1, result.stdout)
        let change = try XCTUnwrap((summary["metadataChanges"] as? [[String: Any]])?.first)
        XCTAssertEqual(Set(try XCTUnwrap(change["tagsAdded"] as? [String])), ["Holiday"])
        XCTAssertEqual(change["sha256"] as? String, try sha256(after))

        let photos = try listed(lib)
        XCTAssertEqual(photos.count, 1, "no second photo")
        let photo = try XCTUnwrap(photos.first)
        XCTAssertEqual(photo["uniqueName"] as? String, name)
        XCTAssertEqual(Set(try XCTUnwrap(photo["tags"] as? [String])), ["Holiday", "Keep"])
        XCTAssertEqual(RatingsJSON.values(photo), [2])
        XCTAssertEqual(photo["sha256"] as? String, try sha256(after))
        XCTAssertEqual(photo["byteSize"] as? Int, after.count)
        XCTAssertEqual(originals(lib), [try sha256(after)], "the old original is gone, the new one is there")
        let stored = try XCTUnwrap(
            FileManager.default.contents(
                atPath: lib + "/ExternalData/" + String(try sha256(after).prefix(2)) + "/" + (try sha256(after))))
        XCTAssertEqual([UInt8](stored), after)
        let verify = try run(["--library", lib, "verify"])
        XCTAssertEqual(verify.status, 0, verify.stdout + verify.stderr)

        // History records the new original (a PhotoData update), so sync carries it.
        let history = try run(["--library", lib, "history", "--json"]).stdout.split(separator: "\n")
        let last = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(try XCTUnwrap(history.last).utf8)) as? [String: Any])
        let changes = try XCTUnwrap(last["changes"] as? [[String: Any]])
        XCTAssertTrue(
            changes.contains { $0["entity"] as? String == "PhotoData" && $0["type"] as? String == "update" },
            "\(changes)")

        // Again: nothing more happens (the file is the original now).
        let again = try json(try run(["--library", lib, "import", input, "--json"]).stdout)
        XCTAssertEqual(again["duplicates"] as? Int, 1)
        XCTAssertEqual(again["replaced"] as? Int ?? 0, 0)
    }

    func testJPEGWithRewrittenXMPIsTheSamePhoto() throws {
        try check(sample: "storm.jpg", edit: Self.jpeg, refresh: false)
    }

    func testJPEGWithRewrittenXMPIsTheSamePhotoOnRefresh() throws {
        try check(sample: "storm.jpg", edit: Self.jpeg, refresh: true)
    }

    func testPNGWithRewrittenITXtIsTheSamePhoto() throws {
        try check(sample: "kite.png", edit: Self.png, refresh: true)
    }

    /// exiftool leaves the old bytes beside the edited file (`storm.jpg_original`, a JPEG by its
    /// bytes): the edited file becomes the original, the older version is never taken back
    /// (not in the run that replaces, not in later runs), and its old metadata does not undo
    /// the edit.
    func testTheOlderVersionLeftBesideIsNotTakenBack() throws {
        let input = dir + "/in", lib = dir + "/lib"
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        let storm = [UInt8](try XCTUnwrap(FileManager.default.contents(atPath: samplesDir + "/storm.jpg")))
        let before = Self.jpeg(storm, subjects: ["Trip"]), after = Self.jpeg(storm, subjects: ["Holiday"])
        XCTAssertTrue(FileManager.default.createFile(atPath: input + "/storm.jpg", contents: Data(before)))
        XCTAssertEqual(try run(["--library", lib, "import", input, "-q"]).status, 0)
        XCTAssertTrue(FileManager.default.createFile(atPath: input + "/storm.jpg", contents: Data(after)))
        XCTAssertTrue(FileManager.default.createFile(atPath: input + "/storm.jpg_original", contents: Data(before)))
        for (round, options) in [["--refresh-metadata"], [], ["--refresh-metadata"]].enumerated() {
            let result = try run(["--library", lib, "import", input, "--json"] + options)
            XCTAssertEqual(result.status, 0, result.stderr)
            let summary = try json(result.stdout)
            XCTAssertEqual(summary["imported"] as? Int, 0, "round \(round): \(result.stdout)")
            XCTAssertEqual(summary["replaced"] as? Int ?? 0, round == 0 ? 1 : 0, "round \(round): \(result.stdout)")
            let photos = try listed(lib)
            XCTAssertEqual(photos.count, 1)
            XCTAssertEqual(photos.first?["sha256"] as? String, try sha256(after), "round \(round)")
            XCTAssertEqual(photos.first?["tags"] as? [String], ["Holiday"], "round \(round)")
        }
        XCTAssertEqual(originals(lib), [try sha256(after)])
    }

    /// Files of one run with the same image data and other metadata are each a photo: the
    /// rule looks only at photos made before the run, so the result does not depend on which
    /// batch committed first. With one file per batch, most of the 24 files were the first
    /// photo's new original when the rule looked at committed photos of the same run.
    func testFilesOfOneRunWithTheSameImageAreEachAPhoto() throws {
        let input = dir + "/in", lib = dir + "/lib"
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        let storm = [UInt8](try XCTUnwrap(FileManager.default.contents(atPath: samplesDir + "/storm.jpg")))
        var expected: [String: [String]] = [:]
        for n in 0..<24 {
            let bytes = Self.jpeg(storm, subjects: ["Copy \(n)"])
            XCTAssertTrue(FileManager.default.createFile(atPath: input + "/copy\(n).jpg", contents: Data(bytes)))
            expected[try sha256(bytes)] = ["Copy \(n)"]
        }
        let first = try run(["--library", lib, "import", input, "--json", "--batch-size", "1", "--jobs", "2"])
        XCTAssertEqual(first.status, 0, first.stderr)
        let summary = try json(first.stdout)
        XCTAssertEqual(summary["imported"] as? Int, 24, first.stdout)
        XCTAssertEqual(summary["replaced"] as? Int ?? 0, 0, first.stdout)
        let photos = try listed(lib)
        XCTAssertEqual(photos.count, 24)
        var found: [String: [String]] = [:]
        for photo in photos { found[photo["sha256"] as? String ?? "?"] = photo["tags"] as? [String] }
        XCTAssertEqual(found, expected)
        XCTAssertEqual(Set(originals(lib)), Set(expected.keys))
        // Again: every file is its own photo's original now.
        let again = try json(try run(["--library", lib, "import", input, "--json"]).stdout)
        XCTAssertEqual(again["imported"] as? Int, 0)
        XCTAssertEqual(again["replaced"] as? Int ?? 0, 0)
        XCTAssertEqual(try listed(lib).count, 24)
    }

    /// A photo imported before image-data hashes were recorded (its row deleted here to stand
    /// for one) is found once `thumbnails --rebuild` recorded its hash.
    func testThumbnailsRebuildRecordsTheHashOfOlderPhotos() throws {
        let input = dir + "/in", lib = dir + "/lib"
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        let storm = [UInt8](try XCTUnwrap(FileManager.default.contents(atPath: samplesDir + "/storm.jpg")))
        let file = input + "/storm.jpg"
        XCTAssertTrue(
            FileManager.default.createFile(atPath: file, contents: Data(Self.jpeg(storm, subjects: ["Trip"]))))
        XCTAssertEqual(try run(["--library", lib, "import", input, "-q"]).status, 0)
        try TestCatalog(root: lib).run("DELETE FROM photo_file_state")
        let rebuilt = try run(["--library", lib, "thumbnails", "--rebuild", "-q"])
        XCTAssertEqual(rebuilt.status, 0, rebuilt.stderr)
        XCTAssertEqual(
            try TestCatalog(root: lib).scalarInt(
                "SELECT count(*) FROM photo_file_state WHERE image_sha256 IS NOT NULL"), 1)
        XCTAssertTrue(
            FileManager.default.createFile(atPath: file, contents: Data(Self.jpeg(storm, subjects: ["Holiday"]))))
        let summary = try json(try run(["--library", lib, "import", input, "--json"]).stdout)
        XCTAssertEqual(summary["replaced"] as? Int, 1)
        XCTAssertEqual(summary["imported"] as? Int, 0)
        let photos = try listed(lib)
        XCTAssertEqual(photos.count, 1)
        // No recorded file state: the refresh only adds (Trip stays, Holiday comes).
        XCTAssertEqual(Set(try XCTUnwrap(photos.first?["tags"] as? [String])), ["Trip", "Holiday"])
    }

    /// WebP: an XMP chunk added (RIFF size updated) is the same photo.
    func testWebPWithAnAddedXMPChunkIsTheSamePhoto() throws {
        let input = dir + "/in", lib = dir + "/lib"
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        let webp = [UInt8](try XCTUnwrap(FileManager.default.contents(atPath: formatSamplesDir + "/path.webp")))
        XCTAssertTrue(FileManager.default.createFile(atPath: input + "/path.webp", contents: Data(webp)))
        XCTAssertEqual(try run(["--library", lib, "import", input, "-q"]).status, 0)
        let name = try XCTUnwrap(try listed(lib).first?["uniqueName"] as? String)
        let packet = Self.xmp(["Holiday"]) + (Self.xmp(["Holiday"]).count % 2 == 1 ? [0x20] : [])
        let n = UInt32(packet.count)
        var edited =
            webp + Array("XMP ".utf8) + [
                UInt8(n & 0xFF), UInt8((n >> 8) & 0xFF), UInt8((n >> 16) & 0xFF), UInt8(n >> 24)
            ]
            + packet
        let size = UInt32(edited.count - 8)
        edited.replaceSubrange(
            4..<8, with: [UInt8(size & 0xFF), UInt8((size >> 8) & 0xFF), UInt8((size >> 16) & 0xFF), UInt8(size >> 24)])
        XCTAssertTrue(FileManager.default.createFile(atPath: input + "/path.webp", contents: Data(edited)))
        let summary = try json(try run(["--library", lib, "import", input, "--json"]).stdout)
        XCTAssertEqual(summary["imported"] as? Int, 0, "\(summary)")
        XCTAssertEqual(summary["replaced"] as? Int, 1, "\(summary)")
        let photos = try listed(lib)
        XCTAssertEqual(photos.count, 1)
        XCTAssertEqual(photos.first?["uniqueName"] as? String, name)
        XCTAssertEqual(photos.first?["sha256"] as? String, try sha256(edited))
        XCTAssertEqual(try run(["--library", lib, "verify", "-q"]).status, 0)
    }

    /// Sync carries the new original: a peer that has the photo takes the new bytes as its
    /// original (no second photo there either), its old file goes, and verify is clean there.
    func testSyncCarriesTheNewOriginal() throws {
        let input = dir + "/in", a = dir + "/a", b = dir + "/b"
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        let storm = [UInt8](try XCTUnwrap(FileManager.default.contents(atPath: samplesDir + "/storm.jpg")))
        let file = input + "/storm.jpg"
        XCTAssertTrue(
            FileManager.default.createFile(atPath: file, contents: Data(Self.jpeg(storm, subjects: ["Trip"]))))
        XCTAssertEqual(try run(["--library", a, "import", input, "-q"]).status, 0)
        XCTAssertEqual(try run(["--library", b, "init", "-q"]).status, 0)
        let first = try run(["--library", b, "sync", "--from", a, "-q"])
        XCTAssertEqual(first.status, 0, first.stderr)
        let name = try XCTUnwrap(try listed(b).first?["uniqueName"] as? String)

        let after = Self.jpeg(storm, subjects: ["Holiday"])
        XCTAssertTrue(FileManager.default.createFile(atPath: file, contents: Data(after)))
        XCTAssertEqual(try json(try run(["--library", a, "import", input, "--json"]).stdout)["replaced"] as? Int, 1)
        let second = try run(["--library", b, "sync", "--from", a, "-q"])
        XCTAssertEqual(second.status, 0, second.stderr)
        let photos = try listed(b)
        XCTAssertEqual(photos.count, 1)
        XCTAssertEqual(photos.first?["uniqueName"] as? String, name)
        XCTAssertEqual(photos.first?["sha256"] as? String, try sha256(after))
        XCTAssertEqual(Set(try XCTUnwrap(photos.first?["tags"] as? [String])), ["Holiday"])
        XCTAssertEqual(originals(b), [try sha256(after)])
        let verify = try run(["--library", b, "verify"])
        XCTAssertEqual(verify.status, 0, verify.stdout + verify.stderr)
    }

    /// Another image with the same metadata is another photo; the same image imported into
    /// another zone (a share) is not taken for the private photo (identity within one zone).
    func testAnotherImageOrAnotherZoneIsANewPhoto() throws {
        let input = dir + "/in", lib = dir + "/lib"
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        let storm = [UInt8](try XCTUnwrap(FileManager.default.contents(atPath: samplesDir + "/storm.jpg")))
        let path = [UInt8](try XCTUnwrap(FileManager.default.contents(atPath: samplesDir + "/path.jpg")))
        XCTAssertTrue(
            FileManager.default.createFile(
                atPath: input + "/a.jpg", contents: Data(Self.jpeg(storm, subjects: ["Trip"]))))
        XCTAssertEqual(try run(["--library", lib, "import", input, "-q"]).status, 0)
        try FileManager.default.removeItem(atPath: input + "/a.jpg")
        XCTAssertTrue(
            FileManager.default.createFile(
                atPath: input + "/b.jpg", contents: Data(Self.jpeg(path, subjects: ["Trip"]))))
        let other = try json(try run(["--library", lib, "import", input, "--json"]).stdout)
        XCTAssertEqual(other["imported"] as? Int, 1)
        XCTAssertEqual(other["replaced"] as? Int ?? 0, 0)
        XCTAssertEqual(try listed(lib).count, 2)

        let b = try XCTUnwrap(
            try listed(lib).first { $0["displayName"] as? String == "b.jpg" }?["uniqueName"] as? String)
        let created = try run(["--library", lib, "share", "create", b, "--title", "S", "--json"])
        XCTAssertEqual(created.status, 0, created.stderr)
        let share = try json(created.stdout)
        let id = try XCTUnwrap(share["id"] as? String)
        try FileManager.default.removeItem(atPath: input + "/b.jpg")
        XCTAssertTrue(
            FileManager.default.createFile(
                atPath: input + "/c.jpg", contents: Data(Self.jpeg(storm, subjects: ["Holiday"]))))
        let shared = try json(try run(["--library", lib, "import", input, "--share", id, "--json"]).stdout)
        XCTAssertEqual(shared["imported"] as? Int, 1, "a new photo in the share")
        XCTAssertEqual(shared["replaced"] as? Int ?? 0, 0)
        let photos = try listed(lib)
        XCTAssertEqual(photos.count, 3)
        XCTAssertTrue(
            photos.contains { ($0["tags"] as? [String]) == ["Trip"] && $0["displayName"] as? String == "a.jpg" })
    }
}
