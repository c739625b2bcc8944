import Foundation
import XCTest
import PhotosTestSupport
import PhotosCore
import PhotosSQLite

/// Issue 9 item 10 (variants): a library whose database this user may write but whose
/// external data folder it may not. `delete` and `purge` dropped the rows, could not remove the
/// originals and exited 0 leaving orphans; `import` failed file after file with exit 1 ("done,
/// some items failed") instead of stopping with 77 naming the folder.
final class UnwritableExternalDataTests: BinaryTestCase {
    override var label: String { "photos-i9-environment" }
    var lib: String { dir + "/lib" }

    /// A library owned by nobody, except its ExternalData folder: root's, mode 0700.
    func makeLibrary() throws -> [String] {
        XCTAssertEqual(
            try run(["--library", lib, "import", "-q", samplesDir + "/storm.jpg", samplesDir + "/path.jpg"]).status, 0)
        let names = try run(["--library", lib, "list", "--json"]).stdout.split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["uniqueName"] as? String
        }
        XCTAssertEqual(names.count, 2)
        chmod(dir, 0o755)
        for path in [lib, lib + "/photos.sqlite", lib + "/catalog.postgresql", lib + "/import.lock"] {
            chown(path, 65534, 65534)
        }
        chmod(lib + "/ExternalData", 0o700)
        return names
    }

    func rows() throws -> [Int] {
        let d = try TestCatalog(root: lib, readOnly: true)
        return try ["photo", "photo_data", "thumbnail", "share", "history_transaction"].map {
            try XCTUnwrap(try d.scalarInt("SELECT count(*) FROM \($0)"))
        }
    }

    func originals() -> [String] {
        (FileManager.default.subpaths(atPath: lib + "/ExternalData") ?? []).filter {
            $0.count > 10 && !$0.hasPrefix(".")
        }.sorted()
    }

    func testWritesThatNeedExternalDataFailWith77AndChangeNothing() throws {
        guard geteuid() == 0 else { throw XCTSkip("needs root to hand the library to nobody") }
        let names = try makeLibrary()
        XCTAssertEqual(try run(["--library", lib, "share", "create", "-q", names[0]]).status, 0)
        let share = try XCTUnwrap(
            try TestCatalog(root: lib, readOnly: true).scalarString(
                "SELECT id FROM share"))
        let before = try rows()
        let files = originals()
        XCTAssertEqual(files.count, 2)
        for args in [["delete", names[1]], ["purge", "--share", share], ["purge", "--share", share, "--dry-run"]] {
            let r = try asReader(["--library", lib, "--wait", "0"] + args)
            XCTAssertEqual(r.status, 77, "\(args): \(r.stderr)")
            XCTAssertTrue(
                r.stderr.contains("nothing was deleted") && r.stderr.contains(lib + "/ExternalData"), r.stderr)
            XCTAssertEqual(try rows(), before, "\(args) changed rows")
            XCTAssertEqual(originals(), files)
        }
        // Import: 77 naming the folder, not 1 with one failure per file; nothing stays behind.
        let input = dir + "/in"
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        chmod(input, 0o755)
        for name in ["kite.png", "ladybird.jpg", "dune-orientation6.jpg"] {
            try FileManager.default.copyItem(atPath: samplesDir + "/" + name, toPath: input + "/" + name)
            chmod(input + "/" + name, 0o644)
        }
        // The dry run says what the real run does.
        let dry = try asReader(["--library", lib, "--wait", "0", "import", "--dry-run", input])
        XCTAssertEqual(dry.status, 77, dry.stderr)
        XCTAssertTrue(
            dry.stderr.contains(lib + "/ExternalData") && dry.stderr.contains("Permission denied"), dry.stderr)
        let r = try asReader(["--library", lib, "--wait", "0", "import", input])
        XCTAssertEqual(r.status, 77, r.stderr)
        XCTAssertTrue(r.stderr.contains(lib + "/ExternalData") && r.stderr.contains("Permission denied"), r.stderr)
        XCTAssertEqual(try rows(), before)
        // The library, given back to its owner, is whole.
        let v = try run(["--library", lib, "verify"])
        XCTAssertEqual(v.status, 0, v.stdout)
    }
}
