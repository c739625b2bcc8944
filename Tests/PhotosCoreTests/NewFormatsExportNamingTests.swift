import Foundation
import XCTest
import PhotosTestSupport
@testable import PhotosCore
import PhotosImaging

/// Issue 13 item 2: an exported original without an extension of its own gets its format's
/// (`ImageFormat.fileExtension`), never `jpg` for everything that is not PNG.
final class NewFormatsExportNamingTests: XCTestCase {
    func photo(_ displayName: String, format: ImageFormat) -> PhotoRecord {
        PhotoRecord(
            rowID: 1, uniqueName: "0A1B2C3D-0000-0000-0000-000000000001", displayName: displayName,
            sha256: String(repeating: "a", count: 64), byteSize: 1, fileReference: "aa/aa", format: format,
            width: 1, height: 1, orientation: .up, captureDate: nil, importedAt: "2026-01-02T03:04:05Z",
            thumbnailWidth: 1, thumbnailHeight: 1, tags: [], ratings: [], zone: "default", scope: .private)
    }

    func testExtFieldComesFromTheFormat() throws {
        let template = try ExportNameTemplate(parsing: "{stem}.{ext}")
        let expected: [String: String] = [
            "jpeg": "noext.jpg", "png": "noext.png", "heif": "noext.heic",
            "avif": "noext.avif", "webp": "noext.webp", "raw": "noext.dng", "tiff": "noext.tif",
            "gif": "noext.gif", "jxl": "noext.jxl", "video": "noext.mp4"
        ]
        XCTAssertEqual(Set(expected.keys), Set(ImageFormat.allCases.map(\.rawValue)), "every format has a case here")
        for (format, name) in expected {
            XCTAssertEqual(
                template.render(photo("noext", format: try XCTUnwrap(ImageFormat(rawValue: format)))), name, format)
        }
        // A display name's own extension wins over the format's.
        XCTAssertEqual(template.render(photo("IMG_1.HEIC", format: .heif)), "IMG_1.HEIC")
        XCTAssertEqual(
            try ExportNameTemplate(parsing: "{uniqueName}").render(photo("x", format: .webp)),
            "0A1B2C3D-0000-0000-0000-000000000001.webp", "'.{ext}' appended from the format")
    }
}
