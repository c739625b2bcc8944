import Foundation
import PhotosImaging
import PhotosTestSupport
import XCTest

/// Issue 25 item 2: an iPhone Live Photo — a still and a short MOV carrying one Apple content
/// identifier (the still's MakerNote tag 0x0011, the movie's QuickTime
/// `com.apple.quicktime.content.identifier`) — is imported as ONE photo of kind `live` with two
/// originals: the still `primary` (its thumbnail), the movie `pairedVideo`; in one import or
/// two, in either order (the still taking over from its movie's video photo, and `sync --from`
/// carrying that takeover to a peer); different identifiers never pair; without identifiers the
/// same folder, base name and capture times within 2 s pair them. The still is a red JPEG made
/// with ffmpeg, given here an EXIF APP1 with DateTimeOriginal and an Apple MakerNote; the movie
/// a green MOV made with ffmpeg. On both backends (`PHOTOS_TEST_DATABASE_URL`).
final class LivePhotoPairingTests: BinaryTestCase {
    override var label: String { "photos-live-pairing" }

    static let id = "5E2A3B1C-9D4F-4E6A-8B7C-0123456789AB"

    /// The TIFF block of an EXIF APP1 (little-endian): IFD0 → Exif IFD with DateTimeOriginal
    /// `date`, OffsetTimeOriginal "+02:00" and, when `identifier` is given, an Apple MakerNote
    /// ("Apple iOS\0", version 1, "MM", a big-endian IFD whose tag 0x0011 is `identifier`).
    static func exifBlock(date: String, identifier: String?) -> [UInt8] {
        func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
        func le32(_ v: Int) -> [UInt8] { le16(v & 0xFFFF) + le16(v >> 16) }
        func be16(_ v: Int) -> [UInt8] { [UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
        func be32(_ v: Int) -> [UInt8] { be16(v >> 16) + be16(v & 0xFFFF) }
        var note: [UInt8] = []
        if let identifier {
            let text = Array(identifier.utf8) + [0]
            // Offsets inside the note count from its first byte: the IFD at 14, its one entry,
            // the next-IFD link, then the text at 32.
            note = Array("Apple iOS".utf8) + [0, 0, 1] + Array("MM".utf8)
            note += be16(1) + be16(0x0011) + be16(2) + be32(text.count) + be32(32) + be32(0)
            note += text
        }
        let entries = identifier == nil ? 2 : 3
        let exifIFD = 8 + 2 + 12 + 4
        let dataStart = exifIFD + 2 + 12 * entries + 4
        var block: [UInt8] = [0x49, 0x49, 42, 0] + le32(8)
        block += le16(1) + le16(0x8769) + le16(4) + le32(1) + le32(exifIFD) + le32(0)
        block += le16(entries) + le16(0x9003) + le16(2) + le32(20) + le32(dataStart)
        block += le16(0x9011) + le16(2) + le32(7) + le32(dataStart + 20)
        if identifier != nil { block += le16(0x927C) + le16(7) + le32(note.count) + le32(dataStart + 27) }
        block += le32(0) + Array(date.utf8) + [0] + Array("+02:00".utf8) + [0] + note
        return block
    }

    /// A 64×48 red JPEG (ffmpeg) with `exifBlock` as its APP1 after SOI.
    func still(date: String = "2024:05:01 12:00:00", identifier: String? = LivePhotoPairingTests.id) throws -> Data {
        let path = dir + "/red-" + UUID().uuidString + ".jpg"
        try runFFmpeg(["-f", "lavfi", "-i", "color=red:s=64x48:d=1", "-frames:v", "1", path])
        let jpeg = try XCTUnwrap(FileManager.default.contents(atPath: path))
        let payload = Array("Exif\0\0".utf8) + Self.exifBlock(date: date, identifier: identifier)
        let segment: [UInt8] =
            [0xFF, 0xE1, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)] + payload
        return Data(jpeg.prefix(2)) + Data(segment) + jpeg.dropFirst(2)
    }

    /// A 1 s 64×48 green MOV (ffmpeg) with QuickTime creationdate `date` and, when given, the
    /// content identifier.
    func movie(date: String = "2024-05-01T12:00:00+0200", identifier: String? = LivePhotoPairingTests.id) throws
        -> Data
    {
        let path = dir + "/green-" + UUID().uuidString + ".mov"
        var args = [
            "-f", "lavfi", "-i", "color=green:s=64x48:d=1", "-metadata", "com.apple.quicktime.creationdate=" + date
        ]
        if let identifier { args += ["-metadata", "com.apple.quicktime.content.identifier=" + identifier] }
        try runFFmpeg(args + ["-movflags", "use_metadata_tags", path])
        return try XCTUnwrap(FileManager.default.contents(atPath: path))
    }

    @discardableResult
    func folder(_ name: String, _ files: [String: Data]) throws -> String {
        let path = dir + "/" + name
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        for (file, data) in files {
            XCTAssertTrue(FileManager.default.createFile(atPath: path + "/" + file, contents: data))
        }
        return path
    }

    func importJSON(_ lib: String, _ args: [String], file: StaticString = #filePath, line: UInt = #line) throws
        -> [String: Int]
    {
        let out = try ok(lib, ["--json", "import"] + args, file: file, line: line)
        let object = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Data(out.utf8)) as? [String: Any], out, file: file, line: line)
        return object.compactMapValues { $0 as? Int }
    }

