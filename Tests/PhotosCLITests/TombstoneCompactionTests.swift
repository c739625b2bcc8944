import Foundation
import PhotosTestSupport
import XCTest

/// Tombstone compaction of the sync state (issue 29 item 4): `history compact --keep-days N`
/// (or `--before DATE`) removes the entries of deleted objects once every known library
/// acknowledged their deletion, and a library that syncs for the first time afterwards gets the
/// current state, not the deleted objects. On both backends.
final class TombstoneCompactionTests: BinaryTestCase {
    override var label: String { "photos-tombstones" }

    /// uniqueName → sorted tags and the ratings' values, of every photo of `lib`.
    func state(_ lib: String) throws -> [String: [String]] {
        var result: [String: [String]] = [:]
        for line in try ok(lib, ["list", "--json"]).split(separator: "\n") {
            let photo = try json(String(line))
            let name = try XCTUnwrap(photo["uniqueName"] as? String)
            result[name] = (photo["tags"] as? [String] ?? []).sorted() + ["\(photo["rating"] ?? "-")"]
        }
        return result
    }

    func count(_ lib: String, _ sql: String) throws -> Int {
        try XCTUnwrap(try TestCatalog(root: lib, readOnly: true).scalarInt(sql), sql)
    }

    func tombstones(_ lib: String) throws -> Int {
        try count(lib, "SELECT count(*) FROM sync_entry WHERE attribute = 'deleted'")
    }

    /// A and B sync both ways; A deletes a photo (with its tag link and rating) and a tag. While B
    /// has not pulled, compaction keeps every tombstone; once B pulled (acknowledging), they go
    /// with all their objects' entries; a fresh C then pulls the current state, B and A stay
    /// equal, and nothing comes back in either direction.
    func testTombstonesGoOnceEveryPeerAcknowledgedAndAFreshPeerConverges() throws {
        let a = dir + "/a", b = dir + "/b", c = dir + "/c"
        try ok(a, ["import", "-q", samplesDir + "/storm.jpg", samplesDir + "/path.jpg", samplesDir + "/kite.png"])
        let photos = try state(a).keys.sorted()
        try ok(a, ["tag", "add", "-q", "Gone", photos[0]])
        try ok(a, ["tag", "add", "-q", "Kept", photos[1]])
        try ok(a, ["rate", "-q", photos[0], "4"])
        XCTAssertEqual(try run(["init", "-q", b]).status, 0)
        try ok(b, ["sync", "-q", "--from", a])
        try ok(a, ["sync", "-q", "--from", b])
        XCTAssertEqual(try state(b), try state(a))

        try ok(a, ["delete", "-q", "--yes", photos[0]])
        try ok(a, ["tag", "delete", "-q", "--yes", "Gone"])
        // B has not pulled the deletions: nothing may go, however old. (Compaction folds the
        // deletions into the sync state first: the tombstones are counted after it.)
        let held = try json(try ok(a, ["--json", "history", "compact", "--keep-days", "0", "--yes"]))
        XCTAssertEqual(held["tombstones"] as? Int, 0, "\(held)")
        let stones = try tombstones(a)
        XCTAssertEqual(stones, 3, "the photo, its rating, the tag")
        let entriesBefore = try count(a, "SELECT count(*) FROM sync_entry")
        // A token cut-off never compacts tombstones.
        try ok(b, ["sync", "-q", "--from", a])
        try ok(a, ["sync", "-q", "--from", b])
        let byToken = try json(try ok(a, ["--json", "history", "compact", "--before-token", "1", "--yes"]))
        XCTAssertEqual(byToken["tombstones"] as? Int, 0, "\(byToken)")
        // A date before the deletions keeps them too.
        let early = try json(try ok(a, ["--json", "history", "compact", "--before", "2000-01-01", "--yes"]))
        XCTAssertEqual(early["tombstones"] as? Int, 0, "\(early)")

        // A dry run says what would go and changes nothing.
        let dump = try LibrarySnapshot.dumpCatalog(a)
        let dry = try json(try ok(a, ["--json", "history", "compact", "--keep-days", "0", "--dry-run"]))
        XCTAssertEqual(dry["tombstones"] as? Int, stones, "\(dry)")
        XCTAssertEqual(try LibrarySnapshot.dumpCatalog(a), dump)

        let done = try json(try ok(a, ["--json", "history", "compact", "--keep-days", "0", "--yes"]))
        XCTAssertEqual(done["tombstones"] as? Int, stones, "\(done)")
        XCTAssertEqual(try tombstones(a), 0)
        let entriesAfter = try count(a, "SELECT count(*) FROM sync_entry")
        XCTAssertEqual(entriesBefore - entriesAfter, done["syncEntries"] as? Int, "\(done)")
        XCTAssertGreaterThan(entriesBefore - entriesAfter, stones, "the objects' attribute entries went too")
        let gone = photos[0]
        XCTAssertEqual(try count(a, "SELECT count(*) FROM sync_entry WHERE object_id = '\(gone)'"), 0)

        // A fresh library gets the current state: two photos, tag Kept only, no tombstone.
        XCTAssertEqual(try run(["init", "-q", c]).status, 0)
        try ok(c, ["sync", "-q", "--from", a])
        XCTAssertEqual(try state(c), try state(a))
        XCTAssertEqual(try state(c).count, 2)
        XCTAssertEqual(try tombstones(c), 0)
        XCTAssertEqual(try count(c, "SELECT count(*) FROM tag WHERE name = 'Gone'"), 0)
        XCTAssertEqual(try count(c, "SELECT count(*) FROM tag WHERE name = 'Kept'"), 1)
        // B (which keeps its own tombstones) and A go on syncing: nothing comes back.
        try ok(a, ["tag", "add", "-q", "Later", photos[1]])
        try ok(b, ["sync", "-q", "--from", a])
        try ok(a, ["sync", "-q", "--from", b])
        try ok(c, ["sync", "-q", "--from", a])
        try ok(a, ["sync", "-q", "--from", c])
        XCTAssertEqual(try state(a).count, 2)
        XCTAssertEqual(try state(b), try state(a))
        XCTAssertEqual(try state(c), try state(a))
        for lib in [a, b, c] {
            let v = try run(["--library", lib, "verify"])
            XCTAssertTrue(v.stdout.contains("0 problems"), "\(lib): \(v.stdout) \(v.stderr)")
        }
    }

