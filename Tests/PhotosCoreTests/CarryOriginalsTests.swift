import Foundation
import PhotosFiles
import PhotosModel
import PhotosSQLite
import PhotosTestSupport
import XCTest

@testable import PhotosCore

/// Issue 24 item 2: every command that moves a library's content carries each of a photo's
/// originals: a changeset carries the `raw` original's PhotoData entity and its bytes, refuses
/// an unknown role, a second primary and an original of no photo with nothing applied; merge
/// brings it; backup and restore keep its file.
final class CarryOriginalsTests: SyncTestCase {
    /// Gives photo `name` of `library` a `raw` original (bytes of its own, format `raw`): the
    /// file in external data, the `photo_data` row of role `raw`. - Returns: its SHA-256 and bytes.
    @discardableResult
    func addRaw(_ library: Library, photo name: String) throws -> (sha256: String, bytes: [UInt8]) {
        let bytes = Array("RAW original of \(name) — not a real camera file".utf8)
        let sha = try bytes.withUnsafeBytes { try SHA256Hasher.hex(of: $0) }
        let path = library.externalData.path(for: ExternalDataStore.reference(for: sha))
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        try library.catalog.run(
            """
            INSERT INTO photo_data (photo_id, sha256, byte_size, file_ref, role, format)
            SELECT id, ?, ?, ?, 'raw', 'raw' FROM photo WHERE unique_name = ?
            """, [sha, bytes.count, ExternalDataStore.reference(for: sha), name])
        return (sha, bytes)
    }

    /// (uniqueName, role, sha256, byte size, format) of every photo_data row, sorted.
    func originals(_ library: Library) throws -> [[String?]] {
        try library.catalog.rows(
            """
            SELECT p.unique_name, d.role, d.sha256, d.byte_size, d.format FROM photo_data d
            JOIN photo p ON p.id = d.photo_id ORDER BY p.unique_name, d.role
            """)
    }

    /// The bytes of original `sha` in `library`'s external data (nil when absent).
    func file(_ library: Library, _ sha: String) -> [UInt8]? {
        FileManager.default.contents(atPath: library.externalData.path(for: ExternalDataStore.reference(for: sha)))
            .map { [UInt8]($0) }
    }

