import Foundation
import PhotosTestSupport
import XCTest

/// Issue 31 item 7: a restored library is a library of its own (a new library id), so it syncs
/// with the library it was copied from; `restore --same-identity` keeps the id (the restore of a
/// lost library), and syncing such a copy with its original is refused naming the library and
/// the cause, not a temporary folder.
final class RestoredLibraryIdentityTests: BinaryTestCase {
    override var label: String { "photos-restore-identity" }
    var ml: String { dir + "/ML" }
    var backup: String { dir + "/backup" }

    override func setUpWithError() throws {
        try super.setUpWithError()
        try TestDatabase.requireSQLite(
            because:
                "photos backup and restore copy SQLite catalogs (a PostgreSQL catalog is pg_dump's: exit 69, PostgresLibraryCLITests)"
        )
        XCTAssertEqual(try run(["--library", ml, "import", samplesDir, "-q"]).status, 0)
        XCTAssertEqual(try run(["--library", ml, "backup", backup, "--originals", "-q"]).status, 0)
    }

    private func libraryID(_ library: String) throws -> String {
        let stats = try run(["--library", library, "--json", "stats"])
        XCTAssertEqual(stats.status, 0, stats.stderr)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(stats.stdout.utf8)) as? [String: Any])
        return try XCTUnwrap(object["libraryId"] as? String)
    }

    func testARestoredCopyHasAnIdOfItsOwnAndSyncsWithTheOriginal() throws {
        let r1 = dir + "/R1"
        let restore = try run(["--library", r1, "restore", backup])
        XCTAssertEqual(restore.status, 0, restore.stderr)
        let original = try libraryID(ml), copy = try libraryID(r1)
        XCTAssertNotEqual(copy, original)
        XCTAssertEqual(copy.count, 36)
        XCTAssertEqual(copy, copy.lowercased())
        // A change in the original comes over; nothing is lost or doubled.
        let first = try XCTUnwrap(
            try run(["--library", ml, "--json", "list"]).stdout.split(separator: "\n").first.map(String.init))
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(first.utf8)) as? [String: Any])
        let photo = try XCTUnwrap(object["uniqueName"] as? String)
        XCTAssertEqual(try run(["--library", ml, "tag", "add", "Holiday", photo]).status, 0)
        let sync = try run(["--library", r1, "sync", "--from", ml])
        XCTAssertEqual(sync.status, 0, sync.stderr)
        let listed = try run(["--library", r1, "--json", "list", "--tag", "Holiday"])
        XCTAssertEqual(listed.stdout.split(separator: "\n").count, 1, listed.stderr)
        XCTAssertTrue(listed.stdout.contains(photo), listed.stdout)
        XCTAssertEqual(try run(["--library", r1, "--json", "list"]).stdout.split(separator: "\n").count, 6)
        // And back: the original applies the copy's changeset.
        let back = try run(["--library", ml, "sync", "--from", r1])
        XCTAssertEqual(back.status, 0, back.stderr)
        XCTAssertEqual(try run(["--library", r1, "verify"]).status, 0)
        XCTAssertEqual(try run(["--library", ml, "verify"]).status, 0)
        // `init --from-backup` makes a new identity too.
        let viaInit = dir + "/R3"
        XCTAssertEqual(try run(["--library", viaInit, "init", "--from-backup", backup]).status, 0)
        XCTAssertNotEqual(try libraryID(viaInit), original)
        XCTAssertNotEqual(try libraryID(viaInit), copy)
    }

    func testSameIdentityKeepsTheIdAndASyncWithTheOriginalIsRefusedNamingTheCause() throws {
        let r2 = dir + "/R2"
        let restore = try run(["--library", r2, "restore", "--same-identity", backup])
        XCTAssertEqual(restore.status, 0, restore.stderr)
        let id = try libraryID(ml)
        XCTAssertEqual(try libraryID(r2), id)

        let sync = try run(["--library", r2, "sync", "--from", ml])
        XCTAssertEqual(sync.status, 65, sync.stderr)
        XCTAssertTrue(
            sync.stderr.contains("library \(ml) refused: its library id \(id) is this library's own (\(r2))"),
            sync.stderr)
        XCTAssertTrue(sync.stderr.contains("restored with 'restore --same-identity'"), sync.stderr)
        XCTAssertTrue(sync.stderr.contains("a copied library folder"), sync.stderr)
        XCTAssertFalse(sync.stderr.contains(".photos-sync-"), "no temporary folder named: \(sync.stderr)")

        // A changeset file of the original, applied to the copy: named, with the same cause.
        let changeset = dir + "/ml.changeset"
        XCTAssertEqual(try run(["--library", ml, "sync", "--export", changeset]).status, 0)
        let apply = try run(["--library", r2, "sync", "--apply", changeset])
        XCTAssertEqual(apply.status, 65, apply.stderr)
        XCTAssertTrue(
            apply.stderr.contains("changeset \(changeset) refused: its library id \(id) is this library's own"),
            apply.stderr)
        XCTAssertEqual(try run(["--library", r2, "verify"]).status, 0)
    }
}
