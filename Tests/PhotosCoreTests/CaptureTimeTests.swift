import Foundation
import XCTest
import PhotosTestSupport
import PhotosImaging
import PhotosSQLite
@testable import PhotosCore

/// Issue 9 item 6: the capture time is the local wall-clock time with an optional offset,
/// never a made-up UTC.
final class CaptureTimeTests: XCTestCase {
    var tmp: TempDir!
    override func setUpWithError() throws { tmp = try TempDir() }
    override func tearDown() { tmp.cleanup() }

    // MARK: values

    func testEXIFValues() {
        XCTAssertEqual(
            CaptureTime.fromEXIF("2024:12:31 23:30:00", offset: "-05:00", source: "exif")?.iso,
            "2024-12-31T23:30:00-05:00")
        XCTAssertEqual(
            CaptureTime.fromEXIF("2024:12:31 23:30:00", offset: nil, source: "exif")?.iso, "2024-12-31T23:30:00")
        XCTAssertEqual(
            CaptureTime.fromEXIF("2024:06:01 08:00:00", offset: "+05:45", source: "exif")?.offsetMinutes, 345)
        XCTAssertEqual(
            CaptureTime.fromEXIF("2024:06:01 08:00:00", offset: "+00:00", source: "exif")?.iso,
            "2024-06-01T08:00:00+00:00")
        XCTAssertEqual(
            CaptureTime.fromEXIF("2024:12:31 23:30:00", subSeconds: "5", offset: nil, source: "exif")?.local,
            "2024-12-31T23:30:00.500")
        XCTAssertEqual(
            CaptureTime.fromEXIF("2024:12:31 23:30:00", subSeconds: "0123", offset: nil, source: "exif")?.local,
            "2024-12-31T23:30:00.012")
        XCTAssertEqual(
            CaptureTime.fromEXIF("2024:12:31 23:30:00", subSeconds: "000", offset: nil, source: "exif")?.local,
            "2024-12-31T23:30:00")
        XCTAssertNil(
            CaptureTime.fromEXIF("2024:12:31 23:30:00", offset: "-25:00", source: "exif")?.offsetMinutes,
            "an impossible offset is unknown")
        XCTAssertNil(CaptureTime.fromEXIF("2024:12:31 23:30:00", offset: "   :  ", source: "exif")?.offsetMinutes)
        XCTAssertNil(CaptureTime.fromEXIF("0000:00:00 00:00:00", offset: nil, source: "exif"))
        XCTAssertNil(CaptureTime.fromEXIF("2023:02:29 10:00:00", offset: nil, source: "exif"), "no 29 February in 2023")
        XCTAssertNotNil(CaptureTime.fromEXIF("2024:02:29 10:00:00", offset: nil, source: "exif"))
        XCTAssertNil(CaptureTime.fromEXIF("2024:12:31 24:00:00", offset: nil, source: "exif"))
        XCTAssertNil(CaptureTime.fromEXIF("    :  :     :  :  ", offset: nil, source: "exif"))
        XCTAssertNil(CaptureTime.fromEXIF("garbage", offset: nil, source: "exif"))
    }

    func testXMPDateValues() {
        XCTAssertEqual(
            CaptureTime.fromISO("2024-12-31T23:30:00-05:00", source: "xmp")?.iso, "2024-12-31T23:30:00-05:00")
        XCTAssertEqual(CaptureTime.fromISO("2024-12-31T23:30-05:00", source: "xmp")?.iso, "2024-12-31T23:30:00-05:00")
        XCTAssertEqual(
            CaptureTime.fromISO("2024-12-31T23:30:00.25Z", source: "xmp")?.iso, "2024-12-31T23:30:00.250+00:00")
        XCTAssertEqual(CaptureTime.fromISO("2024-12-31T23:30:00", source: "xmp")?.iso, "2024-12-31T23:30:00")
        XCTAssertEqual(CaptureTime.fromISO("2024-12-31", source: "xmp")?.iso, "2024-12-31T00:00:00")
        XCTAssertNil(CaptureTime.fromISO("2024", source: "xmp"), "a year alone is no capture time")
        XCTAssertNil(CaptureTime.fromISO("2024-12", source: "xmp"))
        XCTAssertNil(CaptureTime.fromISO("2024-12-31T23:30:00+5", source: "xmp"))
    }

