import Foundation
import PhotosModel
import PhotosPostgreSQL
import PhotosTestSupport
import Synchronization
import XCTest

/// The SHA-256 duplicate rule holds across concurrent writers on PostgreSQL: four writers, each
/// on its own connection, insert overlapping sets of originals in batches, and every original
/// ends up exactly once, with no writer failing.
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
                                    captureSource: nil, width: 1, height: 1, format: "jpeg", orientation: 1,
                                    zoneID: "default")
                                if try writer.insert(
                                    photo, sha256: Self.digest(n), byteSize: n, fileReference: "x/\(n)",
                                    thumbnail: (data: [UInt8(n % 256), 0], width: 1, height: 1)) != nil
                                {
                                    inserted.withLock { $0[w] += 1 }
                                }
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

    func testASecondInsertOfAnOriginalIsSkippedAndLeavesNoPhoto() throws {
        let writer = PostgresPhotoWriter(db)
        let first = try db.transaction {
            try writer.insert(photo("a"), sha256: sha(5), byteSize: 1, fileReference: "r", thumbnail: nil)
        }
        let second = try db.transaction {
            try writer.insert(photo("b"), sha256: sha(5), byteSize: 1, fileReference: "r", thumbnail: nil)
        }
        XCTAssertNotNil(first)
        XCTAssertNil(second)
        XCTAssertEqual(try db.statement("SELECT unique_name FROM photo").map { $0.string(0) }, ["a"])
    }

    static func digest(_ n: Int) -> String {
        // Not in n's order, so that sorted batches and writer offsets interleave.
        String(format: "%016x", (UInt64(n) &* 0x9E37_79B9_7F4A_7C15)) + String(repeating: "a", count: 48)
    }
}