    /// Per photo (by id): its kind, format and its originals as `role:sha256`, sorted.
    func photos(_ lib: String) throws -> [[String]] {
        let c = try TestCatalog(root: lib, readOnly: true)
        return try c.rows("SELECT id, kind, format FROM photo ORDER BY id").map { p in
            let originals = try c.rows(
                "SELECT role, sha256 FROM photo_data WHERE photo_id = ? ORDER BY role", [Int64(p[0] ?? "") ?? 0]
            ).map { ($0[0] ?? "") + ":" + ($0[1] ?? "") }
            return [p[1] ?? "", p[2] ?? ""] + originals.sorted()
        }
    }

    /// The thumbnail JPEG of every photo, as hex, by photo id.
    func thumbnails(_ lib: String) throws -> [String] {
        let c = try TestCatalog(root: lib, readOnly: true)
        let hex = c.backend == .postgresql ? "upper(encode(t.data, 'hex'))" : "hex(t.data)"
        return try c.rows("SELECT \(hex) FROM thumbnail t ORDER BY t.photo_id").map { $0[0] ?? "" }
    }

    /// The centre pixel (R, G, B) of the first photo's thumbnail.
    func thumbnailCentre(_ lib: String) throws -> [Int] {
        let hex = Array(try XCTUnwrap(try thumbnails(lib).first).utf8)
        var bytes: [UInt8] = []
        func nibble(_ c: UInt8) -> UInt8 { c >= 65 ? c - 55 : c - 48 }
        for i in stride(from: 0, to: hex.count - 1, by: 2) { bytes.append(nibble(hex[i]) << 4 | nibble(hex[i + 1])) }
        let image = try bytes.withUnsafeBytes {
            try ImageDecoder.decode($0, format: .jpeg, targetEdge: 1000, maxPixels: 1_000_000)
        }
        let at = ((image.pixels.height / 2) * image.pixels.width + image.pixels.width / 2) * 3
        return (0..<3).map { Int(image.pixels.pixels[at + $0]) }
    }

    func assertRed(_ rgb: [Int], file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertGreaterThan(rgb[0], 200, "\(rgb)", file: file, line: line)
        XCTAssertLessThan(rgb[1], 60, "\(rgb)", file: file, line: line)
        XCTAssertLessThan(rgb[2], 60, "\(rgb)", file: file, line: line)
    }

    func sha(_ data: Data) -> String {
        let path = dir + "/sha-" + UUID().uuidString
        _ = FileManager.default.createFile(atPath: path, contents: data)
        return sha256(ofFile: path)
    }

    /// The file of the original with SHA-256 `sha` under the library's folder, nil when none.
    func storedFile(_ lib: String, _ sha: String) -> String? {
        let e = FileManager.default.enumerator(atPath: lib)
        while let p = e?.nextObject() as? String {
            if (p as NSString).lastPathComponent == sha { return lib + "/" + p }
        }
        return nil
    }

