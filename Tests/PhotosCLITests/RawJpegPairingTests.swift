import Foundation
import PhotosImaging
import PhotosTestSupport
import XCTest

/// Issue 24 item 2: a camera's RAW+JPEG pair (`IMG_1234.CR2` + `IMG_1234.JPG`, one folder, one
/// base name ignoring case, capture times within 2 s) is imported as ONE photo with two
/// originals — the JPEG `primary` (its thumbnail is the JPEG-only import's, pixel for pixel), the
/// RAW `raw` — whatever the batch size and the number of workers; a half imported later joins
/// the photo of the other, in either order (the JPEG taking over as primary from its RAW, and
/// `sync --from` carrying that takeover to a peer); `--no-pairing` and capture times 10 s apart
/// give two photos; CR2+JPG+HEIC gives the pair and the HEIC apart. The RAW is a DNG written
/// here (`DNGWriter`, named `.CR2`: RAW is found by content) with the JPEG's capture time in
/// its DateTime tag; the JPEG is `Samples/storm.jpg` with an EXIF DateTimeOriginal. On both
/// backends (`PHOTOS_TEST_DATABASE_URL`).
final class RawJpegPairingTests: BinaryTestCase {
    override var label: String { "photos-raw-jpeg-pairing" }

    static let date = "2024:05:01 12:00:00"

    /// A 40×30 DNG of a colour ramp with IFD0 DateTime `date` (no preview: a half-size develop).
    func dng(date: String = RawJpegPairingTests.date) throws -> Data {
        var rgb: [UInt8] = []
        for y in 0..<30 { for x in 0..<40 { rgb += [UInt8(x * 6), UInt8(y * 8), 128] } }
        return Data(
            DNGWriter.make(image: try PixelBuffer(width: 40, height: 30, rgb: rgb), preview: nil, dateTime: date))
    }

    func jpeg() throws -> Data { try stormJPEG(date: RawJpegPairingTests.date, offset: nil) }

    /// `folder` with the files named, made (creating the folder).
    @discardableResult
    func folder(_ name: String, _ files: [String: Data]) throws -> String {
        let path = dir + "/" + name
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        for (file, data) in files {
            XCTAssertTrue(FileManager.default.createFile(atPath: path + "/" + file, contents: data))
        }
        return path
    }

