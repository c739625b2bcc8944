import Foundation
import PhotosPostgreSQL
import PhotosTestSupport
import XCTest

/// A PostgreSQL server that is up but takes no connection now — every connection slot used
/// ("sorry, too many clients already"), the role's or the database's CONNECTION LIMIT
/// reached, the server starting up or shutting down (SQLSTATE 53300, 57P03; libpq reports
/// them only in its message) — is a temporary failure: every command exits 75 (EX_TEMPFAIL,
/// "try again later", as for a lock held past --wait) with one line naming the server and
/// its reason, never 74 (an I/O error) nor 77. A server that cannot be reached at all stays 74.
final class PostgresServerWithoutFreeConnectionsTests: BinaryTestCase {
    override var label: String { "photos-pg-full" }
    private var cleanups: [@Sendable () -> Void] = []

    override func tearDown() {
        for cleanup in cleanups.reversed() { cleanup() }
        cleanups = []
        super.tearDown()
    }

    func testTheServersOwnWordsForNoFreeConnectionAreRecognised() {
        for message in [
            "connection to server at \"127.0.0.1\", port 5432 failed: FATAL:  sorry, too many clients already",
            "FATAL:  remaining connection slots are reserved for roles with the SUPERUSER attribute",
            "FATAL:  remaining connection slots are reserved for non-replication superuser connections",
            "FATAL:  too many connections for role \"photos\"",
            "FATAL:  too many connections for database \"team\""
        ] {
            XCTAssertEqual(PostgresError.unavailability(message), "53300", message)
        }
        for message in [
            "FATAL:  the database system is starting up", "FATAL:  the database system is shutting down",
            "FATAL:  the database system is in recovery mode",
            "FATAL:  the database system is not yet accepting connections"
        ] {
            XCTAssertEqual(PostgresError.unavailability(message), "57P03", message)
        }
        XCTAssertNil(PostgresError.unavailability("could not connect to server: Connection refused"))
        XCTAssertNil(PostgresError.unavailability("FATAL:  password authentication failed for user \"x\""))
    }

    func testARoleAtItsConnectionLimitGetsTempFailNamingTheServer() throws {
        let made = try TestDatabase.makeSchema()
        cleanups.append(made.drop)
        let lib = dir + "/lib"
        XCTAssertEqual(try runAsGiven(["init", "-q", "--database", made.connectionString, lib]).status, 0)
        let role = "photos_full_" + UUID().uuidString.prefix(8).lowercased()
        let admin = try PostgresDatabase(made.connectionString)
        try admin.execute("CREATE ROLE \(role) LOGIN CONNECTION LIMIT 0")
        let base = made.connectionString
        cleanups.append {
            if let admin = try? PostgresDatabase(base) { try? admin.execute("DROP ROLE IF EXISTS \(role)") }
        }
        try PostgresCatalogBackend.record(
            try ConnectionInfo(made.connectionString).setting("user", to: role), root: lib)
        for args in [["list"], ["verify", "--quick"], ["import", "-q", samplesDir]] {
            let r = try run(["--library", lib] + args)
            XCTAssertEqual(r.status, 75, "\(args): \(r.stderr)")
            XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, r.stderr)
            XCTAssertTrue(r.stderr.contains("too many connections for role"), r.stderr)
            XCTAssertTrue(r.stderr.contains(role + "@"), "names the server as the user connects: \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("try again later"), r.stderr)
        }
        XCTAssertEqual(try admin.scalarInt("SELECT count(*) FROM photo"), 0, "nothing imported")
    }
}
