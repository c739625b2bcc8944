import Foundation
import XCTest
import PhotosTestSupport

/// `photos restore BACKUP` builds the library in a hidden folder beside it and renames it into
/// place at the end, so a restore killed midway (kill -9) never leaves a half-restored library
/// (catalog without its originals) that verify fails and a second restore refuses (73); the
/// next restore removes what the killed one left. A folder that is not empty is refused (73)
/// and left as it was.
final class RestoreKilledMidwayTests: BinaryTestCase {
    override var label: String { "photos-restore-killed" }
    var lib: String { dir + "/lib" }
    var backup: String { dir + "/backup" }

    override func setUpWithError() throws {
        try super.setUpWithError()
        try TestDatabase.requireSQLite(because: "photos backup and restore copy SQLite catalogs")
        let (input, _) = try makeInput(copies: 8)
        XCTAssertEqual(try run(["--library", lib, "import", "-q", input]).status, 0)
        XCTAssertEqual(try run(["--library", lib, "backup", "-q", "--originals", backup]).status, 0)
    }

    private func stagingFolders() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.contains(".restoring-") }
    }

    private func photoCount(_ library: String) throws -> Int {
        try run(["--library", library, "--json", "list"]).stdout.split(separator: "\n").count
    }

    func testARestoreKilledAtAnyPointLeavesNoLibraryOrAWholeOneAndTheNextRestoreFinishes() throws {
        try TestDatabase.requireSQLite(
            because:
                "photos backup and restore copy SQLite catalogs (a PostgreSQL catalog is pg_dump's: exit 69, PostgresLibraryCLITests)"
        )
        let expected = try photoCount(lib)
        XCTAssertGreaterThan(expected, 0)
        for (i, delay) in [0.0, 0.02, 0.05, 0.1, 0.2, 0.4].enumerated() {
            let restored = dir + "/restored-\(i)"
            try killDashNine(["--library", restored, "restore", backup], after: delay)
            if FileManager.default.fileExists(atPath: restored + "/photos.sqlite") {
                let verify = try run(["--library", restored, "verify"])
                XCTAssertEqual(verify.status, 0, "killed after \(delay) s: \(verify.stdout)\(verify.stderr)")
            } else {
                let again = try run(["--library", restored, "restore", backup])
                XCTAssertEqual(again.status, 0, "killed after \(delay) s: \(again.stderr)")
                XCTAssertEqual(try run(["--library", restored, "verify", "-q"]).status, 0)
            }
            XCTAssertEqual(try photoCount(restored), expected)
            XCTAssertEqual(try stagingFolders(), [], "killed after \(delay) s")
        }
    }

    func testWhatAKilledRestoreLeftIsRemovedByTheNextRestore() throws {
        try TestDatabase.requireSQLite(
            because:
                "photos backup and restore copy SQLite catalogs (a PostgreSQL catalog is pg_dump's: exit 69, PostgresLibraryCLITests)"
        )
        // A process that has exited: its pid names the folder a killed restore would leave.
        let gone = Process()
        gone.executableURL = URL(fileURLWithPath: "/bin/true")
        try gone.run()
        gone.waitUntilExit()
        let leftover = dir + "/.restored.restoring-\(gone.processIdentifier)"
        try FileManager.default.createDirectory(atPath: leftover + "/ExternalData", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: backup + "/photos.sqlite", toPath: leftover + "/photos.sqlite")

        let restored = dir + "/restored"
        let result = try run(["--library", restored, "restore", backup])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(try stagingFolders(), [])
        XCTAssertEqual(try run(["--library", restored, "verify", "-q"]).status, 0)
        XCTAssertEqual(try photoCount(restored), try photoCount(lib))
    }

    func testAFolderThatIsNotEmptyIsRefusedAndAnEmptyOneTakesTheLibrary() throws {
        try TestDatabase.requireSQLite(
            because:
                "photos backup and restore copy SQLite catalogs (a PostgreSQL catalog is pg_dump's: exit 69, PostgresLibraryCLITests)"
        )
        let busy = dir + "/busy", empty = dir + "/empty"
        try FileManager.default.createDirectory(atPath: busy, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        XCTAssertTrue(FileManager.default.createFile(atPath: busy + "/notes.txt", contents: Data("hi".utf8)))
        let tree = LibrarySnapshot.fileTree(busy)
        let refused = try run(["--library", busy, "--json", "restore", backup])
        XCTAssertEqual(refused.status, 73, refused.stderr)
        XCTAssertEqual(refused.stdout, "")
        let error = try JSONSerialization.jsonObject(with: Data(refused.stderr.utf8)) as? [String: Any]
        XCTAssertNotNil(error?["error"], refused.stderr)
        XCTAssertEqual(LibrarySnapshot.fileTree(busy), tree)
        XCTAssertEqual(try stagingFolders(), [])

        XCTAssertEqual(try run(["--library", empty, "restore", "-q", backup]).status, 0)
        XCTAssertEqual(try run(["--library", empty, "verify", "-q"]).status, 0)
    }
}
