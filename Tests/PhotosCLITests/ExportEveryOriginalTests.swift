import Foundation
import PhotosImaging
import PhotosSQLite
import PhotosTestSupport
import XCTest

/// `photos export` writes every original of a photo (issue 24 item 2): a RAW+JPEG pair's RAW goes
/// beside its JPEG under the same stem (`IMG_1234.JPG` + `IMG_1234.DNG`), byte for byte, recorded
/// in the export state as `raw`, kept by `--update`, rewritten when damaged, removed by
/// `--cleanup`, listed by `--dry-run`, checked by `--check-hashes`, and never written over a file
/// that is not the export's (the pair then takes the next name, both halves together). The
/// export imports back as the same pair. Before, export wrote the primary alone and every RAW of
/// a paired library was lost on export. On both backends (`PHOTOS_TEST_DATABASE_URL`).
final class ExportEveryOriginalTests: BinaryTestCase {
    override var label: String { "photos-export-every-original" }

    static let date = "2024:05:01 12:00:00"

    /// A 40×30 DNG (named `.CR2` on the card: RAW is found by content, and its container is "dng").
    func dng() throws -> Data {
        var rgb: [UInt8] = []
        for y in 0..<30 { for x in 0..<40 { rgb += [UInt8(x * 6), UInt8(y * 8), 128] } }
        return Data(
            DNGWriter.make(
                image: try PixelBuffer(width: 40, height: 30, rgb: rgb), preview: nil, dateTime: Self.date))
    }

    /// A library holding one RAW+JPEG pair (`IMG_1234.CR2` + `IMG_1234.JPG`); returns the library
    /// and the two files' bytes.
    func pairedLibrary() throws -> (lib: String, raw: Data, still: Data) {
        let (raw, still) = (try dng(), try stormJPEG(date: Self.date, offset: nil))
        let card = dir + "/card"
        try FileManager.default.createDirectory(atPath: card, withIntermediateDirectories: true)
        XCTAssertTrue(FileManager.default.createFile(atPath: card + "/IMG_1234.CR2", contents: raw))
        XCTAssertTrue(FileManager.default.createFile(atPath: card + "/IMG_1234.JPG", contents: still))
        let lib = dir + "/lib"
        let out = try ok(lib, ["import", card])
        XCTAssertTrue(out.hasPrefix("Imported 1 photo (1 RAW+JPEG pair as one photo each)"), out)
        return (lib, raw, still)
    }

