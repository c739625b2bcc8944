import PhotosModel
import PhotosPostgreSQL
import XCTest

/// libpq reports a failed connection without a SQLSTATE; `PostgresError.loginRefusal` reads
/// the server's FATAL message (as libpq 15 prints it) and a refused login becomes
/// `StoreError.Kind.refused` (exit 77), while a server that cannot be reached stays class 08.
/// The messages are the server's own wording (PostgreSQL 15 `auth.c`, `postinit.c`), so the
/// refusals a trusting test server cannot produce (a wrong password, a pg_hba.conf rule) are
/// held here.
final class LoginRefusalClassificationTests: XCTestCase {
    private let prefix = "connection to server at \"127.0.0.1\", port 5432 failed: FATAL:  "

    func testEachRefusalOfTheServerGetsItsSQLState() {
        let cases: [(String, String?)] = [
            ("password authentication failed for user \"ann\"", "28P01"),
            ("fe_sendauth: no password supplied", "28P01"),
            ("Peer authentication failed for user \"ann\"", "28000"),
            ("no pg_hba.conf entry for host \"10.0.0.2\", user \"ann\", database \"photos\", no encryption", "28000"),
            ("pg_hba.conf rejects connection for host \"10.0.0.2\", user \"ann\", database \"photos\"", "28000"),
            ("role \"ann\" does not exist", "28000"),
            ("role \"ann\" is not permitted to log in", "28000"),
            ("database \"photos\" does not exist", "3D000"),
            ("permission denied for database \"photos\"", "42501"),
            ("Connection refused\n\tIs the server running on that host and accepting TCP/IP connections?", nil),
            ("could not translate host name \"nowhere\" to address: Name or service not known", nil),
            ("the database system is starting up", nil)
        ]
        for (message, state) in cases {
            XCTAssertEqual(PostgresError.loginRefusal(prefix + message), state, message)
        }
    }

    func testARefusedLoginIsRefusedAndAnUnreachableServerCannotOpen() {
        for state in ["28P01", "28000", "3D000", "42501"] {
            let error = PostgresError(sqlState: state, message: "cannot connect to postgresql://ann@db/photos: …")
            XCTAssertTrue(error.isLoginRefused, state)
            XCTAssertEqual(error.storeError.kind, .refused, state)
        }
        XCTAssertEqual(PostgresError(sqlState: "08006", message: "cannot connect").storeError.kind, .cannotOpen)
        // The same SQLSTATE from a statement (not a login) keeps its own kind.
        let statement = PostgresError(sqlState: "42501", message: "permission denied for table photo", sql: "SELECT 1")
        XCTAssertFalse(statement.isLoginRefused)
        XCTAssertEqual(statement.storeError.kind, .readOnly)
    }
}
