import Foundation
import PhotosFiles
import PhotosModel
import PhotosTestSupport
import XCTest

@testable import PhotosCore

/// `verify` runs the catalog's checks and the thumbnails' on two more connections in its read
/// transaction's snapshot (`VerifyStore.openSnapshotReaders`), on their own threads: what they
/// find is reported as one connection reports it, in the same order, and they see the snapshot
/// of verify's transaction, not a later commit.
final class VerifySnapshotReadersTests: ImportTestCase {
    /// A library of 6 photos with one problem of each part of verify: photo 4's tag of another
    /// zone (the catalog's first part), photo 0's displayName and a tag's name (its second part), photo 1's original gone (originals), photo 2's thumbnail
    /// gone and photo 3's damaged (thumbnails), and a file no row references (orphans).
    private func damagedLibrary() throws -> Library {
        let library = try importedLibrary(photos: 6, seed: 700)
        let catalog = library.catalog
        let photos = try catalog.statement(
            "SELECT p.id, d.file_ref FROM photo p JOIN photo_data d ON d.photo_id = p.id ORDER BY p.id"
        )
        .map { (id: $0.int64(0), ref: $0.string(1)) }
        try catalog.run("UPDATE photo SET display_name = '..' WHERE id = ?", [photos[0].id])
        try catalog.run(
            "INSERT INTO tag (uuid, name, zone_id) VALUES ('33333333-3333-4333-8333-333333333333', ' Sky', 'default')")
        try catalog.run("INSERT INTO zone (id, name, scope) VALUES ('zz', 'zz', 'private')")
        try catalog.run(
            "INSERT INTO tag (uuid, name, zone_id) VALUES ('44444444-4444-4444-8444-444444444444', 'Sea', 'zz')")
        try catalog.run(
            "INSERT INTO photo_tag (photo_id, tag_id) SELECT ?, id FROM tag WHERE uuid = '44444444-4444-4444-8444-444444444444'",
            [photos[4].id])
        XCTAssertEqual(unlink(library.externalData.root + "/" + photos[1].ref), 0)
        try catalog.run("DELETE FROM thumbnail WHERE photo_id = ?", [photos[2].id])
        try catalog.run("UPDATE thumbnail SET data = ? WHERE photo_id = ?", [[UInt8]([0xFF, 0xD8, 0xFF]), photos[3].id])
        let orphan = "ee/" + String(repeating: "e", count: 64)
        XCTAssertEqual(mkdir(library.externalData.root + "/ee", 0o755), 0)
        XCTAssertTrue(
            FileManager.default.createFile(atPath: library.externalData.root + "/" + orphan, contents: Data([1])))
        return library
    }

    func testConcurrentChecksReportWhatOneConnectionReportsInTheSameOrder() throws {
        let library = try damagedLibrary()
        let expected: [VerifyProblem.Kind] = [
            .crossZone, .badDisplayName, .badTagName, .missingFile, .missingThumbnail, .damagedThumbnail, .orphanFile
        ]
        for quick in [true, false] {
            let alone = try library.verify(quick: quick, jobs: 2, snapshotReaders: 0)
            let beside = try library.verify(quick: quick, jobs: 2, snapshotReaders: 3)
            XCTAssertEqual(alone.problems.map(\.kind), expected, "quick \(quick)")
            XCTAssertEqual(beside.problems, alone.problems, "quick \(quick)")
            XCTAssertEqual([beside.photos, beside.files, beside.thumbnails], [6, 6, 5], "quick \(quick)")
            XCTAssertEqual([alone.photos, alone.files, alone.thumbnails], [6, 6, 5], "quick \(quick)")
            // One or two readers: the rest on verify's connection.
            for readers in [1, 2] {
                XCTAssertEqual(
                    try library.verify(quick: quick, jobs: 1, snapshotReaders: readers).problems, alone.problems,
                    "quick \(quick), \(readers) readers")
            }
        }
        // The public entry point (three readers) reports the same.
        XCTAssertEqual(try library.verify(quick: true).problems.map(\.kind), expected)
    }

    /// The readers see the snapshot of the opening store's read transaction: a commit made
    /// after they are opened is seen by none of them, one made before by all.
    func testSnapshotReadersSeeTheOpeningTransactionsSnapshot() throws {
        let library = try importedLibrary(photos: 3, seed: 720)
        let names = try library.catalog.statement("SELECT unique_name FROM photo ORDER BY id").map { $0.string(0) }
        // Another connection, as another process would write.
        let writer = try TestCatalog(root: library.root)
        let store = library.verifyStore
        try library.store.readTransaction {
            try writer.run(
                "DELETE FROM thumbnail WHERE photo_id = (SELECT id FROM photo WHERE unique_name = ?)", [names[0]])
            let readers = try store.openSnapshotReaders(count: 3)
            XCTAssertEqual(readers.count, 3)
            try writer.run(
                "DELETE FROM thumbnail WHERE photo_id = (SELECT id FROM photo WHERE unique_name = ?)", [names[1]])
            XCTAssertEqual(try store.photosWithoutThumbnail().map(\.uniqueName), [names[0]])
            for reader in readers {
                XCTAssertEqual(try reader.store.photosWithoutThumbnail().map(\.uniqueName), [names[0]])
                var heads: [String] = []
                try reader.store.forEachThumbnailHead(headBytes: 16) { heads.append($0.photo.uniqueName) }
                XCTAssertEqual(heads, [names[1], names[2]])
                reader.close()
            }
        }
        // After the transaction, both deletions are seen.
        XCTAssertEqual(
            try library.verify(quick: true).problems.filter { $0.kind == .missingThumbnail }.compactMap(
                \.subject.photoUniqueName
            ).sorted(), [names[0], names[1]].sorted())
    }

    /// SQLite: while another connection holds the write lock, no reader is opened (the lock
    /// that makes their snapshots equal cannot be had) and verify checks everything on its own
    /// connection, with the same report.
    func testWithoutReadersWhileAWriterHoldsTheLockTheReportIsTheSame() throws {
        try TestDatabase.requireSQLite(because: "the snapshot readers of SQLite take the write lock for a moment")
        let library = try damagedLibrary()
        let alone = try library.verify(quick: true, jobs: 2, snapshotReaders: 0)
        let writer = try TestCatalog(root: library.root)
        try writer.beginWriteTransaction()
        defer { try? writer.rollback() }
        try library.store.readTransaction {
            XCTAssertEqual(try library.verifyStore.openSnapshotReaders(count: 3).count, 0)
        }
        XCTAssertEqual(try library.verify(quick: true, jobs: 2).problems, alone.problems)
    }
}