    /// `import --json` of `paths`: the summary's counts.
    func importJSON(_ lib: String, _ args: [String], file: StaticString = #filePath, line: UInt = #line) throws
        -> [String: Int]
    {
        let out = try ok(lib, ["--json", "import"] + args, file: file, line: line)
        let object = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Data(out.utf8)) as? [String: Any], out, file: file, line: line)
        return object.compactMapValues { $0 as? Int }
    }

    /// Per photo (by id): its format, width, height and its originals as `role:sha256`, sorted.
    func photos(_ lib: String) throws -> [[String]] {
        let c = try TestCatalog(root: lib, readOnly: true)
        return try c.rows("SELECT id, format, width, height FROM photo ORDER BY id").map { p in
            let originals = try c.rows(
                "SELECT role, sha256 FROM photo_data WHERE photo_id = ? ORDER BY role", [Int64(p[0] ?? "") ?? 0]
            ).map { ($0[0] ?? "") + ":" + ($0[1] ?? "") }
            return [p[1] ?? "", p[2] ?? "", p[3] ?? ""] + originals.sorted()
        }
    }

    /// The thumbnail JPEG of every photo, as hex, by photo id.
    func thumbnails(_ lib: String) throws -> [String] {
        let c = try TestCatalog(root: lib, readOnly: true)
        let hex = c.backend == .postgresql ? "upper(encode(t.data, 'hex'))" : "hex(t.data)"
        return try c.rows("SELECT \(hex) FROM thumbnail t ORDER BY t.photo_id").map { $0[0] ?? "" }
    }

    /// The thumbnail of the JPEG imported alone into a library of its own.
    func jpegOnlyThumbnail() throws -> String {
        let lib = dir + "/jpeg-only"
        let src = try folder("jpeg-only-src", ["IMG_1234.JPG": try jpeg()])
        _ = try ok(lib, ["import", "-q", src])
        return try XCTUnwrap(try thumbnails(lib).first)
    }

    func sha(_ data: Data) -> String {
        let path = dir + "/sha-" + UUID().uuidString
        _ = FileManager.default.createFile(atPath: path, contents: data)
        return sha256(ofFile: path)
    }

    func testAPairIsOnePhotoWithTwoOriginalsInOneBatchWithSeveralWorkers() throws {
        let (raw, still) = (try dng(), try jpeg())
        let src = try folder(
            "card",
            [
                "IMG_1234.CR2": raw, "img_1234.jpg": still,
                "IMG_1235.JPG": try stormJPEG(date: "2024:05:01 12:01:00", offset: nil)
            ])
        let lib = dir + "/lib"
        let counts = try importJSON(lib, ["--batch-size", "1", "--jobs", "2", src])
        XCTAssertEqual(counts["imported"], 2, "the pair and IMG_1235")
        XCTAssertEqual(counts["paired"], 1)
        XCTAssertEqual(counts["joined"], 0)
        XCTAssertEqual(counts["failed"], 0)
        let all = try photos(lib)
        XCTAssertEqual(all.count, 2, "\(all)")
        let pair = try XCTUnwrap(all.first { $0.count == 5 }, "\(all)")
        XCTAssertEqual(pair[0], "jpeg")
        XCTAssertEqual(Array(pair[3...]), ["primary:" + sha(still), "raw:" + sha(raw)])
        let c = try TestCatalog(root: lib, readOnly: true)
        XCTAssertEqual(
            try c.scalarString("SELECT format FROM photo_data WHERE role = 'raw'"), "raw", "the RAW's own format")
        XCTAssertEqual(
            try c.scalarString(
                "SELECT display_name FROM photo WHERE format = 'jpeg' AND id IN (SELECT photo_id FROM photo_data WHERE role = 'raw')"
            ),
            "img_1234.jpg")
        // The photo's size and capture time are the JPEG's; its thumbnail is the JPEG-only import's.
        let storm = try XCTUnwrap(
            try TestCatalog(root: lib, readOnly: true).rows(
                "SELECT width, height, capture_date FROM photo WHERE display_name = 'IMG_1235.JPG'"
            ).first)
        XCTAssertEqual(Array(pair[1...2]), [storm[0] ?? "", storm[1] ?? ""])
        XCTAssertEqual(
            try c.scalarString("SELECT capture_date FROM photo WHERE display_name = 'img_1234.jpg'"),
            "2024-05-01T12:00:00")
        let pairThumb = try XCTUnwrap(
            try c.rows(
                (c.backend == .postgresql ? "SELECT upper(encode(t.data, 'hex'))" : "SELECT hex(t.data)")
                    + " FROM thumbnail t JOIN photo p ON p.id = t.photo_id WHERE p.display_name = 'img_1234.jpg'"
            ).first?[0] ?? nil)
        XCTAssertEqual(pairThumb, try jpegOnlyThumbnail())

        // Either file again is a duplicate (dedupe by any original's SHA-256).
        let again = try importJSON(lib, [src + "/IMG_1234.CR2", src + "/img_1234.jpg"])
        XCTAssertEqual([again["imported"], again["duplicates"], again["joined"]], [0, 2, 0])
        XCTAssertEqual(try photos(lib).count, 2)
        // The text summary says the pair.
        let lib2 = dir + "/lib2"
        let text = try ok(lib2, ["import", src])
        XCTAssertTrue(text.hasPrefix("Imported 2 photos (1 RAW+JPEG pair as one photo each), 0 duplicates"), text)
    }

    func testTheJPEGImportedLaterJoinsAndTakesOverAsPrimary() throws {
        let (raw, still) = (try dng(), try jpeg())
        let src = try folder("card", ["IMG_1234.CR2": raw])
        let lib = dir + "/lib"
        XCTAssertEqual(try importJSON(lib, [src])["imported"], 1)
        let before = try photos(lib)
        XCTAssertEqual(before.map { $0[0] }, ["raw"])
        XCTAssertEqual(before[0][1...2], ["80", "60"], "the RAW's developed size")
        try folder("card", ["IMG_1234.JPG": still])
        let counts = try importJSON(lib, [src])
        XCTAssertEqual([counts["imported"], counts["joined"], counts["duplicates"]], [0, 1, 1])
        let after = try photos(lib)
        XCTAssertEqual(after.count, 1, "\(after)")
        XCTAssertEqual(after[0][0], "jpeg")
        XCTAssertEqual(Array(after[0][3...]), ["primary:" + sha(still), "raw:" + sha(raw)])
        XCTAssertEqual(try thumbnails(lib), [try jpegOnlyThumbnail()], "the thumbnail is rebuilt from the JPEG")
        let c = try TestCatalog(root: lib, readOnly: true)
        XCTAssertEqual(try c.scalarString("SELECT format FROM photo_data WHERE role = 'primary'"), "jpeg")
        XCTAssertEqual(try c.scalarString("SELECT format FROM photo_data WHERE role = 'raw'"), "raw")
        // The photo takes the JPEG's name: it kept the RAW's, and export then wrote the JPEG as
        // IMG_1234.CR2 and the RAW as IMG_1234-raw.DNG.
        XCTAssertEqual(try c.scalarString("SELECT display_name FROM photo"), "IMG_1234.JPG")
        let out = dir + "/out"
        _ = try ok(lib, ["export", "-q", "--sidecar", "none", out])
        XCTAssertEqual(filesUnder(out), ["IMG_1234.DNG", "IMG_1234.JPG"])
        XCTAssertEqual(sha256(ofFile: out + "/IMG_1234.JPG"), sha(still))
        XCTAssertEqual(sha256(ofFile: out + "/IMG_1234.DNG"), sha(raw))
        // Both files are in external data and verify finds nothing wrong.
        let verify = try run(["--library", lib, "verify"])
        XCTAssertEqual(verify.status, 0, verify.stdout + verify.stderr)
    }

    func testTheRAWImportedLaterJoinsTheJPEGsPhoto() throws {
        let (raw, still) = (try dng(), try jpeg())
        let lib = dir + "/lib"
        let first = try folder("a", ["IMG_1234.JPG": still])
        XCTAssertEqual(try importJSON(lib, [first])["imported"], 1)
        let thumb = try thumbnails(lib)
        // From another folder and in another case: the catalog keeps no folder; the name and time join.
        let later = try folder("b", ["img_1234.cr2": raw])
        let counts = try importJSON(lib, [later])
        XCTAssertEqual([counts["imported"], counts["joined"]], [0, 1])
        let after = try photos(lib)
        XCTAssertEqual(after.count, 1, "\(after)")
        XCTAssertEqual(after[0][0], "jpeg")
        XCTAssertEqual(Array(after[0][3...]), ["primary:" + sha(still), "raw:" + sha(raw)])
        XCTAssertEqual(try thumbnails(lib), thumb, "the JPEG's thumbnail stays")
        // And again: a duplicate.
        let again = try importJSON(lib, [later])
        XCTAssertEqual([again["joined"], again["duplicates"]], [0, 1])
    }

    func testNoPairingAndTimesTenSecondsApartGiveTwoPhotos() throws {
        let src = try folder("card", ["IMG_1234.CR2": try dng(), "IMG_1234.JPG": try jpeg()])
        let lib = dir + "/lib"
        let apart = try importJSON(lib, ["--no-pairing", src])
        XCTAssertEqual([apart["imported"], apart["paired"]], [2, 0])
        XCTAssertEqual(try photos(lib).map { $0.count }, [4, 4], "two photos of one original each")

        let far = try folder("far", ["IMG_2000.CR2": try dng(date: "2024:05:01 12:00:10"), "IMG_2000.JPG": try jpeg()])
        let lib2 = dir + "/lib2"
        let counts = try importJSON(lib2, [far])
        XCTAssertEqual([counts["imported"], counts["paired"]], [2, 0])
        XCTAssertEqual(try photos(lib2).map { $0.count }, [4, 4])
        // Nor does a later import join them (10 s apart).
        let lib3 = dir + "/lib3"
        _ = try importJSON(lib3, [far + "/IMG_2000.JPG"])
        XCTAssertEqual(try importJSON(lib3, [far + "/IMG_2000.CR2"])["joined"], 0)
        XCTAssertEqual(try photos(lib3).count, 2)
    }

    /// CR2 + JPG + HEIC of one base name: the RAW pairs with the JPEG (a RAW+JPEG camera's pair),
    /// the HEIC is a photo of its own.
    func testThreeFilesOfOneBaseNamePairTheRAWWithTheJPEG() throws {
        let corpus = try requireCorpus()
        let heic = try XCTUnwrap(
            try FileManager.default.contentsOfDirectory(atPath: corpus + "/camera-formats/heif")
                .sorted().first { $0.lowercased().hasSuffix(".heic") })
        let heicBytes = try XCTUnwrap(
            FileManager.default.contents(atPath: try requireCorpus() + "/camera-formats/heif/" + heic))
        let (raw, still) = (try dng(), try jpeg())
        let src = try folder("card", ["IMG_1234.CR2": raw, "IMG_1234.JPG": still, "IMG_1234.HEIC": heicBytes])
        let lib = dir + "/lib"
        let counts = try importJSON(lib, ["--batch-size", "1", src])
        XCTAssertEqual([counts["imported"], counts["paired"], counts["failed"]], [2, 1, 0])
        let all = try photos(lib)
        XCTAssertEqual(all.map { $0[0] }.sorted(), ["heif", "jpeg"])
        let pair = try XCTUnwrap(all.first { $0[0] == "jpeg" })
        XCTAssertEqual(Array(pair[3...]), ["primary:" + sha(still), "raw:" + sha(raw)])
        XCTAssertEqual(all.first { $0[0] == "heif" }?.count, 4)
    }

    /// The takeover reaches a peer: B pulled the RAW's photo from A; A imports the JPEG (it takes
    /// over as primary); `sync --from A` makes B's photo the same: originals by role, format,
    /// size and the JPEG's thumbnail.
    func testSyncCarriesTheJPEGsTakeoverToAPeer() throws {
        let (raw, still) = (try dng(), try jpeg())
        let a = dir + "/a", b = dir + "/b"
        let src = try folder("card", ["IMG_1234.CR2": raw])
        _ = try importJSON(a, [src])
        _ = try ok(b, ["init"])
        _ = try ok(b, ["sync", "--from", a])
        XCTAssertEqual(try photos(b).map { $0[0] }, ["raw"])
        try folder("card", ["IMG_1234.JPG": still])
        XCTAssertEqual(try importJSON(a, [src])["joined"], 1)
        _ = try ok(b, ["sync", "--from", a])
        XCTAssertEqual(try photos(b), try photos(a))
        XCTAssertEqual(try photos(b)[0][0], "jpeg")
        XCTAssertEqual(
            try TestCatalog(root: b, readOnly: true).scalarString("SELECT display_name FROM photo"), "IMG_1234.JPG")
        XCTAssertEqual(try thumbnails(b), try thumbnails(a))
        for lib in [a, b] {
            let verify = try run(["--library", lib, "verify"])
            XCTAssertEqual(verify.status, 0, lib + ": " + verify.stdout + verify.stderr)
        }
    }
}

