import Foundation
import PhotosModel
import PhotosPostgreSQL
import PhotosSQLite
import PhotosTestSupport
import XCTest

/// The reconciler's batched `sync_entry` lookups (`syncEntries(_:_:)` for many ids,
/// `syncLinkEntries(ofPhotos:)`) answer the same on PostgreSQL, where they are planned at every
/// execution and read link ranges through a LATERAL subquery, as on SQLite: over photos whose
/// names are prefixes of each other (`p1`, `p1/x`, `p10`), slices with surplus keys, and more
/// than five executions of one statement text (when a prepared statement turns generic).
final class BatchedSyncLookupsTests: PostgresTestCase {
    private let library = "c0000000-0000-4000-8000-000000000001"

    private func entry(_ entity: SyncEntity, _ id: String, _ attribute: String) -> SyncEntry {
        SyncEntry(
            entity: entity, objectID: id, attribute: attribute, value: "v-\(id)",
            stamp: SyncStamp(time: "2026-01-01T00:00:00.000Z", library: library), zone: "default")
    }

    /// Writes entries in rounds (one round per read) and returns every read, in order.
    private func reads(_ store: any SyncStore, transaction: (() throws -> Void) throws -> Void) throws -> [String] {
        var out: [String] = []
        let names = ["p1", "p1/x", "p10", "p2", "p3", "q"]
        try transaction {
            for round in 0..<8 {
                var written: [SyncEntry] = []
                for name in names {
                    written.append(entry(.photo, name, "a\(round)"))
                    written.append(entry(.photoTag, "\(name)/t\(round)", "present"))
                }
                try store.putSyncEntries(written, token: Int64(round + 1))
                for asked in [["p1"], ["p1", "p2", "p3"], ["p1/x", "q", "nobody"], names] {
                    let entries = try store.syncEntries(.photo, asked).map { "\($0.objectID) \($0.attribute)" }
                    let links = try store.syncLinkEntries(ofPhotos: asked).map { "\($0.objectID) \($0.value ?? "-")" }
                    out.append("\(round) \(asked): \(entries.sorted()) | \(links.sorted())")
                }
            }
        }
        return out
    }

    func testBatchedSyncEntryLookupsReadTheSameAsOnSQLite() throws {
        let sqlite = try migratedSQLiteDatabase()
        let onSQLite = try reads(sqlite) { body in try sqlite.transaction { try body() } }
        let pg = db!
        let onPostgres = try reads(pg) { body in try pg.transaction(.exclusive) { try body() } }
        XCTAssertEqual(onPostgres, onSQLite)
        // Round 7, photo p1: its own entries and links only (not p1/x's, p10's).
        XCTAssertTrue(onPostgres.contains { $0.hasPrefix("7 [\"p1\"]: ") && $0.contains("\"p1/t7 v-p1/t7\"") })
        XCTAssertFalse(onPostgres.contains { $0.hasPrefix("7 [\"p1\"]: ") && $0.contains("p10") })
        XCTAssertEqual(onPostgres.last?.contains("\"q/t7 v-q/t7\""), true)
    }
}
