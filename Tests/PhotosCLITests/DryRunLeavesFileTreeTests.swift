import Foundation
import XCTest
import PhotosTestSupport

/// Issue 9 item 1 (variant): a dry run leaves the library's file tree as it found it. An
/// import's workers closed their read connections after the writer had finished, so the
/// process often exited with one still open and SQLite left `photos.sqlite-wal` and `-shm`
/// behind, also after `import --dry-run` (a new file in a library that a dry run must not
/// touch).
final class DryRunLeavesFileTreeTests: BinaryTestCase {
    override var label: String { "photos-i9-dryrun-files" }

    func listing(_ lib: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: lib).sorted()
    }

    func testImportLeavesNoWalFiles() throws {
        let lib = dir + "/lib"
        let (input, _) = try makeInput(copies: 2)
        XCTAssertEqual(try run(["--library", lib, "import", "-q", input]).status, 0)
        let expected = try listing(lib)
        XCTAssertFalse(expected.contains("photos.sqlite-wal"), "\(expected)")
        // Repeated: whether a worker's connection outlived the writer was a race.
        for round in 0..<4 {
            for args in [
                ["import", "-q", "--dry-run", "--jobs", "4", input], ["import", "-q", "--jobs", "4", input],
                ["import", "-q", "--dry-run", "--jobs", "4", samplesDir]
            ] {
                let r = try run(["--library", lib] + args)
                XCTAssertEqual(r.status, 0, r.stderr)
                XCTAssertEqual(try listing(lib), expected, "round \(round): \(args)")
            }
        }
    }
}
