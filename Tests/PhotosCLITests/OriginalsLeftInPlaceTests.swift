import Foundation
import PhotosTestSupport
import XCTest

/// An original that `purge` (after its commit) or `verify --repair` means to remove but cannot —
/// here a folder in its place — is named on one line with why, never counted as removed; the
/// purge itself stands and exits 1 (done, an item failed: sysexits has no "partial", the house
/// uses 1 as import does for its failed files). On both backends (`PHOTOS_TEST_DATABASE_URL`).
final class OriginalsLeftInPlaceTests: BinaryTestCase {
    override var label: String { "photos-left-in-place" }
    var lib: String { dir + "/lib" }

    /// Imports three samples into a share; returns the share's id and the path of the original
    /// of `path.jpg`, which is then replaced by a folder holding one file.
    func shareWithAFolderForAnOriginal() throws -> (share: String, folder: String, others: [String]) {
        let inputs = ["storm.jpg", "path.jpg", "kite.png"].map { samplesDir + "/" + $0 }
        XCTAssertEqual(try run(["--library", lib, "import", "-q"] + inputs).status, 0)
        let catalog = try TestCatalog(root: lib, readOnly: true)
        let rows = try catalog.rows(
            "SELECT p.unique_name, p.display_name, d.file_ref FROM photo p JOIN photo_data d ON d.photo_id = p.id")
        XCTAssertEqual(rows.count, 3)
        XCTAssertEqual(
            try run(["--library", lib, "share", "create", "-q"] + rows.compactMap { $0[0] }).status, 0)
        let share = try XCTUnwrap(try TestCatalog(root: lib, readOnly: true).scalarString("SELECT id FROM share"))
        let ref = try XCTUnwrap(rows.first { $0[1] == "path.jpg" }?[2] ?? nil)
        let folder = lib + "/ExternalData/" + ref
        XCTAssertEqual(unlink(folder), 0)
        XCTAssertEqual(mkdir(folder, 0o755), 0)
        XCTAssertTrue(FileManager.default.createFile(atPath: folder + "/keep", contents: Data([7])))
        let others = rows.filter { $0[1] != "path.jpg" }.compactMap { $0[2] }.map { lib + "/ExternalData/" + $0 }
        return (share, folder, others)
    }

    func testPurgeNamesTheOriginalItCouldNotRemoveAndCountsOnlyTheRemoved() throws {
        let (share, folder, others) = try shareWithAFolderForAnOriginal()
        let dry = try run(["--library", lib, "purge", "--share", share, "--dry-run"])
        XCTAssertEqual(dry.status, 1, dry.stdout + dry.stderr)
        XCTAssertEqual(
            dry.stderr, "\(folder): error: would not be removed (the purge is possible): it is a folder, not a file\n")
        XCTAssertEqual(try TestCatalog(root: lib, readOnly: true).scalarInt("SELECT count(*) FROM photo"), 3)

        let r = try run(["--library", lib, "purge", "--share", share])
        XCTAssertEqual(r.status, 1, r.stdout + r.stderr)
        XCTAssertEqual(r.stderr, "\(folder): error: not removed (the purge is done): it is a folder, not a file\n")
        XCTAssertTrue(r.stdout.hasSuffix("; 2 original files removed, 1 left in place\n"), r.stdout)
        // The catalog part is done; the two files are gone, the folder and its file are kept.
        XCTAssertEqual(try TestCatalog(root: lib, readOnly: true).scalarInt("SELECT count(*) FROM photo"), 0)
        XCTAssertEqual(try TestCatalog(root: lib, readOnly: true).scalarInt("SELECT count(*) FROM share"), 0)
        for path in others { XCTAssertFalse(FileManager.default.fileExists(atPath: path), path) }
        XCTAssertEqual(FileManager.default.contents(atPath: folder + "/keep"), Data([7]))

        // verify --repair leaves the folder too, and says why on the orphan's line.
        let name = "ExternalData/" + String(folder.dropFirst(lib.count + "/ExternalData/".count))
        let repair = try run(["--library", lib, "verify", "--repair"])
        XCTAssertEqual(repair.status, 1, repair.stdout + repair.stderr)
        XCTAssertTrue(
            repair.stdout.contains(
                "problem: orphan-file: \(name) is not referenced by any photo (left in place: it is a folder, not a file; remove it yourself if it is not wanted)\n"
            ), repair.stdout)
        XCTAssertTrue(repair.stdout.contains(": 1 problem\n"), repair.stdout)
        let dryRepair = try run(["--library", lib, "verify", "--repair", "--dry-run"])
        XCTAssertEqual(dryRepair.status, 1, dryRepair.stdout + dryRepair.stderr)
        XCTAssertTrue(dryRepair.stdout.contains("(left in place: it is a folder, not a file;"), dryRepair.stdout)
        XCTAssertEqual(FileManager.default.contents(atPath: folder + "/keep"), Data([7]))
        // Once the user removes it, verify is clean.
        try FileManager.default.removeItem(atPath: folder)
        XCTAssertEqual(try run(["--library", lib, "verify"]).status, 0)
    }

