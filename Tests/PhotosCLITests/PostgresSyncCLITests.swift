import Foundation
import PhotosTestSupport
import XCTest

/// Sync and sharing between a library whose catalog is on PostgreSQL and SQLite libraries, from
/// the shell (issues 11 and 12): changesets and `sync --from` both ways end with the same photos
/// by uniqueName, tags, ratings and zones; a PostgreSQL owner's share reaches a SQLite
/// participant and its permission holds there. verify is clean in every library after each step.
final class PostgresSyncCLITests: BinaryTestCase {
    override var label: String { "photos-pg-sync-cli" }

    @discardableResult
    override func ok(_ lib: String, _ args: [String], file: StaticString = #filePath, line: UInt = #line) throws
        -> String
    {
        let r = try runProcess(
            try binary(), ["--library", lib] + args, environment: ["PHOTOS_OWNER": "olga@example.org"])
        XCTAssertEqual(r.status, 0, "\(lib) \(args): \(r.stderr)", file: file, line: line)
        return r.stdout
    }

    /// `uniqueName tags rating zone` of every photo, sorted.
    func photos(_ lib: String) throws -> [String] {
        try ok(lib, ["list", "--json"]).split(separator: "\n").map { line in
            let o = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            return "\(o["uniqueName"] ?? "") \(o["tags"] ?? "") \(o["rating"] ?? "-") \(o["zone"] ?? "")"
        }.sorted()
    }

    /// The backends of `pg` and `sq`: the test is of one library on each.
    func assertBackends(pg: String, sq: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(TestDatabase.backend(ofLibraryAt: pg), .postgresql, file: file, line: line)
        XCTAssertEqual(TestDatabase.backend(ofLibraryAt: sq), .sqlite, file: file, line: line)
    }

    func verifyClean(_ libs: [String], file: StaticString = #filePath, line: UInt = #line) throws {
        for lib in libs {
            let report = try ok(lib, ["verify"], file: file, line: line)
            XCTAssertTrue(report.contains("0 problems"), "\(lib): \(report)", file: file, line: line)
        }
    }

    /// A new library on a fresh PostgreSQL schema (skips without `PHOTOS_TEST_DATABASE_URL`).
    func makePostgresLibrary(_ lib: String) throws -> @Sendable () -> Void {
        let made = try TestDatabase.makeSchema()
        let r = try run(["init", "-q", "--database", made.connectionString, lib])
        XCTAssertEqual(r.status, 0, r.stderr)
        return made.drop
    }

    func testAPostgreSQLAndASQLiteLibrarySyncBothWays() throws {
        let pg = dir + "/pg", sq = dir + "/sq"
        let drop = try makePostgresLibrary(pg)
        defer { drop() }
        try TestDatabase.initializeSQLiteLibrary(at: sq)
        try ok(pg, ["import", "-q", "--tag", "Trip"] + ["storm.jpg", "ladybird.jpg"].map { samplesDir + "/" + $0 })
        try ok(sq, ["import", "-q", "--tag", "Home", samplesDir + "/path.jpg"])
        let sqID = try XCTUnwrap(try json(try ok(sq, ["stats", "--json"]))["libraryId"] as? String)
        let pgID = try XCTUnwrap(try json(try ok(pg, ["stats", "--json"]))["libraryId"] as? String)
        XCTAssertNotEqual(pgID, sqID)

        // PostgreSQL → SQLite by a changeset file, SQLite → PostgreSQL by sync --from.
        let exported = try json(try ok(pg, ["--json", "sync", "--export", dir + "/cs1", "--since-peer", sqID]))
        XCTAssertEqual(exported["sender"] as? String, pgID)
        XCTAssertEqual(exported["originals"] as? Int, 2)
        try ok(sq, ["sync", "--apply", dir + "/cs1"])
        let before = try photos(sq)
        let again = try json(try ok(sq, ["--json", "sync", "--apply", dir + "/cs1"]))
        XCTAssertEqual(again["inserted"] as? Int ?? 0, 0, "applying twice changes nothing")
        XCTAssertEqual(try photos(sq), before)
        try ok(pg, ["sync", "--from", sq, "-q"])
        let both = try photos(pg)
        XCTAssertEqual(both.count, 3, "\(both)")
        XCTAssertEqual(try photos(sq), both)
        XCTAssertEqual(both.filter { $0.contains("Trip") }.count, 2, "\(both)")
        XCTAssertEqual(both.filter { $0.contains("Home") }.count, 1, "\(both)")
        try verifyClean([pg, sq])
        assertBackends(pg: pg, sq: sq)

        // Edits on both sides, a delete and a rename travel; then the other way round.
        let names = both.map { String($0.split(separator: " ")[0]) }
        try ok(sq, ["tag", "add", "Sea", names[0]])
        try ok(sq, ["delete", names[2]])
        try ok(pg, ["tag", "rename", "Trip", "Journey"])
        try ok(pg, ["rate", "--author", "ann", names[1], "4"])
        try ok(pg, ["sync", "--from", sq, "-q"])
        try ok(sq, ["sync", "--from", pg, "-q"])
        let after = try photos(pg)
        XCTAssertEqual(try photos(sq), after)
        XCTAssertEqual(after.count, 2, "\(after)")
        XCTAssertFalse(after.contains { $0.hasPrefix(names[2]) }, "the deleted photo stays deleted: \(after)")
        XCTAssertFalse(after.joined().contains("Trip"), "\(after)")
        XCTAssertTrue(after.contains { $0.hasPrefix(names[0]) && $0.contains("Sea") }, "\(after)")
        XCTAssertTrue(after.contains { $0.hasPrefix(names[1]) && $0.contains(" 4 ") }, "\(after)")
        XCTAssertEqual(try ok(pg, ["tag", "list"]), try ok(sq, ["tag", "list"]))
        try verifyClean([pg, sq])
        assertBackends(pg: pg, sq: sq)

        // Nothing new: another round changes nothing on either side.
        try ok(pg, ["sync", "--from", sq, "-q"])
        try ok(sq, ["sync", "--from", pg, "-q"])
        XCTAssertEqual(try photos(pg), after)
        XCTAssertEqual(try photos(sq), after)
    }

    func testAPostgreSQLOwnerSharesWithASQLiteParticipant() throws {
        let owner = dir + "/owner", bob = dir + "/bob"
        let drop = try makePostgresLibrary(owner)
        defer { drop() }
        try ok(owner, ["import", "-q", "--tag", "Trip"] + ["storm.jpg", "path.jpg"].map { samplesDir + "/" + $0 })
        let names = try photos(owner).map { String($0.split(separator: " ")[0]) }
        try ok(owner, ["share", "create", "--title", "Holiday"] + names)
        let share = try XCTUnwrap(try json(try ok(owner, ["share", "list", "--json"]))["id"] as? String)
        try ok(owner, ["share", "invite", share, "bob@example.org", "--permission", "read-only"])
        try ok(owner, ["share", "export", share, "--for", "bob@example.org", "-o", dir + "/to-bob-1"])
        try TestDatabase.initializeSQLiteLibrary(at: bob)
        try ok(bob, ["share", "accept", dir + "/to-bob-1"])
        XCTAssertEqual(try photos(bob), try photos(owner))
        XCTAssertEqual(try photos(bob).count, 2)
        let zones = try ok(bob, ["list", "--json"]).split(separator: "\n").map {
            try json(String($0))["scope"] as? String
        }
        XCTAssertEqual(zones, ["shared", "shared"])
        try verifyClean([owner, bob])
        assertBackends(pg: owner, sq: bob)

        // Read-only there: the participant's write exits 77 and writes nothing.
        let dump = try LibrarySnapshot.dumpCatalog(bob)
        let refused = try run(["--library", bob, "tag", "add", "X", names[0]])
        XCTAssertEqual(refused.status, 77, refused.stderr)
        XCTAssertTrue(refused.stderr.contains("read-only"), refused.stderr)
        XCTAssertEqual(try LibrarySnapshot.dumpCatalog(bob), dump)

        // The owner deletes a photo and renames a tag; the participant follows; its
        // acknowledgement comes back to the owner, who sees it accepted.
        try ok(owner, ["delete", names[1]])
        try ok(owner, ["tag", "rename", "Trip", "Journey"])
        try ok(owner, ["share", "export", share, "--for", "bob@example.org", "-o", dir + "/to-bob-2"])
        try ok(bob, ["sync", "--apply", dir + "/to-bob-2"])
        XCTAssertEqual(try photos(bob), try photos(owner))
        XCTAssertEqual(try photos(bob).count, 1)
        XCTAssertTrue(try photos(bob).joined().contains("Journey"))
        try ok(bob, ["share", "export", share, "-o", dir + "/from-bob-1"])
        try ok(owner, ["sync", "--apply", dir + "/from-bob-1"])
        let people = try XCTUnwrap(
            try json(try ok(owner, ["share", "list", "--json"]))["participants"] as? [[String: Any]])
        XCTAssertEqual(
            people.first { $0["email"] as? String == "bob@example.org" }?["acceptance"] as? String, "accepted")
        try verifyClean([owner, bob])

        // The owner stops sharing: the participant's zone goes away.
        try ok(owner, ["share", "stop", share])
        try ok(owner, ["share", "export", share, "--for", "bob@example.org", "-o", dir + "/to-bob-3"])
        try ok(bob, ["sync", "--apply", dir + "/to-bob-3"])
        XCTAssertEqual(try photos(bob), [])
        XCTAssertEqual(try photos(owner).filter { $0.hasSuffix(" default") }.count, 1)
        try verifyClean([owner, bob])
    }
}