extension RawJpegPairingTests {
    /// `merge --from` a library where the JPEG took over from its RAW into one holding the RAW's
    /// own photo: that photo takes the JPEG over too (one photo of the pair, the RAW in no second
    /// photo), with the JPEG's thumbnail.
    func testMergeCarriesATakeover() throws {
        let (raw, still) = (try dng(), try jpeg())
        let a = dir + "/a", b = dir + "/b"
        let src = try folder("card", ["IMG_1234.CR2": raw])
        _ = try importJSON(a, [src])
        _ = try importJSON(b, [src])
        try folder("card", ["IMG_1234.JPG": still])
        XCTAssertEqual(try importJSON(a, [src])["joined"], 1)
        _ = try ok(b, ["merge", "--from", a])
        XCTAssertEqual(try photos(b), try photos(a))
        XCTAssertEqual(try photos(b).first?.first, "jpeg")
        XCTAssertEqual(
            try TestCatalog(root: b, readOnly: true).scalarString("SELECT display_name FROM photo"), "IMG_1234.JPG")
        XCTAssertEqual(try thumbnails(b), try thumbnails(a))
        let verify = try run(["--library", b, "verify"])
        XCTAssertEqual(verify.status, 0, verify.stdout + verify.stderr)
    }
}

/// The joining half brings its own metadata (issue 24 item 2): a file that joins the photo of
/// its pair's other half, in a later import, gives that photo what its sidecar says — the union
/// of the tags, its rating when the photo has no anonymous one, its position and title where the
/// photo has none — and nothing the photo had is replaced. The join used to record the file's
/// sidecar as read and apply none of it, so a later `--refresh-metadata` did not bring it back.
extension RawJpegPairingTests {
    /// An XMP sidecar: `subjects` in dc:subject, then the optional rating, title and position.
    func sidecar(_ subjects: [String], rating: Int? = nil, title: String? = nil, gps: (String, String)? = nil)
        -> Data
    {
        var attributes = ""
        if let rating { attributes += " xmp:Rating=\"\(rating)\"" }
        if let gps { attributes += " exif:GPSLatitude=\"\(gps.0)\" exif:GPSLongitude=\"\(gps.1)\"" }
        let bag = subjects.map { "<rdf:li>\($0)</rdf:li>" }.joined()
        let titleXML = title.map {
            "<dc:title><rdf:Alt><rdf:li xml:lang=\"x-default\">\($0)</rdf:li></rdf:Alt></dc:title>"
        }
        return Data(
            ("<x:xmpmeta xmlns:x=\"adobe:ns:meta/\"><rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\">"
                + "<rdf:Description rdf:about=\"\" xmlns:dc=\"http://purl.org/dc/elements/1.1/\""
                + " xmlns:xmp=\"http://ns.adobe.com/xap/1.0/\" xmlns:exif=\"http://ns.adobe.com/exif/1.0/\""
                + attributes + "><dc:subject><rdf:Bag>" + bag + "</rdf:Bag></dc:subject>" + (titleXML ?? "")
                + "</rdf:Description></rdf:RDF></x:xmpmeta>").utf8)
    }