    /// A peer that only pulls (a backup machine's `sync --from`) never sends a changeset, yet
    /// holds compaction back: each pull records what it had applied.
    func testAPeerThatOnlyPullsHoldsTombstonesBack() throws {
        let a = dir + "/a", b = dir + "/b"
        try ok(a, ["import", "-q", samplesDir + "/storm.jpg", samplesDir + "/path.jpg"])
        let photos = try state(a).keys.sorted()
        XCTAssertEqual(try run(["init", "-q", b]).status, 0)
        try ok(b, ["sync", "-q", "--from", a])
        try ok(a, ["delete", "-q", "--yes", photos[0]])
        var r = try json(try ok(a, ["--json", "history", "compact", "--keep-days", "0", "--yes"]))
        XCTAssertEqual(r["tombstones"] as? Int, 0, "\(r)")
        // B's next pull brings the deletion (and tells A what B had before it).
        try ok(b, ["sync", "-q", "--from", a])
        XCTAssertEqual(try state(b).count, 1)
        r = try json(try ok(a, ["--json", "history", "compact", "--keep-days", "0", "--yes"]))
        XCTAssertEqual(r["tombstones"] as? Int, 0, "B has not said it applied the deletion: \(r)")
        try ok(b, ["sync", "-q", "--from", a])
        r = try json(try ok(a, ["--json", "history", "compact", "--keep-days", "0", "--yes"]))
        XCTAssertEqual(r["tombstones"] as? Int, 1, "\(r)")
        try ok(b, ["sync", "-q", "--from", a])
        XCTAssertEqual(try state(b), try state(a))
    }