    /// exiftool reads the MakerNote built here as Apple's ContentIdentifier (the test's bytes are
    /// the layout iPhones write), and so does `ExifReader`; a note cut short, one whose IFD points
    /// outside it, and another maker's give none.
    func testTheStillsMakerNoteIsReadAsExiftoolReadsIt() throws {
        let data = try still()
        let path = dir + "/IMG_0001.JPG"
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: data))
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/exiftool") {
            // Tag 0x0011 of the Apple MakerNote: Debian's exiftool 12.57 names it MediaGroupUUID,
            // newer ones ContentIdentifier; either is the identifier.
            let r = try runProcess(
                "/usr/bin/exiftool", ["-s3", "-Apple:ContentIdentifier", "-Apple:MediaGroupUUID", path])
            XCTAssertEqual(r.stdout.trimmingCharacters(in: .whitespacesAndNewlines), Self.id, r.stderr)
        }
        let block = Self.exifBlock(date: "2024:05:01 12:00:00", identifier: Self.id)
        XCTAssertEqual(ExifReader.parse(block).contentIdentifier, Self.id)
        XCTAssertEqual(ExifReader.parse(block).dateTimeOriginal, "2024:05:01 12:00:00")
        XCTAssertNil(ExifReader.parse(Self.exifBlock(date: "2024:05:01 12:00:00", identifier: nil)).contentIdentifier)
        // Cut inside the identifier's text: its offset and count no longer fit.
        XCTAssertNil(ExifReader.parse(Array(block.prefix(block.count - 10))).contentIdentifier)
        // The entry's value offset pointing past the note.
        var far = block
        let noteStart = block.count - (32 + Self.id.utf8.count + 1)
        far[noteStart + 14 + 2 + 8 + 2] = 0x7F
        XCTAssertNil(ExifReader.parse(far).contentIdentifier)
        // Another maker's note.
        var other = block
        other[noteStart] = UInt8(ascii: "N")
        XCTAssertNil(ExifReader.parse(other).contentIdentifier)
        // Every truncation and every byte flipped: no crash, and an identifier read is always
        // one `isContentIdentifier` accepts (bounds are checked against the bytes, not trusted).
        for n in 0..<block.count {
            let id = ExifReader.parse(Array(block.prefix(n))).contentIdentifier
            XCTAssertTrue(id.map(ExifReader.isContentIdentifier) ?? true, "\(n)")
        }
        for i in block.indices {
            var flipped = block
            flipped[i] ^= 0xFF
            let id = ExifReader.parse(flipped).contentIdentifier
            XCTAssertTrue(id.map(ExifReader.isContentIdentifier) ?? true, "\(i)")
        }
        // No identifier: characters other than letters, digits and '-'.
        XCTAssertFalse(ExifReader.isContentIdentifier("abc def"))
        XCTAssertFalse(ExifReader.isContentIdentifier(""))
        XCTAssertTrue(ExifReader.isContentIdentifier(Self.id))
    }

    func testStillAndMovieInOneImportAreOneLivePhoto() throws {
        let (s, m) = (try still(), try movie())
        let src = try folder("roll", ["IMG_0001.JPG": s, "IMG_0001.MOV": m])
        let lib = dir + "/lib"
        let counts = try importJSON(lib, ["--batch-size", "1", "--jobs", "2", src])
        XCTAssertEqual([counts["imported"], counts["livePaired"], counts["joined"], counts["failed"]], [1, 1, 0, 0])
        XCTAssertEqual(try photos(lib), [["live", "jpeg", "pairedVideo:" + sha(m), "primary:" + sha(s)]])
        assertRed(try thumbnailCentre(lib))
        let c = try TestCatalog(root: lib, readOnly: true)
        XCTAssertEqual(try c.scalarString("SELECT content_identifier FROM photo"), Self.id)
        XCTAssertEqual(try c.scalarString("SELECT display_name FROM photo"), "IMG_0001.JPG")
        XCTAssertEqual(try c.scalarString("SELECT format FROM photo_data WHERE role = 'pairedVideo'"), "video")
        XCTAssertEqual(try c.scalarInt("SELECT duration_ms FROM photo"), 1000)
        XCTAssertEqual(try c.scalarString("SELECT width || 'x' || height FROM photo"), "64x48", "the still's size")
        // Either file again is a duplicate.
        let again = try importJSON(lib, [src])
        XCTAssertEqual([again["imported"], again["duplicates"], again["joined"]], [0, 2, 0])
        let text = try ok(dir + "/lib2", ["import", src])
        XCTAssertTrue(text.hasPrefix("Imported 1 photo (1 Live Photo as one photo each), 0 duplicates"), text)
        // --no-pairing: two photos, a still and a video.
        let apart = try importJSON(dir + "/lib3", ["--no-pairing", src])
        XCTAssertEqual([apart["imported"], apart["livePaired"]], [2, 0])
        XCTAssertEqual(try photos(dir + "/lib3").map { $0[0] }.sorted(), ["still", "video"])
    }

    /// The movie imported first is a video photo; its still, imported later from another folder,
    /// takes it over: the photo becomes `live`, the still its primary and its thumbnail.
    func testTheStillImportedAfterItsMovieTakesOver() throws {
        let (s, m) = (try still(), try movie())
        let lib = dir + "/lib"
        XCTAssertEqual(try importJSON(lib, [try folder("a", ["IMG_0001.MOV": m])])["imported"], 1)
        XCTAssertEqual(try photos(lib), [["video", "video", "primary:" + sha(m)]])
        let counts = try importJSON(lib, [try folder("b", ["IMG_0001.JPG": s])])
        XCTAssertEqual([counts["imported"], counts["joined"]], [0, 1])
        XCTAssertEqual(try photos(lib), [["live", "jpeg", "pairedVideo:" + sha(m), "primary:" + sha(s)]])
        assertRed(try thumbnailCentre(lib))
        let c = try TestCatalog(root: lib, readOnly: true)
        XCTAssertEqual(try c.scalarString("SELECT format FROM photo_data WHERE role = 'pairedVideo'"), "video")
        XCTAssertEqual(try c.scalarString("SELECT width || 'x' || height FROM photo"), "64x48")
        XCTAssertEqual(try c.scalarString("SELECT capture_source FROM photo"), "exif")
        XCTAssertEqual(try c.scalarString("SELECT display_name FROM photo"), "IMG_0001.JPG", "the still's name")
        // Export writes the still under its name and the movie beside it.
        let out = dir + "/out"
        _ = try ok(lib, ["export", "-q", "--sidecar", "none", out])
        XCTAssertEqual(filesUnder(out), ["IMG_0001.JPG", "IMG_0001.MOV"])
        XCTAssertEqual(sha256(ofFile: out + "/IMG_0001.MOV"), sha(m))
        let verify = try run(["--library", lib, "verify"])
        XCTAssertEqual(verify.status, 0, verify.stdout + verify.stderr)
    }

    /// The still imported first; its movie, named otherwise in another folder, joins it by the
    /// content identifier alone.
    func testTheMovieImportedAfterItsStillJoinsByItsIdentifier() throws {
        let (s, m) = (try still(), try movie(date: "2024-05-01T12:00:30+0200"))
        let lib = dir + "/lib"
        XCTAssertEqual(try importJSON(lib, [try folder("a", ["IMG_0001.JPG": s])])["imported"], 1)
        let thumb = try thumbnails(lib)
        let counts = try importJSON(lib, [try folder("b", ["clip.mov": m])])
        XCTAssertEqual([counts["imported"], counts["joined"]], [0, 1])
        XCTAssertEqual(try photos(lib), [["live", "jpeg", "pairedVideo:" + sha(m), "primary:" + sha(s)]])
        XCTAssertEqual(try thumbnails(lib), thumb, "the still's thumbnail stays")
        XCTAssertEqual(try TestCatalog(root: lib, readOnly: true).scalarInt("SELECT duration_ms FROM photo"), 1000)
    }

    /// Different identifiers never pair: not in one folder with one name and one time, nor later.
    func testDifferentIdentifiersGiveTwoPhotos() throws {
        let other = "0F0F0F0F-1111-4222-8333-444444444444"
        let (s, m) = (try still(), try movie(identifier: other))
        let lib = dir + "/lib"
        let counts = try importJSON(lib, [try folder("roll", ["IMG_0001.JPG": s, "IMG_0001.MOV": m])])
        XCTAssertEqual([counts["imported"], counts["livePaired"], counts["joined"]], [2, 0, 0])
        XCTAssertEqual(try photos(lib).map { $0[0] }.sorted(), ["still", "video"])
        let lib2 = dir + "/lib2"
        _ = try importJSON(lib2, [dir + "/roll/IMG_0001.JPG"])
        XCTAssertEqual(try importJSON(lib2, [dir + "/roll/IMG_0001.MOV"])["joined"], 0)
        XCTAssertEqual(try photos(lib2).count, 2)
    }

    /// Without identifiers: one folder, one base name and capture times 1 s apart pair (in one
    /// import and across two); 10 s apart do not.
    func testWithoutIdentifiersNameAndTimePair() throws {
        let (s, m) = (try still(identifier: nil), try movie(date: "2024-05-01T12:00:01+0200", identifier: nil))
        let lib = dir + "/lib"
        let counts = try importJSON(lib, [try folder("roll", ["IMG_0002.JPG": s, "IMG_0002.MOV": m])])
        XCTAssertEqual([counts["imported"], counts["livePaired"]], [1, 1])
        XCTAssertEqual(try photos(lib), [["live", "jpeg", "pairedVideo:" + sha(m), "primary:" + sha(s)]])
        XCTAssertNil(try TestCatalog(root: lib, readOnly: true).scalarString("SELECT content_identifier FROM photo"))

        let lib2 = dir + "/lib2"
        _ = try importJSON(lib2, [dir + "/roll/IMG_0002.MOV"])
        XCTAssertEqual(try importJSON(lib2, [dir + "/roll/IMG_0002.JPG"])["joined"], 1)
        XCTAssertEqual(try photos(lib2), try photos(lib))

        let far = try movie(date: "2024-05-01T12:00:10+0200", identifier: nil)
        let lib3 = dir + "/lib3"
        let apart = try importJSON(lib3, [try folder("far", ["IMG_0003.JPG": s, "IMG_0003.MOV": far])])
        XCTAssertEqual([apart["imported"], apart["livePaired"]], [2, 0])
        // A movie with an identifier beside a still without one pairs by name and time too.
        let lib4 = dir + "/lib4"
        let mixed = try importJSON(
            lib4,
            [try folder("mixed", ["IMG_0004.JPG": s, "IMG_0004.MOV": try movie(date: "2024-05-01T12:00:01+0200")])])
        XCTAssertEqual([mixed["imported"], mixed["livePaired"]], [1, 1])
    }

    /// The takeover reaches a peer: B pulled the movie's video photo from A; A imports the still
    /// (it takes over); `sync --from A` makes B's photo the same: kind, originals by role and
    /// the still's thumbnail.
    func testSyncCarriesTheStillsTakeoverToAPeer() throws {
        let (s, m) = (try still(), try movie())
        let a = dir + "/a", b = dir + "/b"
        let src = try folder("roll", ["IMG_0001.MOV": m])
        _ = try importJSON(a, [src])
        _ = try ok(b, ["init"])
        _ = try ok(b, ["sync", "--from", a])
        XCTAssertEqual(try photos(b).map { $0[0] }, ["video"])
        try folder("roll", ["IMG_0001.JPG": s])
        XCTAssertEqual(try importJSON(a, [src + "/IMG_0001.JPG"])["joined"], 1)
        _ = try ok(b, ["sync", "--from", a])
        XCTAssertEqual(try photos(b), [["live", "jpeg", "pairedVideo:" + sha(m), "primary:" + sha(s)]])
        XCTAssertEqual(try photos(b), try photos(a))
        XCTAssertEqual(
            try TestCatalog(root: b, readOnly: true).scalarString("SELECT display_name FROM photo"), "IMG_0001.JPG")
        XCTAssertEqual(try thumbnails(b), try thumbnails(a))
        assertRed(try thumbnailCentre(b))
        for lib in [a, b] {
            let verify = try run(["--library", lib, "verify"])
            XCTAssertEqual(verify.status, 0, lib + ": " + verify.stdout + verify.stderr)
        }
    }

    /// `verify` checks both originals (a damaged MOV is found); `delete` removes both files.
    func testVerifyChecksBothOriginalsAndDeleteRemovesBoth() throws {
        let (s, m) = (try still(), try movie())
        let lib = dir + "/lib"
        _ = try importJSON(lib, [try folder("roll", ["IMG_0001.JPG": s, "IMG_0001.MOV": m])])
        let movieFile = try XCTUnwrap(storedFile(lib, sha(m)), "the MOV is in external data")
        let stillFile = try XCTUnwrap(storedFile(lib, sha(s)))
        XCTAssertEqual(try run(["--library", lib, "verify"]).status, 0)
        let saved = try XCTUnwrap(FileManager.default.contents(atPath: movieFile))
        var damaged = saved
        damaged[damaged.count / 2] ^= 0xFF
        XCTAssertTrue(FileManager.default.createFile(atPath: movieFile, contents: damaged))
        let verify = try run(["--library", lib, "verify"])
        XCTAssertNotEqual(verify.status, 0, "a damaged MOV: " + verify.stdout + verify.stderr)
        XCTAssertTrue(
            (verify.stdout + verify.stderr).contains(sha(m)) || (verify.stdout + verify.stderr).contains("IMG_0001"),
            verify.stdout + verify.stderr)
        XCTAssertTrue(FileManager.default.createFile(atPath: movieFile, contents: saved))
        let name = try XCTUnwrap(
            try TestCatalog(root: lib, readOnly: true).scalarString("SELECT unique_name FROM photo"))
        XCTAssertEqual(try run(["--library", lib, "delete", name]).status, 0)
        XCTAssertFalse(FileManager.default.fileExists(atPath: movieFile), "the MOV went with its photo")
        XCTAssertFalse(FileManager.default.fileExists(atPath: stillFile), "the still went with its photo")
        XCTAssertEqual(try photos(lib), [])
    }
}

