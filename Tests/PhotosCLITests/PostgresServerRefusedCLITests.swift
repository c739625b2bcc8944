import Foundation
import PhotosPostgreSQL
import PhotosTestSupport
import XCTest

/// The PostgreSQL counterpart of a SQLite catalog that cannot be opened: a library whose
/// recorded server refuses connections (down, or moved). Every command exits 74 (EX_IOERR) with
/// one line naming the library and the server without the password, and writes nothing in the
/// library folder (no SQLite catalog appears in its place).
final class PostgresServerRefusedCLITests: BinaryTestCase {
    override var label: String { "photos-pg-refused" }

    func testEveryCommandOnALibraryWhoseServerRefusesExits74AndWritesNothing() throws {
        let lib = dir + "/lib"
        let made = try TestDatabase.makeSchema(forLibraryAt: lib)
        XCTAssertEqual(try run(["init", "-q", "--database", made, lib]).status, 0)
        XCTAssertEqual(try run(["--library", lib, "import", "-q", samplesDir + "/storm.jpg"]).status, 0)
        // The server moves away: nothing listens on port 1.
        let moved = try ConnectionInfo(made).setting("port", to: "1").setting("connect_timeout", to: "2")
        try PostgresCatalogBackend.record(moved, root: lib)
        let tree = LibrarySnapshot.fileTree(lib)
        let secret = "hunter2-\(UUID().uuidString.prefix(8))"
        var environment = ProcessInfo.processInfo.environment
        environment["PGPASSWORD"] = secret
        for args in [
            ["list"], ["--json", "list"], ["verify"], ["stats", "--json"], ["init"], ["tag", "list"],
            ["import", "-q", samplesDir + "/path.jpg"], ["history"]
        ] {
            let r = try runProcess(try binary(), ["--library", lib] + args, environment: environment)
            XCTAssertEqual(r.status, 74, "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("library \(lib)"), "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("cannot connect to postgresql://"), "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains(":1/"), "names the server: \(r.stderr)")
            XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, "one line: \(r.stderr)")
            XCTAssertFalse(r.stderr.contains("\\t") || r.stderr.contains("\t"), "libpq's hint indent: \(r.stderr)")
            XCTAssertFalse(r.stderr.contains(secret) || r.stdout.contains(secret), "\(args)")
            XCTAssertEqual(LibrarySnapshot.fileTree(lib), tree, "\(args) wrote in the library folder")
        }
        XCTAssertEqual(TestDatabase.backend(ofLibraryAt: lib), .postgresql)
    }
}