    /// The one photo's tag names (sorted), anonymous ratings, latitude (e7) and title.
    func metadata(_ lib: String) throws -> (tags: [String], ratings: [String], latitudeE7: String?, title: String?) {
        let c = try TestCatalog(root: lib, readOnly: true)
        XCTAssertEqual(try c.scalarInt("SELECT count(*) FROM photo"), 1)
        let tags = try c.rows(
            "SELECT t.name FROM photo_tag pt JOIN tag t ON t.id = pt.tag_id ORDER BY t.name"
        ).map { $0[0] ?? "" }
        let ratings = try c.rows("SELECT value FROM rating WHERE author IS NULL ORDER BY value").map { $0[0] ?? "" }
        let photo = try XCTUnwrap(try c.rows("SELECT latitude_e7, title FROM photo").first)
        return (tags, ratings, photo[0], photo[1])
    }

    func testAStillTakingOverBringsItsSidecarWithoutReplacingTheRAWs() throws {
        let lib = dir + "/lib", peer = dir + "/peer"
        let src = try folder(
            "card", ["IMG_1234.CR2": try dng(), "IMG_1234.CR2.xmp": sidecar(["Bird"], rating: 3)])
        XCTAssertEqual(try importJSON(lib, [src])["imported"], 1)
        _ = try ok(peer, ["init"])
        _ = try ok(peer, ["sync", "--from", lib])
        try folder(
            "card",
            [
                "IMG_1234.JPG": try jpeg(),
                "IMG_1234.JPG.xmp": sidecar(
                    ["Heron", "Bird"], rating: 5, title: "Heron at dawn", gps: ("43,36.0000N", "1,26.4000E"))
            ])
        XCTAssertEqual(try importJSON(lib, [src])["joined"], 1)
        let after = try metadata(lib)
        XCTAssertEqual(after.tags, ["Bird", "Heron"], "the union, Bird once")
        XCTAssertEqual(after.ratings, ["3"], "the RAW's rating stays; the JPEG's does not replace it")
        XCTAssertEqual(after.latitudeE7, "436000000", "43°36′ N, the JPEG's position: the photo had none")
        XCTAssertEqual(after.title, "Heron at dawn")
        // Recorded in history: a peer syncing gets the same.
        _ = try ok(peer, ["sync", "--from", lib])
        let there = try metadata(peer)
        XCTAssertEqual(there.tags, after.tags)
        XCTAssertEqual(there.ratings, after.ratings)
        XCTAssertEqual(there.latitudeE7, after.latitudeE7)
        XCTAssertEqual(there.title, after.title)
        // Read once: refreshing finds nothing left to apply, and removes nothing.
        _ = try ok(lib, ["import", "-q", "--refresh-metadata", src])
        XCTAssertEqual(try metadata(lib).tags, ["Bird", "Heron"])
    }