    func testInstantsAndTemplates() throws {
        XCTAssertEqual(
            CaptureTime(local: "2024-12-31T23:30:00", offsetMinutes: -300, source: "exif").instant, 1_735_705_800)
        XCTAssertEqual(
            CaptureTime(local: "2024-06-01T08:00:00", offsetMinutes: 345, source: "exif").instant, 1_717_208_100)
        XCTAssertEqual(
            ExportNaming.strftime("%Y/%m/%d %H:%M %z", iso: "2024-12-31T23:30:00-05:00"), "2024/12/31 23:30 -0500")
        XCTAssertEqual(ExportNaming.strftime("%Y-%j %a", iso: "2024-12-31T23:30:00"), "2024-366 Tue")
        XCTAssertEqual(ExportNaming.strftime("%Y", iso: "2026-01-02T03:04:05Z"), "2026")
        XCTAssertEqual(ExportNaming.strftime("%Y", iso: "garbage"), "unknown-date")
        XCTAssertFalse(
            ExportNaming.strftime("%Z", iso: "2024-12-31T23:30:00").contains("unknown"),
            "a zone name is asked for without crashing")
    }

    func testBounds() {
        XCTAssertEqual(CaptureBound.parse("2024-12-31"), CaptureBound(local: "2024-12-31T00:00:00", offsetMinutes: nil))
        XCTAssertEqual(
            CaptureBound.parse("2024-12-31", endOfDay: true),
            CaptureBound(local: "2025-01-01T00:00:00", offsetMinutes: nil))
        XCTAssertEqual(CaptureBound.parse("2024-02-28", endOfDay: true)?.local, "2024-02-29T00:00:00")
        XCTAssertEqual(CaptureBound.parse("2024-12-31T12:00", endOfDay: true)?.local, "2024-12-31T12:00:00")
        XCTAssertEqual(CaptureBound.parse("2025-01-01T00:00:00Z")?.utcText, "2025-01-01T00:00:00.000")
        XCTAssertEqual(CaptureBound.parse("2025-01-01T00:00:00+02:00")?.utcText, "2024-12-31T22:00:00.000")
        XCTAssertNil(CaptureBound.parse("someday")) // "yesterday" is a relative date (issue 32 item 7)
        XCTAssertNil(CaptureBound.parse("2024-13-01"))
    }

    // MARK: import, list, export

    /// Imports `files` (name → bytes) and returns the library and its photos by displayName.
    func importFiles(_ files: [String: [UInt8]], mtimes: [String: Int] = [:]) throws -> (Library, [String: PhotoRecord])
    {
        for (name, bytes) in files {
            let path = try tmp.write("in/" + name, bytes)
            if let m = mtimes[name] {
                var times = [timespec(tv_sec: m, tv_nsec: 0), timespec(tv_sec: m, tv_nsec: 0)]
                XCTAssertEqual(utimensat(AT_FDCWD, path, &times, 0), 0)
            }
        }
        let library = try Library(root: tmp.file("lib"), create: true)
        let summary = try Importer(
            library: library, libraryRoot: tmp.file("lib"), options: ImportOptions(paths: [tmp.file("in")])
        ).run()
        XCTAssertEqual(summary.failed, 0, "\(summary.failures)")
        var photos: [String: PhotoRecord] = [:]
        try library.forEachPhoto(matching: PhotoFilter()) { photos[$0.displayName] = $0 }
        return (library, photos)
    }

    func row(_ library: Library, _ name: String) throws -> [String] {
        try XCTUnwrap(
            library.catalog.statement(
                "SELECT capture_date, capture_offset, capture_source FROM photo WHERE display_name = ?"
            )
            .first([name]) { row in
                // As SQLite's quote(): NULL, an integer, or text in single quotes.
                [row.string(0), row.optionalString(1) ?? "NULL", row.optionalString(2).map { "'\($0)'" } ?? "NULL"]
            })
    }

