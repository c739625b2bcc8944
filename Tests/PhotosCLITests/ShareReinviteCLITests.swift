import Foundation
import XCTest
import PhotosTestSupport
@testable import PhotosCLI
import PhotosCore
import PhotosSQLite

/// User report: `share invite ID EMAIL` without `--permission` lowered an existing read-write
/// participant to read-only and recorded a history update. Without `--permission` an existing
/// participant now keeps its permission and nothing is recorded; only an explicit, different
/// permission changes it.
final class ShareReinviteCLITests: TemporaryFolderTestCase {
    override var label: String { "photos-share-reinvite" }
    var lib: String { dir + "/lib" }
    var share = ""

    override func setUpWithError() throws {
        try super.setUpWithError()
        let imported = photos(["--library", lib, "import", "-q", samplesDir + "/storm.jpg"])
        XCTAssertEqual(imported.status, 0, imported.stderr)
        let name = try XCTUnwrap(try db().scalarString("SELECT unique_name FROM photo"))
        XCTAssertEqual(run(["share", "create", name, "--title", "S"]).status, 0)
        share = try XCTUnwrap(try db().scalarString("SELECT id FROM share"))
    }

    func run(_ args: [String]) -> RunResult { photos(["--library", lib] + args) }
    func db() throws -> TestCatalog { try TestCatalog(root: lib, readOnly: true) }
    /// ann's participant row: `role|permission|acceptance`.
    func ann() throws -> String? {
        try db().scalarString(
            "SELECT role || '|' || permission || '|' || acceptance FROM participant WHERE email = 'ann@example.org'")
    }
    /// Every history change, oldest first: `context|entity|type|updated`.
    func history() throws -> String {
        try db().statement(
            """
            SELECT t.context || '|' || c.entity || '|' || c.type || '|' || coalesce(c.updated, '')
            FROM history_change c JOIN history_transaction t ON t.token = c.token ORDER BY c.id
            """
        ).map { $0.string(0) }.joined(separator: ";")
    }
    func transactions() throws -> Int { try db().scalarInt("SELECT count(*) FROM history_transaction") ?? -1 }

    func testReinviteWithoutPermissionKeepsItAndRecordsNothing() throws {
        let invited = run(["share", "invite", share, "ann@example.org", "--permission", "read-write"])
        XCTAssertEqual(invited.status, 0, invited.stderr)
        XCTAssertEqual(invited.stdout, "Invited ann@example.org to share \(share) (read-write)\n")
        XCTAssertEqual(try ann(), "private-user|read-write|pending")
        let before = try history(), count = try transactions()
        XCTAssertTrue(before.hasSuffix("share invite|Participant|insert|"), before)

        let again = run(["share", "invite", share, "ann@example.org"])
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertEqual(
            again.stdout, "ann@example.org is already invited to share \(share) (read-write); nothing changed\n")
        XCTAssertEqual(try ann(), "private-user|read-write|pending", "the permission is kept")
        XCTAssertEqual(try history(), before, "no history change")
        XCTAssertEqual(try transactions(), count, "no history transaction")

        let json = run(["share", "invite", share, "ann@example.org", "--json"])
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(object["permission"] as? String, "read-write")
        XCTAssertEqual(object["changed"] as? Bool, false)

        // The same permission given explicitly: nothing either.
        XCTAssertEqual(
            run(["share", "invite", share, "ann@example.org", "--permission", "read-write"]).stdout,
            "ann@example.org is already invited to share \(share) (read-write); nothing changed\n")
        XCTAssertEqual(try transactions(), count)
    }

    func testExplicitDifferentPermissionUpdatesItAndSaysSo() throws {
        XCTAssertEqual(
            run(["share", "invite", share, "ann@example.org"]).stdout,
            "Invited ann@example.org to share \(share) (read-only)\n", "a new participant defaults to read-only")
        XCTAssertEqual(try ann(), "private-user|read-only|pending")
        let before = try history(), count = try transactions()

        let raised = run(["share", "invite", share, "ann@example.org", "--permission", "read-write"])
        XCTAssertEqual(raised.status, 0, raised.stderr)
        XCTAssertEqual(raised.stdout, "Changed ann@example.org's permission in share \(share) to read-write\n")
        XCTAssertEqual(try ann(), "private-user|read-write|pending")
        XCTAssertEqual(try transactions(), count + 1)
        XCTAssertEqual(try history(), before + ";share invite|Participant|update|[\"permission\"]")

        let lowered = run(["share", "invite", share, "ann@example.org", "--permission", "read-only", "--json"])
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(lowered.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(object["permission"] as? String, "read-only")
        XCTAssertEqual(object["changed"] as? Bool, true)
        XCTAssertEqual(try ann(), "private-user|read-only|pending")
        XCTAssertEqual(try transactions(), count + 2)

        // Without --permission afterwards: kept read-only, nothing recorded.
        XCTAssertEqual(
            run(["share", "invite", share, "ann@example.org"]).stdout,
            "ann@example.org is already invited to share \(share) (read-only); nothing changed\n")
        XCTAssertEqual(try transactions(), count + 2)
    }

    func testLibraryInviteWithoutPermissionKeepsTheExistingOne() throws {
        let library = try Library(root: lib, create: false)
        let info = try library.resolveShare(share)
        let bob = try Email(parsing: "bob@example.org")
        XCTAssertEqual(
            try library.inviteParticipant(bob, to: info, permission: .readWrite, author: "t"),
            .init(changed: true, permissionUpdated: false, permission: .readWrite))
        XCTAssertEqual(
            try library.inviteParticipant(bob, to: info, permission: nil, author: "t"),
            .init(changed: false, permissionUpdated: false, permission: .readWrite))
        XCTAssertEqual(
            try library.inviteParticipant(bob, to: info, permission: .readOnly, author: "t"),
            .init(changed: true, permissionUpdated: true, permission: .readOnly))
        XCTAssertFalse(try library.invite(bob, to: info, author: "t"))
        XCTAssertEqual(
            try db().scalarString("SELECT permission FROM participant WHERE email = 'bob@example.org'"), "read-only")
    }
}
