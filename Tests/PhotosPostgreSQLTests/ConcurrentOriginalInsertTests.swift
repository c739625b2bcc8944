import Foundation
import PhotosModel
import PhotosPostgreSQL
import PhotosTestSupport
import Synchronization
import XCTest

/// The SHA-256 duplicate rule (one photo per original in one zone) holds across concurrent
/// writers on PostgreSQL: four writers, each on its own connection, insert overlapping sets of
/// originals in batches, each checking `hasOriginal(sha256:in:)` (which takes the original's
/// advisory lock until commit) first, as the import batch writer does, and every original ends
/// up exactly once, with no writer failing.
final class ConcurrentOriginalInsertTests: PostgresTestCase {
    func testOverlappingWritersStoreEachOriginalOnce() throws {
        let writers = 4
        let originals = 120
        let url = connectionString
        let errors = Mutex<[String]>([])
        let inserted = Mutex<[Int]>(Array(repeating: 0, count: writers))
        let group = DispatchGroup()
        for w in 0..<writers {
            group.enter()
            Thread.detachNewThread {
                defer { group.leave() }
                do {
                    let db = try PostgresDatabase(url)
                    // Each writer takes 3/4 of the originals, starting at its own offset, in batches
                    // of 10 sorted by digest (as the import batch writer does).
                    let mine = (0..<originals).map { ($0 + w * originals / writers) % originals }.prefix(
                        originals * 3 / 4)
                    let batches = stride(from: 0, to: mine.count, by: 10).map { Array(mine.dropFirst($0).prefix(10)) }
                    for batch in batches {
                        try db.transaction(.write) {
                            let writer = PostgresPhotoWriter(db)
                            for n in batch.sorted(by: { Self.digest($0) < Self.digest($1) }) {
                                let photo = PhotoRow(
                                    uniqueName: UUID().uuidString, displayName: "\(n).jpg",
                                    importedAt: "2026-01-01T00:00:00.000Z", captureDate: nil, captureOffset: nil,
                                    captureSource: nil, width: 1, height: 1, format: .jpeg, orientation: .up,
                                    zoneID: .default)
                                if try db.hasOriginal(sha256: Self.digest(n), in: .zone("default")) { continue }
                                _ = try writer.insert(
                                    photo, sha256: Self.digest(n), byteSize: n, fileReference: "x/\(n)",
                                    thumbnail: (data: [UInt8(n % 256), 0], width: 1, height: 1))
                                inserted.withLock { $0[w] += 1 }
                            }
                            let token = try db.appendHistoryTransaction(
                                timestamp: "2026-01-01T00:00:00.000Z", author: "w\(w)", context: .import)
                            try db.appendHistoryChanges(
                                [HistoryChange(entity: "Photo", objectID: "batch", type: .insert)], token: token)
                        }
                    }
                } catch {
                    errors.withLock { $0.append("writer \(w): \(error)") }
                }
            }
        }
        group.wait()
        XCTAssertEqual(errors.withLock { $0 }, [])
        XCTAssertEqual(inserted.withLock { $0.reduce(0, +) }, originals)
        XCTAssertEqual(try db.photoCount(), originals)
        XCTAssertEqual(try db.recordedOriginalCount(), originals)
        XCTAssertEqual(try db.scalarInt("SELECT count(DISTINCT sha256) FROM photo_data"), originals)
        XCTAssertEqual(try db.scalarInt("SELECT count(*) FROM thumbnail"), originals)
        XCTAssertTrue(try db.photosSharingOriginals().isEmpty)
        XCTAssertTrue(try db.photosWithoutOriginal().isEmpty)
    }

    /// Issue 31 A1: the rule is per zone. A second photo of one original in the same zone is
    /// found by `hasOriginal`; one in another zone is not, and is stored (one file, two rows).
    func testAnOriginalIsHeldOncePerZone() throws {
        let writer = PostgresPhotoWriter(db)
        try db.execute("INSERT INTO zone (id, name, scope) VALUES ('trip', 'trip', 'private')")
        try db.transaction {
            XCTAssertFalse(try db.hasOriginal(sha256: sha(5), in: .zone("default")))
            _ = try writer.insert(photo("a"), sha256: sha(5), byteSize: 1, fileReference: "r", thumbnail: nil)
        }
        try db.transaction {
            XCTAssertTrue(try db.hasOriginal(sha256: sha(5), in: .zone("default")))
            XCTAssertFalse(try db.hasOriginal(sha256: sha(5), in: .zone("trip")))
            var b = photo("b")
            b.zoneID = ZoneID(rawValue: "trip")
            _ = try writer.insert(b, sha256: sha(5), byteSize: 1, fileReference: "r", thumbnail: nil)
        }
        XCTAssertEqual(
            try db.statement(
                "SELECT p.unique_name, p.zone_id FROM photo p JOIN photo_data d ON d.photo_id = p.id ORDER BY 1"
            )
            .map { $0.string(0) + " " + $0.string(1) }, ["a default", "b trip"])
        XCTAssertTrue(try db.photosSharingOriginals().isEmpty)
    }

    static func digest(_ n: Int) -> String {
        // Not in n's order, so that sorted batches and writer offsets interleave.
        String(format: "%016x", (UInt64(n) &* 0x9E37_79B9_7F4A_7C15)) + String(repeating: "a", count: 48)
    }
}