    func exifJPEG(_ seed: Int, _ tags: [Int: String], ifd0: [Int: String] = [:]) throws -> [UInt8] {
        try MetadataFixture.jpeg(seed: seed, segments: [MetadataFixture.exifSegment(ifd0: ifd0, exif: tags)])
    }

    func testTheIssueExampleStaysOn31December() throws {
        let (library, photos) = try importFiles([
            "ny.jpg": try exifJPEG(1, [0x9003: "2024:12:31 23:30:00", 0x9011: "-05:00"]),
            "plain.jpg": try exifJPEG(2, [0x9003: "2024:12:31 23:30:00"]),
            "nepal.jpg": try exifJPEG(3, [0x9003: "2024:06:01 08:00:00", 0x9011: "+05:45"]),
            "sub.jpg": try exifJPEG(4, [0x9003: "2024:05:05 05:05:05", 0x9291: "42"]),
            "digitized.jpg": try exifJPEG(5, [0x9004: "2020:01:02 03:04:05", 0x9012: "+01:00"]),
            "changed.jpg": try exifJPEG(6, [:], ifd0: [0x0132: "2019:07:08 09:10:11"])
        ])
        XCTAssertEqual(try row(library, "ny.jpg"), ["2024-12-31T23:30:00", "-300", "'exif'"])
        XCTAssertEqual(photos["ny.jpg"]?.captureDate, "2024-12-31T23:30:00-05:00")
        XCTAssertEqual(try row(library, "plain.jpg"), ["2024-12-31T23:30:00", "NULL", "'exif'"])
        XCTAssertEqual(photos["plain.jpg"]?.captureDate, "2024-12-31T23:30:00")
        XCTAssertEqual(try row(library, "nepal.jpg"), ["2024-06-01T08:00:00", "345", "'exif'"])
        XCTAssertEqual(photos["nepal.jpg"]?.captureDate, "2024-06-01T08:00:00+05:45")
        XCTAssertEqual(photos["sub.jpg"]?.captureDate, "2024-05-05T05:05:05.420")
        XCTAssertEqual(try row(library, "digitized.jpg"), ["2020-01-02T03:04:05", "60", "'exif-digitized'"])
        XCTAssertEqual(try row(library, "changed.jpg"), ["2019-07-08T09:10:11", "NULL", "'exif-datetime'"])
        let ny = try XCTUnwrap(photos["ny.jpg"])
        XCTAssertEqual(
            ny.json.serialized().contains(
                "\"captureDate\":\"2024-12-31T23:30:00-05:00\",\"captureOffset\":-300,\"captureSource\":\"exif\""),
            true, ny.json.serialized())

        func names(_ since: String?, _ until: String?) throws -> [String] {
            var filter = PhotoFilter()
            filter.since = since.flatMap { CaptureBound.parse($0) }
            filter.until = until.flatMap { CaptureBound.parse($0, endOfDay: true) }
            var out: [String] = []
            try library.forEachPhoto(matching: filter) { out.append($0.displayName) }
            return out
        }
        // The same local time: ties are ordered by uniqueName (random), so compared sorted.
        XCTAssertEqual(try names("2024-12-31", nil).sorted(), ["ny.jpg", "plain.jpg"])
        XCTAssertEqual(try names("2025-01-01", nil), [])
        XCTAssertEqual(try names(nil, "2024-12-31").suffix(2).sorted(), ["ny.jpg", "plain.jpg"])
        XCTAssertEqual(try names(nil, "2024-12-30").count, 4)
        XCTAssertEqual(try names("2024-12-31T23:30:00", "2024-12-31T23:30:01").sorted(), ["ny.jpg", "plain.jpg"])
        // An instant: ny.jpg was taken at 2025-01-01T04:30Z; plain.jpg (offset unknown) is read in the bound's zone.
        XCTAssertEqual(try names("2025-01-01T00:00:00Z", nil), ["ny.jpg"])
        XCTAssertEqual(
            try names("2024-12-31T23:30:00-05:00", "2024-12-31T23:30:01-05:00").sorted(), ["ny.jpg", "plain.jpg"])
        // Sorting by local time (nepal.jpg's 08:00+05:45 is 02:15Z, still 1 June).
        let all = try names(nil, nil)
        XCTAssertEqual(Array(all.prefix(4)), ["changed.jpg", "digitized.jpg", "sub.jpg", "nepal.jpg"])
        XCTAssertEqual(all.suffix(2).sorted(), ["ny.jpg", "plain.jpg"])

        let template = try ExportNameTemplate(parsing: "{capture:%Y}/{capture:%m-%d}/{name}")
        XCTAssertEqual(template.render(ny), "2024/12-31/ny.jpg")
        XCTAssertEqual(template.render(try XCTUnwrap(photos["nepal.jpg"])), "2024/06-01/nepal.jpg")
    }