    func testARAWJoiningBringsItsTagsAndRatingToTheJPEGsPhoto() throws {
        let lib = dir + "/lib"
        let first = try folder("a", ["IMG_1234.JPG": try jpeg(), "IMG_1234.JPG.xmp": sidecar(["Heron"])])
        XCTAssertEqual(try importJSON(lib, [first])["imported"], 1)
        XCTAssertEqual(try metadata(lib).ratings, [])
        let later = try folder(
            "b",
            [
                "IMG_1234.CR2": try dng(),
                "IMG_1234.xmp": sidecar(["Wader"], rating: 4, gps: ("10,0.0000S", "20,0.0000W"))
            ]
        )
        XCTAssertEqual(try importJSON(lib, [later])["joined"], 1)
        let after = try metadata(lib)
        XCTAssertEqual(after.tags, ["Heron", "Wader"])
        XCTAssertEqual(after.ratings, ["4"], "the photo had no rating: the RAW's")
        XCTAssertEqual(after.latitudeE7, "-100000000")
        XCTAssertNil(after.title)
    }

    /// In one batch too: the RAW's own sidecar (darktable's `IMG_1234.CR2.xmp`) and its
    /// container name reach the pair's photo; where the still says something, the still's wins.
    func testInOneBatchTheRAWsOwnSidecarReachesThePairsPhoto() throws {
        let lib = dir + "/lib"
        let rawOnly = dir + "/raw-only"
        _ = try ok(rawOnly, ["import", "-q", try folder("raw-only-src", ["IMG_9.CR2": try dng()])])
        let rawFormat = try TestCatalog(root: rawOnly, readOnly: true).scalarString("SELECT camera_format FROM photo")
        XCTAssertNotNil(rawFormat)
        let src = try folder(
            "card",
            [
                "IMG_1234.CR2": try dng(), "IMG_1234.CR2.xmp": sidecar(["Bird"], rating: 4, title: "Grey heron"),
                "IMG_1234.JPG": try jpeg(), "IMG_1234.JPG.xmp": sidecar(["Heron"])
            ])
        let counts = try importJSON(lib, [src])
        XCTAssertEqual([counts["imported"], counts["paired"]], [1, 1])
        let pair = try metadata(lib)
        XCTAssertEqual(pair.tags, ["Bird", "Heron"])
        XCTAssertEqual(pair.ratings, ["4"], "the still has no rating: the RAW's")
        XCTAssertEqual(pair.title, "Grey heron")
        XCTAssertEqual(
            try TestCatalog(root: lib, readOnly: true).scalarString("SELECT camera_format FROM photo"), rawFormat,
            "the RAW's container name")
        // Refreshing both files reads each half again: neither half's keywords unlink the other's.
        let refresh = try ok(lib, ["--json", "import", "--refresh-metadata", src])
        let changes = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(refresh.utf8)) as? [String: Any])
        XCTAssertEqual((changes["metadataChanges"] as? [Any])?.count, 0, refresh)
        XCTAssertEqual(try metadata(lib).tags, ["Bird", "Heron"])
        XCTAssertEqual(try metadata(lib).ratings, ["4"])
        // The still's own rating wins over its RAW's.
        let lib2 = dir + "/lib2"
        let both = try folder(
            "card2",
            [
                "IMG_1234.CR2": try dng(), "IMG_1234.CR2.xmp": sidecar(["Bird"], rating: 4),
                "IMG_1234.JPG": try jpeg(), "IMG_1234.JPG.xmp": sidecar(["Heron"], rating: 2, title: "Heron")
            ])
        XCTAssertEqual(try importJSON(lib2, [both])["paired"], 1)
        let second = try metadata(lib2)
        XCTAssertEqual([second.ratings, [second.title ?? ""]], [["2"], ["Heron"]])
    }
}
