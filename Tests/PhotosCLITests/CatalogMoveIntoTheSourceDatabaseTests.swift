import Foundation
import PhotosPostgreSQL
import PhotosTestSupport
import XCTest

/// `photos catalog move --to` naming the library's own PostgreSQL database another way (a host
/// name for its address, a schema by `options`) is refused at once with 64 — both catalogs
/// would take the database's one writer lock, which the copy holds — instead of waiting for
/// itself until `--wait` and blaming "another process" (75); an empty `--to` is a usage error,
/// not libpq's "every default" connection.
final class CatalogMoveIntoTheSourceDatabaseTests: BinaryTestCase {
    override var label: String { "photos-move-same-db" }

    private var drops: [@Sendable () -> Void] = []

    override func tearDown() {
        for drop in drops { drop() }
        drops = []
        super.tearDown()
    }

    func testTheSourceDatabaseNamedAnotherWayIsRefusedWith64() throws {
        let made = try TestDatabase.makeSchema()
        drops.append(made.drop)
        let other = try TestDatabase.makeSchema()
        drops.append(other.drop)
        let lib = dir + "/lib"
        XCTAssertEqual(try run(["init", "-q", "--database", made.connectionString, lib]).status, 0)
        XCTAssertEqual(try run(["--library", lib, "import", "-q", samplesDir]).status, 0)
        let recorded = try String(contentsOfFile: lib + "/catalog.postgresql", encoding: .utf8)
        let info = try ConnectionInfo(made.connectionString)
        // The same server under another host name: an address for a name, or the reverse.
        let host = info["host"] == "localhost" ? "127.0.0.1" : "localhost"
        let spellings = [
            info.setting("host", to: host).connectionString,
            try ConnectionInfo(other.connectionString).setting("host", to: host).connectionString
        ]
        for target in spellings {
            let r = try run(["--library", lib, "--wait", "20", "catalog", "move", "--to", target])
            XCTAssertEqual(r.status, 64, "\(target): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("same PostgreSQL database"), r.stderr)
            XCTAssertEqual(try String(contentsOfFile: lib + "/catalog.postgresql", encoding: .utf8), recorded)
        }
        XCTAssertEqual(try PostgresDatabase(other.connectionString).scalarInt("SELECT count(*) FROM photo") ?? 0, 0)
        let list = try run(["--library", lib, "list", "--json"])
        XCTAssertEqual(list.status, 0, list.stderr)
        XCTAssertEqual(list.stdout.split(separator: "\n").count, 6)
    }

    func testAnEmptyTargetIsAUsageError() throws {
        let lib = dir + "/lib"
        XCTAssertEqual(try run(["--library", lib, "import", "-q", samplesDir]).status, 0)
        for args in [["--to="], ["--to", ""], ["--to", "  "]] {
            let r = try run(["--library", lib, "catalog", "move"] + args)
            XCTAssertEqual(r.status, 64, "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("--to needs a target"), r.stderr)
        }
    }
}