    func testNoEXIFDateFallsBackToTheFilesModificationTime() throws {
        let mtime = 1_700_000_000
        let (library, photos) = try importFiles(
            [
                "plain.png": MetadataFixture.png(xmp: nil),
                "side.jpg": try MetadataFixture.jpeg(seed: 8),
                "side.jpg.xmp": Array(
                    MetadataFixture.packet(extra: "photoshop:DateCreated=\"2021-03-04T05:06:07+09:00\"").utf8),
                "embedded.png": MetadataFixture.png(
                    xmp: MetadataFixture.packet(extra: "photoshop:DateCreated=\"2022-02-02T02:02:02\""), seed: 3)
            ], mtimes: ["plain.png": mtime])
        var t = time_t(mtime)
        var tm = tm()
        localtime_r(&t, &tm)
        let local = String(
            format: "%04d-%02d-%02dT%02d:%02d:%02d", Int(tm.tm_year) + 1900, Int(tm.tm_mon) + 1, Int(tm.tm_mday),
            Int(tm.tm_hour), Int(tm.tm_min), Int(tm.tm_sec))
        XCTAssertEqual(try row(library, "plain.png"), [local, String(Int(tm.tm_gmtoff) / 60), "'file-mtime'"])
        XCTAssertEqual(photos["plain.png"]?.captureInstant, Double(mtime))
        XCTAssertEqual(try row(library, "side.jpg"), ["2021-03-04T05:06:07", "540", "'xmp'"])
        XCTAssertEqual(try row(library, "embedded.png"), ["2022-02-02T02:02:02", "NULL", "'xmp'"])
    }

    /// An EXIF time without offset takes the offset of an XMP date naming the same second; a
    /// different XMP time does not lend its offset. Date tags misplaced in IFD0 are read.
    func testEXIFTakesTheOffsetOfTheSameXMPTime() throws {
        let same = try MetadataFixture.jpeg(
            seed: 1,
            segments: [
                MetadataFixture.exifSegment(exif: [0x9003: "2024:12:31 23:30:00"]),
                MetadataFixture.xmpSegment(
                    MetadataFixture.packet(extra: "photoshop:DateCreated=\"2024-12-31T23:30:00-05:00\""))
            ])
        let other = try MetadataFixture.jpeg(
            seed: 2,
            segments: [
                MetadataFixture.exifSegment(exif: [0x9003: "2024:12:31 23:30:00"]),
                MetadataFixture.xmpSegment(
                    MetadataFixture.packet(extra: "photoshop:DateCreated=\"2024-12-31T20:30:00-08:00\""))
            ])
        let misplaced = try MetadataFixture.jpeg(
            seed: 3,
            segments: [
                MetadataFixture.exifSegment(ifd0: [0x9003: "2023:03:03 03:03:03", 0x9011: "+09:00"], exif: [:])
            ])
        let (library, _) = try importFiles(["same.jpg": same, "other.jpg": other, "misplaced.jpg": misplaced])
        XCTAssertEqual(try row(library, "same.jpg"), ["2024-12-31T23:30:00", "-300", "'exif'"])
        XCTAssertEqual(try row(library, "other.jpg"), ["2024-12-31T23:30:00", "NULL", "'exif'"])
        XCTAssertEqual(try row(library, "misplaced.jpg"), ["2023-03-03T03:03:03", "540", "'exif'"])
    }