    func exportJSON(_ lib: String, _ args: [String], file: StaticString = #filePath, line: UInt = #line) throws
        -> [String: Int]
    {
        let out = try ok(lib, ["--json", "export"] + args, file: file, line: line)
        return try json(out).compactMapValues { $0 as? Int }
    }

    /// The export state's rows as `path kind`, by path.
    func stateRows(_ dest: String) throws -> [String] {
        let db = try Database(path: dest + "/.photos-export.sqlite", readOnly: true)
        return try db.statement("SELECT path, kind FROM export_file ORDER BY path").map {
            $0.string(0) + " " + $0.string(1)
        }
    }

    func data(_ path: String) -> Data? { FileManager.default.contents(atPath: path) }

    func testThePairsRAWIsExportedBesideItsJPEGAndKeptByUpdate() throws {
        let (lib, raw, still) = try pairedLibrary()
        let dest = dir + "/out"
        let first = try exportJSON(lib, [dest])
        XCTAssertEqual([first["written"], first["failed"]], [1, 0])
        XCTAssertEqual(filesUnder(dest), ["IMG_1234.DNG", "IMG_1234.JPG", "IMG_1234.JPG.xmp"])
        XCTAssertEqual(data(dest + "/IMG_1234.DNG"), raw, "the RAW byte for byte")
        XCTAssertEqual(data(dest + "/IMG_1234.JPG"), still)
        XCTAssertEqual(first["bytes"].map { $0 > raw.count + still.count }, true, "\(first)")
        XCTAssertEqual(
            try stateRows(dest), ["IMG_1234.DNG raw", "IMG_1234.JPG original", "IMG_1234.JPG.xmp xmp"])
        // The RAW has the photo's capture time as its modification time, as the JPEG has.
        let times = try ["IMG_1234.DNG", "IMG_1234.JPG"].map {
            try XCTUnwrap(FileManager.default.attributesOfItem(atPath: dest + "/" + $0)[.modificationDate] as? Date)
        }
        XCTAssertEqual(times[0], times[1])

        let again = try exportJSON(lib, ["--update", dest])
        XCTAssertEqual([again["written"], again["updated"], again["skipped"]], [0, 0, 1])

        // A damaged RAW in DEST is rewritten by --update; the JPEG is left as it is.
        var damaged = raw
        damaged[damaged.count / 2] ^= 0xFF
        XCTAssertTrue(FileManager.default.createFile(atPath: dest + "/IMG_1234.DNG", contents: damaged))
        let mended = try exportJSON(lib, [dest])
        XCTAssertEqual([mended["written"], mended["updated"], mended["skipped"]], [0, 1, 0], "\(mended)")
        XCTAssertEqual(data(dest + "/IMG_1234.DNG"), raw)
        // A RAW removed from DEST comes back.
        XCTAssertEqual(unlink(dest + "/IMG_1234.DNG"), 0)
        let back = try exportJSON(lib, ["--update", dest])
        XCTAssertEqual(back["updated"], 1, "\(back)")
        XCTAssertEqual(data(dest + "/IMG_1234.DNG"), raw)
    }

    func testTheExportImportsBackAsTheSamePair() throws {
        let (lib, raw, still) = try pairedLibrary()
        let dest = dir + "/out"
        _ = try exportJSON(lib, [dest])
        let lib2 = dir + "/lib2"
        let out = try ok(lib2, ["import", dest])
        XCTAssertTrue(out.hasPrefix("Imported 1 photo (1 RAW+JPEG pair as one photo each)"), out)
        for library in [lib, lib2] {
            let c = try TestCatalog(root: library, readOnly: true)
            XCTAssertEqual(
                try c.rows("SELECT role, sha256 FROM photo_data ORDER BY role").map {
                    ($0[0] ?? "") + ":" + ($0[1] ?? "")
                },
                ["primary:" + sha(still), "raw:" + sha(raw)], library)
            XCTAssertEqual(try c.scalarString("SELECT camera_format FROM photo"), "dng", library)
        }
    }

    func testAFileThatIsNotTheExportsOnTheRAWsNameMovesThePairToTheNextName() throws {
        let (lib, raw, still) = try pairedLibrary()
        let dest = dir + "/out"
        try FileManager.default.createDirectory(atPath: dest, withIntermediateDirectories: true)
        let foreign = Data("someone else's file".utf8)
        XCTAssertTrue(FileManager.default.createFile(atPath: dest + "/IMG_1234.DNG", contents: foreign))
        let result = try exportJSON(lib, [dest])
        XCTAssertEqual([result["written"], result["failed"]], [1, 0])
        XCTAssertEqual(data(dest + "/IMG_1234.DNG"), foreign, "left as it was")
        XCTAssertEqual(data(dest + "/IMG_1234 (1).JPG"), still)
        XCTAssertEqual(data(dest + "/IMG_1234 (1).DNG"), raw)
        XCTAssertNil(data(dest + "/IMG_1234.JPG"), "the JPEG went with its RAW")
    }

    func testDryRunListsTheRAWAndCleanupRemovesIt() throws {
        let (lib, _, _) = try pairedLibrary()
        let dest = dir + "/out"
        let dry = try ok(lib, ["export", "--dry-run", dest])
        XCTAssertTrue(dry.contains("IMG_1234.DNG"), dry)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dest))
        _ = try exportJSON(lib, [dest])
        // Once the photo is no longer selected, --cleanup removes every file it had.
        let cleaned = try exportJSON(lib, ["--cleanup", "--min-rating", "5", dest])
        XCTAssertEqual(cleaned["removed"], 3, "\(cleaned)")
        XCTAssertEqual(filesUnder(dest), [])
        XCTAssertEqual(try stateRows(dest), [])
    }

    func testCheckHashesRefusesADamagedRAWInTheLibrary() throws {
        let (lib, raw, _) = try pairedLibrary()
        let listed = try XCTUnwrap(try listedByDisplayName(lib)["IMG_1234.JPG"])
        let originals = try XCTUnwrap(listed["originals"] as? [[String: Any]], "\(listed)")
        let rawPath = try XCTUnwrap(originals.first { $0["role"] as? String == "raw" }?["path"] as? String)
        let inLibrary = lib + "/" + rawPath
        XCTAssertEqual(data(inLibrary), raw)
        var damaged = raw
        damaged[damaged.count / 2] ^= 0xFF
        chmod(inLibrary, 0o644)
        XCTAssertTrue(FileManager.default.createFile(atPath: inLibrary, contents: damaged))
        let dest = dir + "/out"
        let r = try run(["--library", lib, "--json", "export", "--check-hashes", dest])
        XCTAssertNotEqual(r.status, 0, r.stdout)
        XCTAssertTrue(r.stderr.contains("IMG_1234"), r.stderr)
        XCTAssertEqual(try json(r.stdout)["failed"] as? Int, 1, r.stdout)
        XCTAssertNil(data(dest + "/IMG_1234.DNG"), "a damaged RAW is not exported")
        XCTAssertNil(data(dest + "/IMG_1234.JPG"), "nor is its JPEG: a photo is exported whole or not at all")
        XCTAssertFalse(try stateRows(dest).contains("IMG_1234.DNG raw"))
    }

    func sha(_ data: Data) -> String {
        let path = dir + "/sha-" + UUID().uuidString
        _ = FileManager.default.createFile(atPath: path, contents: data)
        return sha256(ofFile: path)
    }
}
