import Foundation
import PhotosTestSupport
import XCTest

/// One photo per original across backends (SYNC.md "One photo per original"): the same file
/// imported into a PostgreSQL library and into a SQLite library, each on its own, syncs (exit 0,
/// where PostgreSQL's UNIQUE(sha256) used to refuse it with 70) into one photo on both, the one
/// with the smaller uniqueName, with the tags and ratings of both.
extension PostgresSyncCLITests {
    func testTheSameFileImportedOnBothSidesSyncsIntoOnePhoto() throws {
        let pg = dir + "/pg", sq = dir + "/sq"
        let drop = try makePostgresLibrary(pg)
        defer { drop() }
        try TestDatabase.initializeSQLiteLibrary(at: sq)
        let copy = dir + "/another-name.jpg"
        try FileManager.default.copyItem(atPath: samplesDir + "/storm.jpg", toPath: copy)
        try ok(pg, ["import", "-q", "--tag", "Trip", samplesDir + "/storm.jpg"])
        try ok(sq, ["import", "-q", "--tag", "Home", copy])
        let names = [try photos(pg), try photos(sq)].map { $0.first.map { String($0.split(separator: " ")[0]) } }
        let survivor = try XCTUnwrap(names.compactMap { $0 }.min())
        XCTAssertNotEqual(names[0], names[1])
        try ok(pg, ["rate", "--author", "ann", try XCTUnwrap(names[0]), "4"])
        try ok(sq, ["rate", "--author", "bob", try XCTUnwrap(names[1]), "2"])

        try ok(pg, ["sync", "--from", sq, "-q"])
        try ok(sq, ["sync", "--from", pg, "-q"])
        try ok(pg, ["sync", "--from", sq, "-q"])
        let after = try photos(pg)
        XCTAssertEqual(try photos(sq), after)
        XCTAssertEqual(after.count, 1, "\(after)")
        XCTAssertTrue(after.first?.hasPrefix(survivor + " ") ?? false, "\(after)")
        XCTAssertTrue(after.first?.contains("Home") ?? false, "\(after)")
        XCTAssertTrue(after.first?.contains("Trip") ?? false, "\(after)")
        XCTAssertTrue(after.first?.contains(" 3") ?? false, "mean of ann's 4 and bob's 2: \(after)")
        XCTAssertEqual(try ok(pg, ["tag", "list"]), try ok(sq, ["tag", "list"]))
        try verifyClean([pg, sq])
        assertBackends(pg: pg, sq: sq)
    }
}
