import Foundation
import PhotosTestSupport
import XCTest

/// The model's sharing scenario with the binary and three libraries (issue 11 item 3): owner,
/// read-write participant (ann), read-only participant (bob). verify is clean in every library
/// after every step.
final class ShareScenarioTests: BinaryTestCase {
    override var label: String { "photos-share-scenario" }

    var owner: String { dir + "/owner" }
    var ann: String { dir + "/ann" }
    var bob: String { dir + "/bob" }

    @discardableResult
    override func ok(_ lib: String, _ args: [String], file: StaticString = #filePath, line: UInt = #line) throws
        -> String
    {
        let r = try runProcess(
            try binary(), ["--library", lib] + args, environment: ["PHOTOS_OWNER": "olga@example.org"])
        XCTAssertEqual(r.status, 0, "\(args): \(r.stderr)", file: file, line: line)
        return r.stdout
    }

    /// (uniqueName, tags, rating, scope) of every photo, sorted.
    func photos(_ lib: String) throws -> [String] {
        try ok(lib, ["list", "--json"]).split(separator: "\n").map { line in
            let o = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            return "\(o["uniqueName"] ?? "") \(o["tags"] ?? "") \(o["rating"] ?? "-") \(o["zone"] ?? "")"
        }.sorted()
    }

    func scopes(_ lib: String) throws -> [String] {
        try ok(lib, ["list", "--json"]).split(separator: "\n").map { line in
            let o = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            return "\(o["scope"] ?? "")"
        }
    }

    func verifyAll(file: StaticString = #filePath, line: UInt = #line) throws {
        for lib in [owner, ann, bob] where FileManager.default.fileExists(atPath: lib) {
            try ok(lib, ["verify", "-q"], file: file, line: line)
        }
    }

    func acceptance(_ email: String, share: String) throws -> String {
        let json = try ok(owner, ["share", "list", "--json"])
        let s = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let people = try XCTUnwrap(s["participants"] as? [[String: Any]])
        return try XCTUnwrap(people.first { $0["email"] as? String == email }?["acceptance"] as? String)
    }

    func testOwnerReadWriteAndReadOnlyParticipants() throws {
        try ok(
            owner,
            ["import", "-q", "--tag", "Trip"] + ["storm.jpg", "path.jpg", "ladybird.jpg"].map { samplesDir + "/" + $0 })
        let names = try photos(owner).map { String($0.split(separator: " ")[0]) }
        try ok(owner, ["share", "create", "--title", "Holiday"] + names)
        let listed = try ok(owner, ["share", "list", "--json"])
        let share = try XCTUnwrap(
            (try JSONSerialization.jsonObject(with: Data(listed.utf8)) as? [String: Any])?["id"] as? String)
        try ok(owner, ["share", "invite", share, "ann@example.org", "--permission", "read-write"])
        try ok(owner, ["share", "invite", share, "bob@example.org", "--permission", "read-only"])
        try ok(owner, ["share", "export", share, "--for", "ann@example.org", "-o", dir + "/to-ann-1"])
        try ok(owner, ["share", "export", share, "--for", "bob@example.org", "-o", dir + "/to-bob-1"])
        try ok(ann, ["share", "accept", dir + "/to-ann-1"])
        try ok(bob, ["share", "accept", dir + "/to-bob-1"])
        try verifyAll()
        XCTAssertEqual(try photos(ann), try photos(owner))
        XCTAssertEqual(try scopes(ann), ["shared", "shared", "shared"])
        XCTAssertEqual(try scopes(bob), ["shared", "shared", "shared"])

        // The read-only participant writes nothing.
        let before = try LibrarySnapshot.dumpCatalog(bob)
        for args in [
            ["tag", "add", "X", names[0]], ["rate", names[0], "2"], ["tag", "rename", "Trip", "Y"],
            ["delete", names[0]], ["share", "invite", share, "eve@example.org"]
        ] {
            let r = try run(["--library", bob] + args)
            XCTAssertEqual(r.status, 77, "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("Holiday") || r.stderr.contains(share), r.stderr)
        }
        XCTAssertTrue(try run(["--library", bob, "tag", "add", "X", names[0]]).stderr.contains("read-only"))
        XCTAssertEqual(try LibrarySnapshot.dumpCatalog(bob), before)

        // The read-write participant tags and rates; the owner applies; everyone matches.
        try ok(ann, ["tag", "add", "Sunny", names[0]])
        try ok(ann, ["rate", names[0], "4"])
        try ok(ann, ["share", "export", share, "-o", dir + "/from-ann-1"])
        try ok(bob, ["share", "export", share, "-o", dir + "/from-bob-1"])
        try ok(owner, ["sync", "--apply", dir + "/from-ann-1"])
        try ok(owner, ["sync", "--apply", dir + "/from-bob-1"])
        try ok(owner, ["share", "export", share, "--for", "bob@example.org", "-o", dir + "/to-bob-2"])
        try ok(bob, ["sync", "--apply", dir + "/to-bob-2"])
        try verifyAll()
        XCTAssertTrue(
            try photos(owner).contains { $0.hasPrefix(names[0]) && $0.contains("Sunny") && $0.contains(" 4 ") })
        XCTAssertEqual(try photos(bob), try photos(owner))
        XCTAssertEqual(try photos(ann), try photos(owner))
        XCTAssertEqual(try acceptance("ann@example.org", share: share), "accepted")

        // The owner deletes a photo and renames a tag; the participants follow.
        try ok(owner, ["delete", names[1]])
        try ok(owner, ["tag", "rename", "Trip", "Journey"])
        try ok(owner, ["share", "export", share, "--for", "ann@example.org", "-o", dir + "/to-ann-2"])
        try ok(owner, ["share", "export", share, "--for", "bob@example.org", "-o", dir + "/to-bob-3"])
        try ok(ann, ["sync", "--apply", dir + "/to-ann-2"])
        try ok(bob, ["sync", "--apply", dir + "/to-bob-3"])
        try verifyAll()
        XCTAssertEqual(try photos(owner).count, 2)
        XCTAssertEqual(try photos(ann), try photos(owner))
        XCTAssertEqual(try photos(bob), try photos(owner))
        XCTAssertFalse(try photos(bob).joined().contains("Trip"))

        // ann leaves; the owner sees her removed.
        try ok(ann, ["share", "leave", share])
        XCTAssertEqual(try photos(ann), [])
        try ok(ann, ["share", "export", share, "-o", dir + "/from-ann-2"])
        try ok(owner, ["sync", "--apply", dir + "/from-ann-2"])
        XCTAssertEqual(try acceptance("ann@example.org", share: share), "removed")
        try verifyAll()

        // The owner stops sharing: the photos come home, bob's zone goes away.
        try ok(owner, ["share", "stop", share])
        try ok(owner, ["share", "export", share, "--for", "bob@example.org", "-o", dir + "/to-bob-4"])
        try ok(bob, ["sync", "--apply", dir + "/to-bob-4"])
        XCTAssertEqual(try photos(bob), [])
        XCTAssertEqual(try ok(bob, ["share", "list", "--json"]), "")
        XCTAssertEqual(try photos(owner).filter { $0.hasSuffix(" default") }.count, 2)
        try verifyAll()
    }

    func testOwnerRefusesEditsOfAParticipantWhoIsReadOnlyNow() throws {
        try ok(owner, ["import", "-q", samplesDir + "/storm.jpg"])
        let name = try XCTUnwrap(try photos(owner).first.map { String($0.split(separator: " ")[0]) })
        try ok(owner, ["share", "create", "--title", "T", name])
        let listed = try ok(owner, ["share", "list", "--json"])
        let share = try XCTUnwrap(
            (try JSONSerialization.jsonObject(with: Data(listed.utf8)) as? [String: Any])?["id"] as? String)
        try ok(owner, ["share", "invite", share, "ann@example.org", "--permission", "read-write"])
        try ok(owner, ["share", "export", share, "--for", "ann@example.org", "-o", dir + "/to-ann"])
        try ok(ann, ["share", "accept", dir + "/to-ann"])
        try ok(ann, ["tag", "add", "Mine", name])
        try ok(ann, ["share", "export", share, "-o", dir + "/from-ann"])
        try ok(owner, ["share", "invite", share, "ann@example.org", "--permission", "read-only"])
        let before = try LibrarySnapshot.dumpCatalog(owner)
        let refused = try run(["--library", owner, "sync", "--apply", dir + "/from-ann"])
        XCTAssertEqual(refused.status, 77, refused.stderr)
        XCTAssertTrue(refused.stderr.contains("read-only"), refused.stderr)
        XCTAssertEqual(try LibrarySnapshot.dumpCatalog(owner), before)
        // A changeset of a share sent by someone who is not its owner is refused by a participant.
        try ok(owner, ["share", "export", share, "--for", "ann@example.org", "-o", dir + "/to-ann-2"])
        let other = dir + "/other"
        try ok(other, ["init", "-q"])
        XCTAssertEqual(try run(["--library", other, "sync", "--apply", dir + "/to-ann-2"]).status, 65)
    }
}
