import Foundation
import PhotosPostgreSQL
import PhotosSQLite
import PhotosTestSupport
import PhotosModel
import XCTest

/// Base of the PostgreSQL backend tests: a fresh schema per test on the server
/// `PHOTOS_TEST_DATABASE_URL` names (skipped without one), migrated to the current version,
/// dropped after the test.
class PostgresTestCase: XCTestCase {
    /// Connection string whose search path is this test's schema.
    var connectionString = ""
    /// A connection to it, migrated.
    var db: PostgresDatabase!
    private var drop: (@Sendable () -> Void)?

    override func setUpWithError() throws {
        let made = try TestDatabase.makeSchema()
        connectionString = made.connectionString
        drop = made.drop
        db = try PostgresDatabase(connectionString)
        try db.migrate()
    }

    override func tearDown() {
        db = nil
        drop?()
    }

    /// A photo row for the writer: `name` as unique and display name, 4×3 JPEG in the default zone.
    func photo(_ name: String, zone: String = "default") -> PhotoRow {
        PhotoRow(
            uniqueName: name, displayName: name + ".jpg", importedAt: "2026-01-02T03:04:05.678Z",
            captureDate: "2025-06-07T08:09:10", captureOffset: 120, captureSource: "exif", width: 4, height: 3,
            format: .jpeg, orientation: .right, zoneID: ZoneID(rawValue: zone))
    }

    /// 64 hex digits made from `n`.
    func sha(_ n: Int) -> String { String(repeating: "0", count: 48) + String(format: "%016x", n) }

    /// A SQLite catalog migrated to the current version, the reference the parity tests compare
    /// PostgreSQL with, in a temporary folder removed after the test.
    /// - Throws: what `Database.init` and `migrate` throw.
    func migratedSQLiteDatabase() throws -> Database {
        let folder = NSTemporaryDirectory() + "photos-parity-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: folder) }
        let sqlite = try Database(path: folder + "/photos.sqlite")
        try sqlite.migrate()
        return sqlite
    }
}
