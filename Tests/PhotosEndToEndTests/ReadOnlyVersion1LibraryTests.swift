import Foundation
import XCTest
import PhotosTestSupport
import PhotosSQLite

/// Schema migration 2 meets a read-only library (moved from PhotosCLITests/SchemaVersion1Tests.swift:
/// it runs the binary as nobody): see SchemaVersion1Tests for the rules.
extension ReadOnlyLibraryTests {
    func testAVersion1LibraryThisUserMayOnlyReadIsRefusedWith77UntilItsOwnerRunsInit() throws {
        try TestDatabase.requireSQLite(because: "a version-1 photos.sqlite that this user may only read")
        let (photo, share) = try makeLibrary()
        try downgradeToSchemaVersion1(lib)
        try setModes(folder: 0o755, files: 0o644)
        let before = try LibrarySnapshot.dumpDatabase(lib + "/photos.sqlite") + LibrarySnapshot.fileTree(lib)
        XCTAssertTrue(before.contains("user_version=1"))
        let out = dir + "/out"
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        chmod(out, 0o777)
        let reads: [[String]] = [
            ["list"], ["list", "--json"], ["show", photo], ["stats"], ["verify"], ["verify", "--quick"],
            ["tag", "list"], ["rating", "list", photo], ["share", "show", share], ["history"],
            ["thumbnail", photo, "-o", out + "/t.jpg"], ["export", out + "/e"],
            ["export", out + "/d", "--dry-run"], ["schema"]
        ]
        for args in reads {
            let result = try asReader(["--library", lib] + args)
            XCTAssertEqual(result.status, 77, "\(args): \(result.stdout) \(result.stderr)")
            XCTAssertTrue(
                result.stderr.contains(
                    "library \(lib) has schema version 1 and must be upgraded to \(Schema.currentVersion) by a user who can write it (run 'photos init')"
                ),
                "\(args): \(result.stderr)")
            XCTAssertEqual(result.stderr.split(separator: "\n").count, 1, "\(args): one line: \(result.stderr)")
        }
        // init by this user cannot upgrade it either, and says so (77, not 70).
        let initByReader = try asReader(["--library", lib, "init"])
        XCTAssertEqual(initByReader.status, 77, initByReader.stderr)
        XCTAssertTrue(
            initByReader.stderr.contains(
                "has schema version 1 and cannot be upgraded to \(Schema.currentVersion) by this user"),
            initByReader.stderr)
        XCTAssertEqual(
            try LibrarySnapshot.dumpDatabase(lib + "/photos.sqlite") + LibrarySnapshot.fileTree(lib), before,
            "nothing refused changed the library")
        XCTAssertFalse(FileManager.default.fileExists(atPath: out + "/e"), "export wrote nothing")
        // Its owner upgrades it; then every read works for the other user.
        let upgraded = try run(["--library", lib, "init"])
        XCTAssertEqual(
            upgraded.stdout, "Migrated library at \(lib) from schema version 1 to \(Schema.currentVersion)\n",
            upgraded.stderr)
        try setModes(folder: 0o755, files: 0o644)
        try assertReadCommandsWork(photo: photo, share: share)
    }
}
