import PhotosPostgreSQL
import PhotosTestSupport
import XCTest

/// A password in a connection string is used to connect and never shown or recorded.
final class ConnectionPasswordTests: XCTestCase {
    func testTheRecordedAndDisplayedFormsLeaveThePasswordOut() throws {
        let info = try ConnectionInfo(
            "postgresql://ann:s3cr%3Ft@db.example:6543/team?sslmode=require&application_name=x")
        XCTAssertEqual(info["password"], "s3cr?t")
        XCTAssertFalse(info.recorded.contains("s3cr"))
        XCTAssertFalse(info.display.contains("s3cr"))
        XCTAssertEqual(info.display, "postgresql://ann@db.example:6543/team")
        XCTAssertTrue(info.recorded.contains("sslmode='require'"))
        // The recorded form is itself a connection string libpq reads back to the same options.
        XCTAssertEqual(try ConnectionInfo(info.recorded), info.withoutPassword)
        XCTAssertEqual(
            try ConnectionInfo("host=h dbname='a b' password='it\\'s' user=u").withoutPassword,
            try ConnectionInfo("host=h dbname='a b' user=u"))
    }

    func testAFailedConnectionNamesTheServerButNotThePassword() throws {
        // Port 1 on the loopback: refused at once, no server needed.
        XCTAssertThrowsError(
            try PostgresDatabase("postgresql://ann:hunter2secret@127.0.0.1:1/team?connect_timeout=2")
        ) { error in
            let e = error as? PostgresError
            XCTAssertEqual(e?.isBusy, true, "a server that is not reachable is a temporary failure")
            XCTAssertEqual(e?.isConnectionFailure, true)
            XCTAssertFalse("\(error)".contains("hunter2"))
            XCTAssertTrue("\(error)".contains("postgresql://ann@127.0.0.1:1/team"), "\(error)")
        }
    }

    func testAMalformedStringIsNotRepeated() {
        XCTAssertThrowsError(try ConnectionInfo("postgresql://ann:hunter2@host:notaport:/x?bogus=1")) { error in
            XCTAssertFalse("\(error)".contains("hunter2"))
        }
        XCTAssertThrowsError(try ConnectionInfo("password=hunter2 nonsense")) { error in
            XCTAssertFalse("\(error)".contains("hunter2"))
        }
    }

    func testAWrongPasswordIsAPermissionErrorWithoutThePassword() throws {
        let url = try TestDatabase.requirePostgres()
        let info = try ConnectionInfo(url)
        // A role that must give a password (the test server trusts its local users, so the role
        // is made to need one through a fresh role and a connection over TCP).
        let admin = try PostgresDatabase(url)
        let role = "photos_pw_\(UInt32.random(in: 0..<UInt32.max))"
        try admin.execute("CREATE ROLE \(role) LOGIN PASSWORD 'right-one'")
        defer { try? admin.execute("DROP ROLE \(role)") }
        let wrong = info.setting("user", to: role).setting("password", to: "wrong-hunter2")
        do {
            _ = try PostgresDatabase(wrong.connectionString)
            // A trust-authenticated server lets any password in: nothing more to check there.
        } catch let error as PostgresError {
            XCTAssertFalse("\(error)".contains("hunter2"))
            XCTAssertTrue(error.isPermission, "\(error)")
        }
    }
}
