import Foundation
import PhotosSQLite
import PhotosTestSupport
import XCTest

@testable import PhotosCore

/// Issue 31 A11: what an export's plan keeps across pages (the names taken so far, and the
/// paths `--cleanup` keeps) is about 22 bytes a name (`NameFingerprints`), not the ~140 of a
/// `Set<String>`: an export of 1,000,000 photos with XMP sidecars holds ~44 MB of names (the
/// strings ~280 MB), under the 200 MB bound. Measured here as the growth of this process's
/// resident set while 200,000 photos are planned page by page (400,000 names): 8.7 MB, where
/// the `Set<String>` of names took 56 MB (this test fails with it).
final class ExportPlanMemoryTests: TemporaryFolderTestCase {
    override var label: String { "photos-plan-memory" }

    /// VmRSS of this process, kilobytes (/proc/self/status).
    private func residentKB() throws -> Int {
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        let line = try XCTUnwrap(status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") })
        return try XCTUnwrap(Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]))
    }

    private func photo(_ n: Int) -> PhotoRecord {
        let unique = String(format: "0A1B2C3D-0000-4000-8000-%012d", n)
        return PhotoRecord(
            rowID: Int64(n), uniqueName: unique, displayName: "IMG_\(n)_holiday_at_the_sea.jpg",
            sha256: String(repeating: "a", count: 64), byteSize: 1, fileReference: "aa/aa", format: .jpeg,
            width: 1, height: 1, orientation: .up, captureDate: nil, importedAt: "2026-01-02T03:04:05Z",
            thumbnailWidth: 1, thumbnailHeight: 1, tags: [], ratings: [], zone: "default", scope: .private)
    }

    func testNamesTakenAcrossPagesStayBoundedAndStillCollide() throws {
        var planner = Planner(
            root: dir + "/dest", state: nil, trustState: false,
            companionKinds: Planner.companionKinds(sidecar: .xmp, thumbnails: false))
        let template = try ExportNameTemplate(parsing: "{name}")
        let photos = 200_000
        let before = try residentKB()
        var planned = 0
        for first in stride(from: 0, to: photos, by: 1000) {
            let plan = planner.plan((first..<first + 1000).map(photo), template: template)
            XCTAssertTrue(plan.failures.isEmpty)
            planned += plan.items.count
        }
        let grown = try residentKB() - before
        XCTAssertEqual(planned, photos)
        XCTAssertEqual(planner.taken.count, 2 * photos, "an original and its sidecar a photo, all distinct")
        print("resident growth while planning \(photos) photos: \(grown) KB")
        XCTAssertLessThan(grown, 16 * 1024, "the names taken grew the process by \(grown) KB")

        // Names taken on an earlier page still collide: the same display name again takes " (1)".
        let again = planner.plan([photo(7)], template: template)
        XCTAssertEqual(again.items.map(\.path), ["IMG_7_holiday_at_the_sea (1).jpg"])
        // Case-insensitively, as before.
        var upper = photo(8)
        upper.displayName = "img_8_HOLIDAY_at_the_sea.JPG"
        XCTAssertEqual(
            planner.plan([upper], template: template).items.map(\.path), ["img_8_HOLIDAY_at_the_sea (1).JPG"])
    }

    func testFingerprintsAreDeterministicAndTellNamesApart() {
        XCTAssertEqual(NameFingerprints.fingerprint("a.jpg"), NameFingerprints.fingerprint("a.jpg"))
        var set = NameFingerprints()
        let names = (0..<100_000).map { "IMG_\($0).jpg" }
        set.formUnion(names)
        XCTAssertEqual(set.count, names.count, "no two of 100,000 similar names share a fingerprint")
        XCTAssertTrue(set.contains("IMG_99999.jpg"))
        XCTAssertFalse(set.contains("IMG_100000.jpg"))
    }

    /// An export state of 200,000 files (an earlier export of 100,000 photos with sidecars) is
    /// read from its database when needed, never loaded whole: opening it and reading entries by
    /// path, by photo and page by page grows this process by a few MB, where the dictionary of
    /// every row took ~60 MB (212 MB peak RSS for `export --update` of the 100,000-photo bench
    /// library; ~1.5 GB at 1,000,000 photos).
    /// File `n` of the state: photo `n / 2`'s original (even `n`) or its XMP sidecar (odd).
    private static func entry(_ n: Int) -> ExportState.Entry {
        let month = String(format: "%02d", n % 12 + 1)
        let name = String(format: "IMG_%07d.jpg", n)
        let path = "2024/" + month + "/" + name + (n % 2 == 0 ? "" : ".xmp")
        let kind: ExportState.Entry.Kind = n % 2 == 0 ? .original : .xmp
        return ExportState.Entry(
            path: path, uniqueName: String(format: "0A1B2C3D-0000-4000-8000-%012d", n / 2), kind: kind,
            sha256: String(repeating: "ab", count: 32), byteSize: 1000 + n, mtimeNanoseconds: Int64(n))
    }

    func testAnExportStateOf200000FilesIsNotHeldInMemory() throws {
        let dest = dir + "/dest"
        try FileManager.default.createDirectory(atPath: dest, withIntermediateDirectories: true)
        let files = 200_000
        do {
            let state = try ExportState(destination: dest, backend: SQLiteExportStateBackend())
            for first in stride(from: 0, to: files, by: 10_000) {
                try state.record((first..<first + 10_000).map(Self.entry))
            }
        }
        let before = try residentKB()
        let state = try ExportState(destination: dest, backend: SQLiteExportStateBackend())
        XCTAssertEqual(state.entry("2024/06/IMG_0000005.jpg.xmp")?.byteSize, 1005)
        XCTAssertNil(state.entry("2024/06/nothing.jpg"))
        XCTAssertEqual(
            state.entries(ofPhoto: "0A1B2C3D-0000-4000-8000-000000000002").map(\.path),
            ["2024/05/IMG_0000004.jpg", "2024/06/IMG_0000005.jpg.xmp"])
        var seen = 0
        var last = ""
        try state.forEachEntry { page in
            XCTAssertLessThanOrEqual(page.count, 1000)
            for entry in page {
                XCTAssertLessThan(last, entry.path, "path order")
                last = entry.path
            }
            seen += page.count
        }
        let grown = try residentKB() - before
        XCTAssertEqual(seen, files)
        print("resident growth reading an export state of \(files) files: \(grown) KB")
        XCTAssertLessThan(grown, 20 * 1024, "reading the state grew the process by \(grown) KB")
    }
}