extension LivePhotoPairingTests {
    /// `merge --from` a library where the still took over from its movie into one holding the
    /// movie's own video photo: that photo takes the still over too (one Live Photo, the movie
    /// in no second photo), with the still's thumbnail.
    func testMergeCarriesTheStillsTakeover() throws {
        let (s, m) = (try still(), try movie())
        let a = dir + "/a", b = dir + "/b"
        let src = try folder("roll", ["IMG_0001.MOV": m])
        _ = try importJSON(a, [src])
        _ = try importJSON(b, [src])
        try folder("roll", ["IMG_0001.JPG": s])
        XCTAssertEqual(try importJSON(a, [src + "/IMG_0001.JPG"])["joined"], 1)
        _ = try ok(b, ["merge", "--from", a])
        XCTAssertEqual(try photos(b), [["live", "jpeg", "pairedVideo:" + sha(m), "primary:" + sha(s)]])
        XCTAssertEqual(try thumbnails(b), try thumbnails(a))
        let verify = try run(["--library", b, "verify"])
        XCTAssertEqual(verify.status, 0, verify.stdout + verify.stderr)
    }

    /// A movie joining its still's photo reaches a peer too: the `pairedVideo` original (its
    /// file carried) and the kind `live`.
    func testSyncCarriesTheMoviesJoinToAPeer() throws {
        let (s, m) = (try still(), try movie())
        let a = dir + "/a", b = dir + "/b"
        let src = try folder("roll", ["IMG_0001.JPG": s])
        _ = try importJSON(a, [src])
        _ = try ok(b, ["init"])
        _ = try ok(b, ["sync", "--from", a])
        try folder("roll", ["IMG_0001.MOV": m])
        XCTAssertEqual(try importJSON(a, [src + "/IMG_0001.MOV"])["joined"], 1)
        _ = try ok(b, ["sync", "--from", a])
        XCTAssertEqual(try photos(b), [["live", "jpeg", "pairedVideo:" + sha(m), "primary:" + sha(s)]])
        XCTAssertEqual(try TestCatalog(root: b, readOnly: true).scalarInt("SELECT duration_ms FROM photo"), 1000)
        XCTAssertNotNil(storedFile(b, sha(m)), "the MOV's file came with it")
        let verify = try run(["--library", b, "verify"])
        XCTAssertEqual(verify.status, 0, verify.stdout + verify.stderr)
    }