    /// Runs SQL on a changeset's database (the `sqlite3` tool).
    func tamper(_ changeset: String, _ sql: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        process.arguments = [changeset + "/changeset.sqlite", sql]
        try process.run()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, sql)
    }

    func testSyncCarriesTheRawOriginalWithItsRoleAndBytes() throws {
        let a = try library("A")
        let name = try XCTUnwrap(try importPhotos(a).first)
        let raw = try addRaw(a, photo: name)
        let changeset = try export(a)
        let b = try library("B")
        let report = try b.applyChangeset(at: changeset)
        XCTAssertEqual(report.originalsCopied, 2)
        XCTAssertEqual(try originals(b), try originals(a))
        XCTAssertEqual(try originals(b).map { $0[1] }, ["primary", "raw"])
        XCTAssertEqual(try originals(b).last?[2], raw.sha256)
        XCTAssertEqual(file(b, raw.sha256), raw.bytes)
        // Applying again changes nothing.
        _ = try b.applyChangeset(at: changeset)
        XCTAssertEqual(try originals(b), try originals(a))
    }

    func testAChangesetWithoutPhotoDataMeansThePrimaryOnly() throws {
        let a = try library("A")
        let name = try XCTUnwrap(try importPhotos(a).first)
        try addRaw(a, photo: name)
        let changeset = try export(a)
        // As an older peer writes it: no PhotoData entity, no second original.
        try tamper(changeset, "DELETE FROM entry WHERE entity = 'PhotoData'")
        let b = try library("B")
        _ = try b.applyChangeset(at: changeset)
        let rows = try originals(b)
        XCTAssertEqual(rows.map { $0[1] }, ["primary"])
        XCTAssertEqual(rows.first?[2], try originals(a).first?[2])
    }

    /// A refused changeset leaves the receiver as it was: no photo, no original row, no file.
    private func assertRefused(
        _ sql: String, saying words: [String], file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let a = try library("A")
        let name = try XCTUnwrap(try importPhotos(a).first)
        let raw = try addRaw(a, photo: name)
        let changeset = try export(a)
        try tamper(changeset, sql)
        let b = try library("B")
        let (kind, message) = status { _ = try b.applyChangeset(at: changeset) }
        XCTAssertEqual(kind, .refused, message, file: file, line: line)
        XCTAssertTrue(message.contains(changeset), message, file: file, line: line)
        for word in words { XCTAssertTrue(message.contains(word), message, file: file, line: line) }
        XCTAssertEqual(try b.catalog.scalarInt("SELECT count(*) FROM photo"), 0, file: file, line: line)
        XCTAssertEqual(try b.catalog.scalarInt("SELECT count(*) FROM photo_data"), 0, file: file, line: line)
        XCTAssertNil(self.file(b, raw.sha256), file: file, line: line)
    }

    func testAnUnknownRoleIsRefusedWithNothingApplied() throws {
        try assertRefused(
            "UPDATE entry SET object_id = replace(object_id, '/raw', '/depthMap') WHERE entity = 'PhotoData'",
            saying: ["\"depthMap\"", "not one this library knows"])
    }

    func testASecondPrimaryIsRefusedWithNothingApplied() throws {
        try assertRefused(
            "UPDATE entry SET object_id = replace(object_id, '/raw', '/primary') WHERE entity = 'PhotoData'",
            saying: ["second primary"])
    }

    func testARawOriginalOfAPhotoThatDoesNotExistIsRefusedWithNothingApplied() throws {
        try assertRefused(
            "DELETE FROM entry WHERE entity = 'Photo'", saying: ["neither in the changeset nor in this library"])
    }

    func testMergeBringsTheRawOriginal() throws {
        let a = try library("A")
        let name = try XCTUnwrap(try importPhotos(a).first)
        let raw = try addRaw(a, photo: name)
        let b = try library("B")
        let report = try b.merge(from: a)
        XCTAssertEqual(report.photos, 1)
        XCTAssertEqual(report.originals, 1)
        XCTAssertEqual(try originals(b), try originals(a))
        XCTAssertEqual(file(b, raw.sha256), raw.bytes)
        // Again: nothing new.
        XCTAssertTrue(try b.merge(from: a).isEmpty)
        XCTAssertEqual(try originals(b), try originals(a))
    }

    func testMergeAddsTheRawToAPhotoBothHave() throws {
        let a = try library("A")
        let name = try XCTUnwrap(try importPhotos(a).first)
        let b = try library("B")
        _ = try b.merge(from: a)
        let raw = try addRaw(a, photo: name)
        XCTAssertEqual(try b.merge(from: a).originals, 1)
        XCTAssertEqual(try originals(b), try originals(a))
        XCTAssertEqual(file(b, raw.sha256), raw.bytes)
    }

    func testBackupAndRestoreKeepTheRawOriginal() throws {
        try TestDatabase.requireSQLite(because: "backup copies a SQLite catalog file")
        let a = try library("A")
        let name = try XCTUnwrap(try importPhotos(a).first)
        let raw = try addRaw(a, photo: name)
        let dest = dir + "/backup"
        _ = try a.backup(to: dest, originals: true)
        let backedUp = ExternalDataStore(root: dest + "/" + Library.externalDataName)
        XCTAssertEqual(
            FileManager.default.contents(atPath: backedUp.path(for: ExternalDataStore.reference(for: raw.sha256)))
                .map { [UInt8]($0) }, raw.bytes)
        let restored = try Library.restore(
            from: dest, to: dir + "/restored", backend: SQLiteCatalogBackend(),
            exportStates: SQLiteExportStateBackend())
        XCTAssertEqual(try originals(restored), try originals(a))
        XCTAssertEqual(file(restored, raw.sha256), raw.bytes)
    }

    /// An owner with one photo with a raw original, shared with ann (read-write).
    private func sharedPhoto() throws -> (
        owner: Library, ann: Library, share: String, raw: (sha256: String, bytes: [UInt8]), email: Email
    ) {
        let owner = try library("owner"), ann = try library("ann")
        let name = try XCTUnwrap(try importPhotos(owner).first)
        let raw = try addRaw(owner, photo: name)
        let share = try owner.createShare(photos: [try owner.resolvePhoto(name)], author: .default)
        let email = try Email(parsing: "ann@example.org")
        try owner.invite(email, to: share, permission: .readWrite, author: .default)
        return (owner, ann, share.id, raw, email)
    }

    func testShareExportAndAcceptCarryTheRawOriginal() throws {
        let (owner, ann, share, raw, email) = try sharedPhoto()
        _ = try owner.exportShare(try owner.resolveSharedZone(share), for: email, to: dir + "/to-ann")
        _ = try ann.acceptShare(at: dir + "/to-ann")
        XCTAssertEqual(try originals(ann), try originals(owner))
        XCTAssertEqual(try originals(ann).map { $0[1] }, ["primary", "raw"])
        XCTAssertEqual(file(ann, raw.sha256), raw.bytes)
    }

    /// A zone shared with this library changes only through its owner's share changesets: a
    /// library changeset that gives one of its photos an original is refused (65), nothing applied.
    func testAnOriginalForAPhotoOfASharedZoneInALibraryChangesetIsRefused() throws {
        let (owner, ann, share, raw, email) = try sharedPhoto()
        let toAnn = dir + "/to-ann"
        _ = try owner.exportShare(try owner.resolveSharedZone(share), for: email, to: toAnn)
        try tamper(toAnn, "DELETE FROM entry WHERE entity = 'PhotoData'")
        _ = try ann.acceptShare(at: toAnn)
        XCTAssertEqual(try originals(ann).map { $0[1] }, ["primary"])
        let changeset = try export(owner)
        try tamper(changeset, "DELETE FROM entry WHERE entity <> 'PhotoData'")
        let (kind, message) = status { _ = try ann.applyChangeset(at: changeset) }
        XCTAssertEqual(kind, .refused, message)
        XCTAssertTrue(message.contains(changeset) && message.contains("PhotoData"), message)
        XCTAssertEqual(try originals(ann).map { $0[1] }, ["primary"])
        XCTAssertNil(file(ann, raw.sha256))
    }
}
