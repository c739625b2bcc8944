import Foundation
import PhotosPostgreSQL
import XCTest

/// The catalog backend the tests run on, chosen by one environment variable:
/// `PHOTOS_TEST_DATABASE_URL` (a libpq connection string of a server the tests may create
/// schemas on, for example `postgresql://postgres@127.0.0.1:54329/postgres`) makes libraries
/// PostgreSQL ones; unset, they are SQLite ones (`.ci/run` runs the suite both ways).
public enum TestDatabase {
    /// The variable's name.
    public static let variable = "PHOTOS_TEST_DATABASE_URL"

    /// The server's connection string, when the variable is set and not empty.
    public static var postgresURL: String? {
        guard let url = ProcessInfo.processInfo.environment[variable], !url.isEmpty else { return nil }
        return url
    }

    /// The server's connection string.
    /// - Throws: `XCTSkip` naming the variable when it is not set.
    public static func requirePostgres() throws -> String {
        guard let postgresURL else {
            throw XCTSkip("\(variable) is not set: PostgreSQL tests skipped (.ci/run starts a server and sets it)")
        }
        return postgresURL
    }

    /// A fresh, empty schema of its own on the test server (so tests run in parallel without
    /// seeing each other's tables), and the connection string that makes it the search path
    /// (`options=-csearch_path=…`, libpq docs §34.1.2).
    /// - Returns: the connection string; `drop` removes the schema and everything in it.
    /// - Throws: `XCTSkip` when no server is configured, `PostgresError` when it cannot be reached.
    public static func makeSchema() throws -> (connectionString: String, schema: String, drop: @Sendable () -> Void) {
        let base = try requirePostgres()
        let schema = "photos_test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        let admin = try PostgresDatabase(base)
        try admin.execute("CREATE SCHEMA \(schema)")
        let info = try ConnectionInfo(base).setting("options", to: "-csearch_path=\(schema)")
        let drop: @Sendable () -> Void = {
            if let admin = try? PostgresDatabase(base) { try? admin.execute("DROP SCHEMA \(schema) CASCADE") }
        }
        return (info.connectionString, schema, drop)
    }
}
