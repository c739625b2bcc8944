import Foundation
import PhotosPostgreSQL
import PhotosTestSupport
import XCTest

/// A PostgreSQL server that refuses the login — no such role, a role that may not log in, no
/// such database, a wrong password — makes every command exit 77 (EX_NOPERM) with one line
/// naming the server (user, host, port, database) and never the password; a server that cannot
/// be reached at all stays a different failure (not 77). Runs against the test server of
/// `PHOTOS_TEST_DATABASE_URL` (`.ci/run` initdb's it with `--auth=trust`: there the refusals
/// are the role's and the database's; the wrong-password case runs where host connections
/// check passwords and skips on a trusting server).
final class RefusedLoginCLITests: BinaryTestCase {
    private var connectionString = ""
    private var drop: (@Sendable () -> Void)?
    private let secret = "pw-\(UUID().uuidString.prefix(8))"

    override func setUpWithError() throws {
        try super.setUpWithError()
        let made = try TestDatabase.makeSchema()
        connectionString = made.connectionString
        drop = made.drop
    }

    override func tearDown() {
        drop?()
        super.tearDown()
    }

    /// The test server's connection string with `changes` applied and the password `secret`.
    private func connection(_ changes: [String: String]) throws -> String {
        var info = try ConnectionInfo(connectionString).setting("password", to: secret)
        for (key, value) in changes { info = info.setting(key, to: value) }
        return info.connectionString
    }

    /// Asserts one refusal: exit 77, one line saying the server refused the login, naming
    /// `names` (the role, the database, the host and port), without the password.
    private func assertRefused(
        _ result: (status: Int32, stdout: String, stderr: String), naming names: [String],
        file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let info = try ConnectionInfo(connectionString)
        XCTAssertEqual(result.status, 77, result.stderr, file: file, line: line)
        XCTAssertTrue(result.stderr.contains("refused the login"), result.stderr, file: file, line: line)
        for name in names + [info["host"] ?? "", info["port"] ?? ""] where !name.isEmpty {
            XCTAssertTrue(result.stderr.contains(name), "\(name) not in: \(result.stderr)", file: file, line: line)
        }
        XCTAssertFalse(result.stderr.contains(secret), result.stderr, file: file, line: line)
        XCTAssertFalse(result.stdout.contains(secret), result.stdout, file: file, line: line)
        XCTAssertEqual(result.stderr.split(separator: "\n").count, 1, result.stderr, file: file, line: line)
    }

    func testInitWithARoleThatDoesNotExistExits77NamingTheServer() throws {
        let role = "photos_no_role_\(UUID().uuidString.prefix(8).lowercased())"
        let library = dir + "/lib"
        try assertRefused(try run(["init", "--database", try connection(["user": role]), library]), naming: [role])
        XCTAssertFalse(FileManager.default.fileExists(atPath: library + "/catalog.postgresql"))
    }

    func testInitWithADatabaseThatDoesNotExistExits77NamingTheServer() throws {
        let database = "photos_no_db_\(UUID().uuidString.prefix(8).lowercased())"
        let library = dir + "/lib"
        try assertRefused(
            try run(["init", "--database", try connection(["dbname": database]), library]), naming: [database])
        XCTAssertFalse(FileManager.default.fileExists(atPath: library + "/catalog.postgresql"))
    }

    /// A library made by a role that is later refused (NOLOGIN): every later command exits 77,
    /// reading as well as writing, and the catalog is untouched.
    func testCommandsOnALibraryWhoseRoleMayNoLongerLogInExit77() throws {
        let admin = try PostgresDatabase(connectionString)
        let role = "photos_refused_\(UUID().uuidString.prefix(8).lowercased())"
        try admin.execute("CREATE ROLE \(role) LOGIN SUPERUSER")
        defer { try? admin.execute("DROP ROLE IF EXISTS \(role)") }
        let library = dir + "/lib"
        let created = try run(["init", "--database", try connection(["user": role]), library])
        XCTAssertEqual(created.status, 0, created.stderr)
        let imported = try run(["import", "--library", library, samplesDir])
        XCTAssertEqual(imported.status, 0, imported.stderr)

        try admin.execute("ALTER ROLE \(role) NOLOGIN")
        for command in [["list"], ["verify", "--quick"], ["dedupe-tags", "--all"], ["history"], ["stats"]] {
            try assertRefused(
                try runProcess(
                    try binary(), command + ["--library", library],
                    environment: ProcessInfo.processInfo.environment.merging(["PGPASSWORD": secret]) { $1 }),
                naming: [role])
        }
        XCTAssertEqual(try admin.photoCount(), 6)
    }

    /// A wrong password: refused (77) where the server checks passwords on host connections;
    /// skipped on a server that trusts them (the CI server), where any password is accepted.
    func testAWrongPasswordExits77WithoutShowingIt() throws {
        let admin = try PostgresDatabase(connectionString)
        let role = "photos_test_password_role"
        try admin.execute(
            "DO $$ BEGIN CREATE ROLE \(role) LOGIN SUPERUSER; EXCEPTION WHEN duplicate_object THEN NULL; END $$")
        try admin.execute("ALTER ROLE \(role) PASSWORD 'the-right-one'")
        if let trusted = try? PostgresDatabase(try connection(["user": role])) {
            trusted.close()
            throw XCTSkip("the test server accepts any password on host connections (--auth=trust)")
        }
        try assertRefused(
            try run(["init", "--database", try connection(["user": role]), dir + "/lib"]), naming: [role])
    }

    /// A server that is not there is no refusal: not 77, and still no password.
    func testAServerThatCannotBeReachedIsNotARefusedLogin() throws {
        let r = try run(["init", "--database", try connection(["host": "127.0.0.1", "port": "1"]), dir + "/lib"])
        XCTAssertNotEqual(r.status, 77, r.stderr)
        XCTAssertNotEqual(r.status, 0, r.stderr)
        XCTAssertFalse(r.stderr.contains("refused the login"), r.stderr)
        XCTAssertFalse(r.stderr.contains(secret), r.stderr)
    }
}
