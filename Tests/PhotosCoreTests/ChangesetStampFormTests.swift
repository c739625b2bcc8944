import Foundation
import PhotosCore
import PhotosModel
import PhotosSQLite
import PhotosTestSupport
import XCTest

/// Stamps order as strings, so a changeset's stamp times must be in the one form export writes
/// (`YYYY-MM-DDTHH:MM:SS.fffZ`) and leave room for later local edits: `…39Z` sorts after
/// `…39.500Z`, and a local edit after `9999-12-31T23:59:59.999Z` would be stamped in year 10000,
/// which sorts before it. Any other stamp is refused with 65 and nothing is written.
final class ChangesetStampFormTests: SyncTestCase {
    private func assertStampRefused(_ time: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let a = try library("A-\(time.count)-\(time.prefix(4))"), b = try library("B-\(time.count)-\(time.prefix(4))")
        try importPhotos(a, count: 1, tags: ["Trip"])
        let cs = try export(a)
        let db = try Database(path: cs + "/changeset.sqlite")
        try db.execute("PRAGMA journal_mode = DELETE")
        try db.execute("UPDATE entry SET stamp_time = '\(time)' WHERE entity = 'Tag' AND attribute = 'name'")
        let dump = try LibrarySnapshot.dumpCatalog(b.root)
        let (code, message) = status { _ = try b.applyChangeset(at: cs) }
        XCTAssertEqual(code, .refused, message, file: file, line: line)
        XCTAssertTrue(message.contains("the stamp of name is not a time"), message, file: file, line: line)
        XCTAssertEqual(try LibrarySnapshot.dumpCatalog(b.root), dump, file: file, line: line)
        XCTAssertEqual(filesUnder(b.root + "/ExternalData"), [], file: file, line: line)
    }

    func testStampWithoutMillisecondsIsRefused() throws {
        try assertStampRefused("2026-11-30T14:07:39Z")
    }

    func testStampWithMicrosecondsIsRefused() throws {
        try assertStampRefused("2026-11-30T14:07:39.123456Z")
    }

    func testStampWithAnOffsetIsRefused() throws {
        try assertStampRefused("2026-11-30T14:07:39.123+01:00")
    }

    func testStampWithNoRoomForALaterEditIsRefused() throws {
        try assertStampRefused("9999-12-31T23:59:59.999Z")
    }

    /// The same change stamped one millisecond before the bound is applied.
    func testLatestAcceptedStampIsApplied() throws {
        let a = try library("A"), b = try library("B")
        try importPhotos(a, count: 1, tags: ["Trip"])
        let cs = try export(a)
        let db = try Database(path: cs + "/changeset.sqlite")
        try db.execute("PRAGMA journal_mode = DELETE")
        try db.execute(
            "UPDATE entry SET stamp_time = '8999-12-31T23:59:59.999Z' WHERE entity = 'Tag' AND attribute = 'name'")
        _ = try b.applyChangeset(at: cs)
        XCTAssertEqual(try b.tags().map(\.name), ["Trip"])
        try assertVerifyClean(b)
    }

    /// A forged `toToken` (the largest 64-bit integer) is refused with 65 and nothing is
    /// written: recorded as applied, it would make every later changeset of that sender look
    /// applied before and hide every gap.
    func testATokenRangeBeyondAnyHandedOutTokenIsRefused() throws {
        let a = try library("A-token"), b = try library("B-token")
        try importPhotos(a, count: 1, tags: ["Trip"])
        let cs = try export(a)
        let db = try Database(path: cs + "/changeset.sqlite")
        try db.execute("PRAGMA journal_mode = DELETE")
        try db.execute("UPDATE header SET value = '9223372036854775807' WHERE key = 'toToken'")
        let dump = try LibrarySnapshot.dumpCatalog(b.root)
        let (code, message) = status { _ = try b.applyChangeset(at: cs) }
        XCTAssertEqual(code, .refused, message)
        XCTAssertTrue(message.contains("beyond any token"), message)
        XCTAssertEqual(try LibrarySnapshot.dumpCatalog(b.root), dump)
        XCTAssertEqual(filesUnder(b.root + "/ExternalData"), [])
    }
}
