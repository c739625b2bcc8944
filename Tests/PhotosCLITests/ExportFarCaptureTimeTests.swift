import Foundation
import XCTest
import PhotosTestSupport

/// Capture times far in the past or future (year 0001, 9999: a camera clock never set, a typo
/// in a sidecar) export and round trip: the export used to trap (exit 132, "arithmetic
/// overflow" turning the file's modification time into 64-bit nanoseconds) and leave a partial
/// export with files dated 2446-05-10, the latest time ext4 holds. Now a time the file system
/// cannot hold is not set, the sidecars carry the capture times, and a re-import restores them.
final class ExportFarCaptureTimeTests: BinaryTestCase {
    override var label: String { "photos-export-far-times" }

    static let dates = [
        "k1.png": "0001-01-01T00:00:00-12:00", "k2.png": "9999-12-31T23:59:59+14:00",
        "k3.png": "1969-12-31T23:59:59.999+00:00", "k4.png": "2300-01-01T00:00:00+00:00"
    ]

    func captureDates(_ library: String) throws -> [String: String] {
        let list = try run(["--library", library, "list", "--json"])
        XCTAssertEqual(list.status, 0, list.stderr)
        var result: [String: String] = [:]
        for line in list.stdout.split(separator: "\n") {
            let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            result[try XCTUnwrap(object["displayName"] as? String)] = object["captureDate"] as? String
        }
        return result
    }

    func testFarCaptureTimesExportAndComeBack() throws {
        let input = dir + "/in", lib = dir + "/lib", out = dir + "/out", lib2 = dir + "/lib2"
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        let png = try XCTUnwrap(FileManager.default.contents(atPath: samplesDir + "/kite.png"))
        for (i, (name, date)) in Self.dates.sorted(by: { $0.key < $1.key }).enumerated() {
            // Different bytes after IEND, so four photos.
            XCTAssertTrue(FileManager.default.createFile(atPath: input + "/" + name, contents: png + Data([UInt8(i)])))
            let sidecar = """
                <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
                <rdf:Description rdf:about="" xmlns:photoshop="http://ns.adobe.com/photoshop/1.0/"
                 photoshop:DateCreated="\(date)"/></rdf:RDF></x:xmpmeta>
                """
            XCTAssertTrue(FileManager.default.createFile(atPath: input + "/\(name).xmp", contents: Data(sidecar.utf8)))
        }
        XCTAssertEqual(try run(["--library", lib, "import", input, "-q"]).status, 0)
        let exported = try run(["--library", lib, "export", out, "-q"])
        XCTAssertEqual(exported.status, 0, exported.stderr)
        for (name, date) in Self.dates {
            let sidecar = try String(contentsOfFile: out + "/\(name).xmp", encoding: .utf8)
            XCTAssertTrue(sidecar.contains("photoshop:DateCreated=\"\(date)\""), "\(name): \(sidecar)")
        }
        // Not clamped to what ext4 holds: the year-9999 original has no date of 2446.
        let attributes = try FileManager.default.attributesOfItem(atPath: out + "/k2.png")
        let modified = try XCTUnwrap(attributes[.modificationDate] as? Date)
        XCTAssertLessThan(modified.timeIntervalSince1970, 4_102_444_800, "not a clamped far-future date")

        // Export again over it (the export state compares the files' times), then re-import.
        let again = try run(["--library", lib, "export", out, "-q"])
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertEqual(try run(["--library", lib2, "import", out, "-q"]).status, 0)
        XCTAssertEqual(try captureDates(lib2), try captureDates(lib))
        XCTAssertEqual(try captureDates(lib2)["k2.png"], "9999-12-31T23:59:59+14:00")
        XCTAssertEqual(try captureDates(lib2)["k1.png"], "0001-01-01T00:00:00-12:00")
    }

    /// An exported file whose modification time was moved past 2262 (what 64-bit nanoseconds
    /// hold) by someone else: the next export reads it without trapping.
    func testAnExportedFileDatedPast2262DoesNotStopTheNextExport() throws {
        let input = dir + "/in", lib = dir + "/lib", out = dir + "/out"
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: samplesDir + "/storm.jpg", toPath: input + "/s.jpg")
        XCTAssertEqual(try run(["--library", lib, "import", input, "-q"]).status, 0)
        XCTAssertEqual(try run(["--library", lib, "export", out, "-q"]).status, 0)
        var times = [timespec(tv_sec: 13_000_000_000, tv_nsec: 0), timespec(tv_sec: 13_000_000_000, tv_nsec: 0)]
        XCTAssertEqual(utimensat(AT_FDCWD, out + "/s.jpg", &times, 0), 0)
        let again = try run(["--library", lib, "export", out])
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertFalse(again.stderr.contains("overflow"), again.stderr)
    }
}
