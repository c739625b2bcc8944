import Foundation
import XCTest
import PhotosTestSupport
@testable import PhotosCore
import PhotosImaging

/// User report: export renamed photos whose names differ but share a stem (`storm.jpg`,
/// `storm.heic`) because every photo reserved `STEM.thumb.jpg` even without `--thumbnails`.
/// Only the companions the export writes are reserved now.
final class ExportCompanionClashTests: XCTestCase {
    var root = ""

    override func setUpWithError() throws {
        root = NSTemporaryDirectory() + "export-companion-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: root)
    }

    func photo(_ n: Int, _ displayName: String, format: ImageFormat) -> PhotoRecord {
        PhotoRecord(
            rowID: Int64(n), uniqueName: "0A1B2C3D-0000-0000-0000-00000000000\(n)", displayName: displayName,
            sha256: String(repeating: "\(n)", count: 64), byteSize: 1, fileReference: "aa/aa", format: format,
            width: 1, height: 1, orientation: .up, captureDate: "2008-05-06T07:08:09Z",
            importedAt: "2026-01-02T03:04:05Z",
            thumbnailWidth: 1, thumbnailHeight: 1, tags: [], ratings: [], zone: "default", scope: .private)
    }

    func paths(
        _ photos: [PhotoRecord], template: ExportNameTemplate, sidecar: SidecarFormat,
        thumbnails: Bool
    ) -> [String] {
        var planner = Planner(
            root: root, state: nil, trustState: false,
            companionKinds: Planner.companionKinds(sidecar: sidecar, thumbnails: thumbnails))
        let plan = planner.plan(photos, template: template)
        XCTAssertTrue(plan.failures.isEmpty)
        return plan.items.map(\.path)
    }

    func testSameStemDifferentNamesKeepTheirNamesWithoutThumbnails() throws {
        let photos = [
            photo(1, "storm.jpg", format: .jpeg), photo(2, "storm.heic", format: .heif),
            photo(3, "path.webp", format: .webp), photo(4, "path.jpg", format: .jpeg)
        ]
        for template in [ExportNameTemplate.default, try ExportNameTemplate(parsing: "{capture:%Y}/{name}")] {
            let prefix = template == .default ? "" : "2008/"
            for sidecar in SidecarFormat.allCases {
                XCTAssertEqual(
                    paths(photos, template: template, sidecar: sidecar, thumbnails: false),
                    ["storm.jpg", "storm.heic", "path.webp", "path.jpg"].map { prefix + $0 },
                    "\(template.text) --sidecar \(sidecar)")
            }
        }
    }

    func testSameStemWithThumbnailsTakesTheNextVariantInUniqueNameOrder() throws {
        let photos = [photo(1, "storm.jpg", format: .jpeg), photo(2, "storm.heic", format: .heif)]
        for sidecar in SidecarFormat.allCases {
            XCTAssertEqual(
                paths(photos, template: .default, sidecar: sidecar, thumbnails: true),
                ["storm.jpg", "storm (1).heic"], "--sidecar \(sidecar)")
        }
        // The same options give the same names on every run.
        XCTAssertEqual(
            paths(photos, template: .default, sidecar: .xmp, thumbnails: true),
            paths(photos, template: .default, sidecar: .xmp, thumbnails: true))
    }

    func testOnlyTheWrittenSidecarIsReserved() throws {
        // `a.jpg.xmp` is a photo's own name: it clashes with a.jpg's XMP sidecar, not its JSON one.
        let photos = [photo(1, "a.jpg", format: .jpeg), photo(2, "a.jpg.xmp", format: .jpeg)]
        XCTAssertEqual(paths(photos, template: .default, sidecar: .xmp, thumbnails: false), ["a.jpg", "a.jpg (1).xmp"])
        XCTAssertEqual(paths(photos, template: .default, sidecar: .json, thumbnails: false), ["a.jpg", "a.jpg.xmp"])
        XCTAssertEqual(paths(photos, template: .default, sidecar: .none, thumbnails: false), ["a.jpg", "a.jpg.xmp"])
    }
}