    /// A stale changeset replayed after compaction (an old `sync --export` folder of B, made
    /// before A deleted the photo, applied to A again) brings no deleted photo back: all its
    /// tokens were applied before, and the photo's tombstone is gone.
    func testAStaleChangesetReplayedAfterCompactionBringsNoDeletedPhotoBack() throws {
        let a = dir + "/a", b = dir + "/b", old = dir + "/old-b"
        try ok(a, ["import", "-q", samplesDir + "/storm.jpg", samplesDir + "/path.jpg"])
        let photos = try state(a).keys.sorted()
        XCTAssertEqual(try run(["init", "-q", b]).status, 0)
        try ok(b, ["sync", "-q", "--from", a])
        try ok(b, ["sync", "-q", "--export", old])
        try ok(a, ["delete", "-q", "--yes", photos[0]])
        try ok(b, ["sync", "-q", "--from", a])
        try ok(a, ["sync", "-q", "--from", b])
        try ok(b, ["sync", "-q", "--from", a])
        let r = try json(try ok(a, ["--json", "history", "compact", "--keep-days", "0", "--yes"]))
        XCTAssertEqual(r["tombstones"] as? Int, 1, "\(r)")
        try ok(a, ["sync", "-q", "--apply", old, "--yes"])
        XCTAssertEqual(try state(a).keys.sorted(), [photos[1]])
        XCTAssertEqual(try count(a, "SELECT count(*) FROM photo_data"), 1)
        try ok(b, ["sync", "-q", "--from", a])
        XCTAssertEqual(try state(b), try state(a))
    }

    /// In a share, a participant that has not acknowledged the deletion holds its tombstone
    /// back; once it did, the tombstone goes, and the share's own tombstone after `share stop`
    /// is always kept.
    func testAShareParticipantHoldsTombstonesBackUntilItAcknowledged() throws {
        let owner = dir + "/owner", ann = dir + "/ann"
        try ok(owner, ["import", "-q", samplesDir + "/storm.jpg", samplesDir + "/path.jpg"])
        let photos = try state(owner).keys.sorted()
        try ok(owner, ["share", "create", "-q", "--title", "Trip"] + photos)
        try ok(owner, ["share", "invite", "-q", "Trip", "ann@example.org", "--permission", "read-write"])
        try ok(owner, ["share", "export", "-q", "Trip", "--for", "ann@example.org", "-o", dir + "/to-ann-1"])
        try ok(ann, ["share", "accept", "-q", "--yes", dir + "/to-ann-1"])
        try ok(ann, ["share", "export", "-q", "Trip", "-o", dir + "/from-ann-1"])
        try ok(owner, ["sync", "-q", "--yes", "--apply", dir + "/from-ann-1"])

        try ok(owner, ["delete", "-q", "--yes", photos[0]])
        var r = try json(try ok(owner, ["--json", "history", "compact", "--keep-days", "0", "--yes"]))
        XCTAssertEqual(r["tombstones"] as? Int, 0, "ann has not acknowledged: \(r)")
        let stones = try tombstones(owner)
        XCTAssertEqual(stones, 1, "the photo")
        try ok(owner, ["share", "export", "-q", "Trip", "--for", "ann@example.org", "-o", dir + "/to-ann-2"])
        try ok(ann, ["sync", "-q", "--yes", "--apply", dir + "/to-ann-2"])
        XCTAssertEqual(try state(ann).count, 1)
        r = try json(try ok(owner, ["--json", "history", "compact", "--keep-days", "0", "--yes"]))
        XCTAssertEqual(r["tombstones"] as? Int, 0, "her acknowledgement has not come back yet: \(r)")
        try ok(ann, ["share", "export", "-q", "Trip", "-o", dir + "/from-ann-2"])
        try ok(owner, ["sync", "-q", "--yes", "--apply", dir + "/from-ann-2"])
        r = try json(try ok(owner, ["--json", "history", "compact", "--keep-days", "0", "--yes"]))
        XCTAssertEqual(r["tombstones"] as? Int, stones, "\(r)")
        XCTAssertEqual(try tombstones(owner), 0)
        XCTAssertEqual(try state(owner), try state(ann))

        try ok(owner, ["share", "stop", "-q", "--yes", "Trip"])
        _ = try ok(owner, ["--json", "history", "compact", "--keep-days", "0", "--yes"])
        XCTAssertEqual(
            try count(owner, "SELECT count(*) FROM sync_entry WHERE attribute = 'deleted' AND entity = 'Share'"), 1,
            "a share's own tombstone is kept")
    }
}
