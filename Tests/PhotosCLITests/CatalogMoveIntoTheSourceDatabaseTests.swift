import Foundation
import PhotosPostgreSQL
import PhotosTestSupport
import XCTest

/// `photos catalog move --to` naming the library's own PostgreSQL catalog another way (a host
/// name for its address) is refused at once with 64 — the target's writer lock would be the
/// one the copy holds — instead of waiting for itself until `--wait` and blaming "another
/// process" (75); another schema of the same database is another catalog and takes the move;
/// an empty `--to` is a usage error, not libpq's "every default" connection.
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
        let target = info.setting("host", to: host).connectionString
        let r = try run(["--library", lib, "--wait", "20", "catalog", "move", "--to", target])
        XCTAssertEqual(r.status, 64, "\(target): \(r.stderr)")
        XCTAssertTrue(r.stderr.contains("the library's own catalog under another name"), r.stderr)
        XCTAssertEqual(try String(contentsOfFile: lib + "/catalog.postgresql", encoding: .utf8), recorded)
        let list = try run(["--library", lib, "list", "--json"])
        XCTAssertEqual(list.status, 0, list.stderr)
        XCTAssertEqual(list.stdout.split(separator: "\n").count, 6)
        // Another schema of the same database, under the other host name too, is another
        // catalog (writer locks of its own): it takes the move at once.
        let otherSchema = try ConnectionInfo(other.connectionString).setting("host", to: host).connectionString
        let moved = try run(["--library", lib, "--wait", "20", "catalog", "move", "-q", "--to", otherSchema])
        XCTAssertEqual(moved.status, 0, moved.stderr)
        XCTAssertEqual(try PostgresDatabase(other.connectionString).scalarInt("SELECT count(*) FROM photo"), 6)
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