    /// A HEIC still (the iPhone's own format): its EXIF, with the MakerNote, goes through the
    /// same reader; the HEIC is made from the JPEG with libheif's `heif-enc`, which copies its
    /// EXIF.
    func testAHEICStillAndItsMovieAreOneLivePhoto() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/heif-enc") else {
            throw XCTSkip("heif-enc is not installed (Debian package libheif-examples)")
        }
        let jpeg = dir + "/still.jpg", heic = dir + "/still.heic"
        XCTAssertTrue(FileManager.default.createFile(atPath: jpeg, contents: try still()))
        let enc = try runProcess("/usr/bin/heif-enc", ["-q", "90", "-o", heic, jpeg])
        XCTAssertEqual(enc.status, 0, enc.stderr)
        let s = try XCTUnwrap(FileManager.default.contents(atPath: heic))
        let m = try movie()
        let lib = dir + "/lib"
        let counts = try importJSON(lib, [try folder("roll", ["IMG_0005.HEIC": s, "IMG_0005.MOV": m])])
        XCTAssertEqual([counts["imported"], counts["livePaired"], counts["failed"]], [1, 1, 0])
        XCTAssertEqual(try photos(lib), [["live", "heif", "pairedVideo:" + sha(m), "primary:" + sha(s)]])
        XCTAssertEqual(
            try TestCatalog(root: lib, readOnly: true).scalarString("SELECT content_identifier FROM photo"), Self.id)
        assertRed(try thumbnailCentre(lib))
    }
}