    func testPurgeJSONListsTheFilesLeft() throws {
        let (share, folder, _) = try shareWithAFolderForAnOriginal()
        let r = try run(["--library", lib, "purge", "--share", share, "--json"])
        XCTAssertEqual(r.status, 1, r.stdout + r.stderr)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(object["photos"] as? Int, 3)
        XCTAssertEqual(object["filesRemoved"] as? Int, 2)
        let left = try XCTUnwrap(object["filesLeft"] as? [[String: String]])
        XCTAssertEqual(left, [["path": folder, "reason": "it is a folder, not a file"]])
        XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, r.stderr)
    }

    /// Without anything in the way the purge removes every original and exits 0 (no line on
    /// stderr, no "left in place").
    func testAPurgeThatRemovesEverythingExitsZero() throws {
        let inputs = ["storm.jpg", "path.jpg"].map { samplesDir + "/" + $0 }
        XCTAssertEqual(try run(["--library", lib, "import", "-q"] + inputs).status, 0)
        let names = try TestCatalog(root: lib, readOnly: true).rows("SELECT unique_name FROM photo").compactMap {
            $0[0]
        }
        XCTAssertEqual(try run(["--library", lib, "share", "create", "-q"] + names).status, 0)
        let share = try XCTUnwrap(try TestCatalog(root: lib, readOnly: true).scalarString("SELECT id FROM share"))
        let r = try run(["--library", lib, "purge", "--share", share])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stderr, "")
        XCTAssertTrue(r.stdout.hasSuffix("; 2 original files removed\n"), r.stdout)
    }

    /// `delete` removes originals after its commit as purge does: one it cannot remove is named
    /// the same way (exit 1, the photo deleted, the folder kept, `"filesLeft"` in `--json`).
    func testDeleteNamesTheOriginalItCouldNotRemove() throws {
        let (_, folder, others) = try shareWithAFolderForAnOriginal()
        let name = try XCTUnwrap(
            try TestCatalog(root: lib, readOnly: true).scalarString(
                "SELECT unique_name FROM photo WHERE display_name = 'path.jpg'"))
        let r = try run(["--library", lib, "delete", name, "--json"])
        XCTAssertEqual(r.status, 1, r.stdout + r.stderr)
        XCTAssertEqual(r.stderr, "\(folder): error: not removed (the photo is deleted): it is a folder, not a file\n")
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(object["deleted"] as? Int, 1)
        XCTAssertEqual(
            object["filesLeft"] as? [[String: String]], [["path": folder, "reason": "it is a folder, not a file"]])
        XCTAssertEqual(try TestCatalog(root: lib, readOnly: true).scalarInt("SELECT count(*) FROM photo"), 2)
        XCTAssertEqual(FileManager.default.contents(atPath: folder + "/keep"), Data([7]))
        for path in others { XCTAssertTrue(FileManager.default.fileExists(atPath: path), path) }
    }
}