    func testExportSetsModificationTimesAndUpdateStillSkips() throws {
        let (library, _) = try importFiles([
            "ny.jpg": try exifJPEG(1, [0x9003: "2024:12:31 23:30:00", 0x9011: "-05:00"]),
            "plain.jpg": try exifJPEG(2, [0x9003: "2024:12:31 23:30:00"]),
            "nepal.jpg": try exifJPEG(3, [0x9003: "2024:06:01 08:00:00", 0x9011: "+05:45"])
        ])
        var options = ExportOptions(destination: tmp.file("out"))
        options.thumbnails = true
        let first = try Exporter(library: library, options: options).run()
        XCTAssertEqual(first.written, 3)
        func mtime(_ name: String) throws -> Double {
            var st = stat()
            XCTAssertEqual(lstat(tmp.file("out/" + name), &st), 0, name)
            return Double(st.st_mtim.tv_sec) + Double(st.st_mtim.tv_nsec) / 1e9
        }
        // Unknown offset: the wall-clock time read in this machine's time zone (mktime).
        var local = tm()
        local.tm_year = 124; local.tm_mon = 11; local.tm_mday = 31; local.tm_hour = 23; local.tm_min = 30;
        local.tm_isdst = -1
        let plainInstant = Double(mktime(&local))
        XCTAssertEqual(try mtime("ny.jpg"), 1_735_705_800)
        XCTAssertEqual(try mtime("ny.jpg.xmp"), 1_735_705_800)
        XCTAssertEqual(try mtime("nepal.jpg"), 1_717_208_100)
        XCTAssertEqual(try mtime("nepal.jpg.xmp"), 1_717_208_100)
        XCTAssertEqual(try mtime("plain.jpg"), plainInstant)
        XCTAssertEqual(try mtime("plain.jpg.xmp"), plainInstant)
        options.update = true
        let second = try Exporter(library: library, options: options).run()
        XCTAssertEqual([second.written, second.updated, second.skipped, Int(second.bytes)], [0, 0, 3, 0])
        XCTAssertEqual(try mtime("ny.jpg"), 1_735_705_800)
    }

    func testMergeCarriesTheCaptureColumns() throws {
        let (source, _) = try importFiles(["ny.jpg": try exifJPEG(1, [0x9003: "2024:12:31 23:30:00", 0x9011: "-05:00"])]
        )
        let target = try Library(root: tmp.file("lib2"), create: true)
        _ = try target.merge(from: source)
        XCTAssertEqual(try row(target, "ny.jpg"), ["2024-12-31T23:30:00", "-300", "'exif'"])
    }

    /// Migration 2 keeps a version-1 row's wall-clock value, offset unknown, source exif.
    func testMigrationFromVersion1() throws {
        try TestDatabase.requireSQLite(because: "a version-1 photos.sqlite migrated by the SQLite schema code")
        let path = tmp.file("v1.sqlite")
        let db = try Database(path: path)
        try db.migrate(to: 1)
        try db.run(
            "INSERT INTO photo (unique_name, display_name, imported_at, capture_date, width, height, format, zone_id) VALUES ('a', 'a.jpg', '2025-01-01T00:00:00Z', '2024-12-31T23:30:00Z', 1, 1, 'jpeg', 'default')"
        )
        try db.run(
            "INSERT INTO photo (unique_name, display_name, imported_at, capture_date, width, height, format, zone_id) VALUES ('b', 'b.png', '2025-01-01T00:00:00Z', NULL, 1, 1, 'png', 'default')"
        )
        XCTAssertEqual(try db.migrate(), 1)
        XCTAssertEqual(try db.userVersion, Schema.currentVersion)
        let rows = try db.statement(
            "SELECT unique_name, quote(capture_date), quote(capture_offset), quote(capture_source) FROM photo ORDER BY unique_name"
        )
        .map { [$0.string(0), $0.string(1), $0.string(2), $0.string(3)] }
        XCTAssertEqual(rows, [["a", "'2024-12-31T23:30:00'", "NULL", "'exif'"], ["b", "NULL", "NULL", "NULL"]])
        XCTAssertThrowsError(try db.run("UPDATE photo SET capture_offset = 5000"), "offsets beyond ±18:00 are refused")
    }
}
