import Foundation
import XCTest
import PhotosTestSupport
@testable import PhotosCore
import PhotosSQLite

final class MaintenanceTests: XCTestCase {
    var tmp: TempDir!
    override func setUpWithError() throws { tmp = try TempDir("photos-maint") }
    override func tearDown() { tmp.cleanup() }

    func library(_ name: String) throws -> Library { try Library(root: tmp.file(name), create: true) }

    @discardableResult
    func importInto(_ library: Library, _ files: [String], tags: [String] = []) throws -> ImportSummary {
        var options = ImportOptions(paths: files.map { samplesDir + "/" + $0 })
        options.jobs = 2
        options.tags = tags
        return try Importer(library: library, libraryRoot: library.root, options: options).run()
    }

    /// (displayName → sorted tag names with uuids) of a library: what peers must agree on.
    func tagState(_ library: Library) throws -> [String: [String]] {
        var state: [String: [String]] = [:]
        try library.catalog.statement(
            """
            SELECT d.sha256, t.name, t.uuid FROM photo_tag pt JOIN photo p ON p.id = pt.photo_id
            JOIN photo_data d ON d.photo_id = p.id JOIN tag t ON t.id = pt.tag_id ORDER BY d.sha256, t.name, t.uuid
            """
        ).forEach { state[$0.string(0), default: []].append($0.string(1) + "=" + $0.string(2)) }
        return state
    }

    func tagUUIDs(_ library: Library, named name: String) throws -> [String] {
        try library.catalog.statement("SELECT uuid FROM tag WHERE name = ? ORDER BY uuid").map([name]) { $0.string(0) }
    }

    func testPeersConvergeAfterMergingEachOtherAndDeduping() throws {
        let a = try library("A"), b = try library("B")
        try importInto(a, ["storm.jpg", "path.jpg", "kite.png"], tags: ["Beach", "Cafe\u{301}"])
        try importInto(b, ["storm.jpg", "ladybird.jpg"], tags: ["Beach", "Caf\u{E9}"])
        let beachA = try tagUUIDs(a, named: "Beach"), beachB = try tagUUIDs(b, named: "Beach")
        XCTAssertEqual(beachA.count, 1)
        XCTAssertNotEqual(beachA, beachB, "each peer made its own Beach")
        let winner = min(beachA[0], beachB[0])

        let ab = try a.merge(from: b)
        XCTAssertEqual([ab.photos, ab.matchedPhotos], [1, 1], "ladybird is new, storm matched by SHA-256")
        let ba = try b.merge(from: a)
        XCTAssertEqual([ba.photos, ba.matchedPhotos], [2, 2])
        XCTAssertEqual(try tagUUIDs(a, named: "Beach").count, 2)
        let da = try a.dedupeTags(), db = try b.dedupeTags()
        XCTAssertEqual(da.groups.map(\.name).sorted(), ["Beach", "Café"])
        XCTAssertEqual(db.groups.map(\.name).sorted(), ["Beach", "Café"])
        XCTAssertEqual(try tagUUIDs(a, named: "Beach"), [winner])
        XCTAssertEqual(try tagUUIDs(b, named: "Beach"), [winner])
        XCTAssertEqual(try tagState(a), try tagState(b), "same tags, same uuids, on the same photos")
        XCTAssertEqual(
            try a.catalog.scalarInt(
                "SELECT count(*) FROM photo_tag pt JOIN tag t ON t.id = pt.tag_id WHERE t.name = 'Beach'"), 4,
            "the union: storm, path, kite, ladybird")
        // Idempotent: merging again and deduping again change nothing.
        XCTAssertTrue(try a.merge(from: b).isEmpty)
        XCTAssertEqual(try a.dedupeTags(all: true).groups, [])
        let tokenBefore = try a.currentHistoryToken()
        XCTAssertTrue(try a.merge(from: b).isEmpty)
        XCTAssertEqual(try a.currentHistoryToken(), tokenBefore, "a merge that changes nothing records nothing")
        XCTAssertTrue(try a.verify().isClean)
        XCTAssertTrue(try b.verify().isClean)
        // Tombstones of the losers.
        let tombstones = try a.catalog.statement(
            "SELECT tombstone FROM history_change WHERE entity = 'Tag' AND type = 'delete'"
        ).map { $0.string(0) }
        XCTAssertEqual(tombstones.count, 2)
        XCTAssertTrue(tombstones.contains { $0.hasPrefix("{\"name\":\"Beach\",\"uuid\":\"") })
        XCTAssertEqual(
            try a.catalog.scalarString("SELECT author FROM history_transaction WHERE context = 'dedupe-tags'"),
            "dedupe-tags"
        )
    }

    func testThreePeersInDifferentOrdersReachTheSameState() throws {
        let peers = try ["P", "Q", "R"].map(library)
        for (i, peer) in peers.enumerated() {
            try importInto(
                peer, [["storm.jpg", "kite.png"], ["storm.jpg", "path.jpg"], ["kite.png", "ladybird.jpg"]][i],
                tags: ["Beach", "Trip"])
        }
        let (p, q, r) = (peers[0], peers[1], peers[2])
        // P: merges Q then R, dedupes. R: merges P then Q, dedupes between. Q: merges R, dedupes, merges P.
        _ = try p.merge(from: q); _ = try p.merge(from: r); _ = try p.dedupeTags()
        _ = try r.merge(from: p); _ = try r.dedupeTags(); _ = try r.merge(from: q); _ = try r.dedupeTags()
        _ = try q.merge(from: r); _ = try q.dedupeTags(); _ = try q.merge(from: p); _ = try q.dedupeTags()
        _ = try p.merge(from: q); _ = try p.merge(from: r); _ = try p.dedupeTags()
        XCTAssertEqual(try tagState(p), try tagState(q))
        XCTAssertEqual(try tagState(q), try tagState(r))
        XCTAssertEqual(try tagUUIDs(p, named: "Beach").count, 1)
        XCTAssertEqual(try p.catalog.scalarInt("SELECT count(*) FROM photo"), 4)
    }

    func testDuplicatesInDifferentZonesAreNotMergedAndIncrementalSeesOnlyNewTags() throws {
        let lib = try library("L")
        try importInto(lib, ["storm.jpg", "path.jpg"], tags: ["Sky"])
        try lib.catalog.execute("INSERT INTO zone (id, name, scope) VALUES ('z1', 'z1', 'private')")
        try lib.write {
            try lib.catalog.run(
                "INSERT INTO tag (uuid, name, zone_id) VALUES ('00000000-0000-0000-0000-000000000001', 'Sky', 'z1')")
            var history = HistoryWriter(lib, author: "t", context: .tagAdd)
            history.insert(.tag(uuid: "00000000-0000-0000-0000-000000000001"), zone: "z1")
            try history.commit()
        }
        XCTAssertEqual(try lib.dedupeTags().groups, [], "same name, other zone: not a duplicate")
        // A duplicate inserted without history is invisible to the incremental run, found by --all.
        try lib.catalog.run(
            "INSERT INTO tag (uuid, name, zone_id) VALUES ('00000000-0000-0000-0000-000000000002', 'Sky', 'default')")
        XCTAssertEqual(try lib.dedupeTags().groups, [])
        let all = try lib.dedupeTags(all: true, dryRun: true)
        XCTAssertEqual(all.groups.count, 1)
        XCTAssertEqual(all.groups.first?.winner, "00000000-0000-0000-0000-000000000002", "the smallest uuid wins")
        XCTAssertEqual(all.photosRelinked, 2)
        XCTAssertEqual(
            try lib.catalog.scalarInt("SELECT count(*) FROM tag WHERE name = 'Sky'"), 3, "dry run changes nothing")
        let done = try lib.dedupeTags(all: true)
        XCTAssertEqual([done.merged, done.photosRelinked], [1, 2])
        XCTAssertEqual(
            try lib.catalog.scalarInt(
                "SELECT count(*) FROM photo_tag pt JOIN tag t ON t.id = pt.tag_id WHERE t.uuid = '00000000-0000-0000-0000-000000000002'"
            ), 2)
        XCTAssertTrue(try lib.verify().isClean)
    }

    /// Compaction with --force past the consumer `dedupe-tags` loses the inserts it had not seen
    /// (Core Data's NSPersistentHistoryTokenExpiredError): the incremental run must then examine
    /// every tag instead of trusting the history that is left.
    func testIncrementalDedupeAfterForcedCompactionPastItsTokenExaminesEveryTag() throws {
        let lib = try library("L")
        try importInto(lib, ["storm.jpg"])
        XCTAssertEqual(try lib.dedupeTags().groups, [], "registers the consumer")
        try lib.write {
            for uuid in ["00000000-0000-0000-0000-00000000000b", "00000000-0000-0000-0000-00000000000a"] {
                try lib.catalog.run("INSERT INTO tag (uuid, name, zone_id) VALUES (?, 'Sky', 'default')", [uuid])
                var history = HistoryWriter(lib, author: "t", context: .tagAdd)
                history.insert(.tag(uuid: uuid), zone: "default")
                try history.commit()
            }
        }
        let tokenBefore = try lib.currentHistoryToken()
        let compacted = try lib.compactHistory(.token(Int64.max), force: true)
        XCTAssertGreaterThan(compacted.transactions, 0)
        XCTAssertEqual(try lib.currentHistoryToken(), tokenBefore, "tokens never go back after compaction")
        let report = try lib.dedupeTags()
        XCTAssertEqual(report.groups.map(\.winner), ["00000000-0000-0000-0000-00000000000a"])
        XCTAssertEqual(try lib.catalog.scalarInt("SELECT count(*) FROM tag WHERE name = 'Sky'"), 1)
        XCTAssertEqual(try lib.consumerToken(Library.dedupeConsumer), try lib.currentHistoryToken())
    }

    /// (uniqueName → zone) of a library.
    func photoZones(_ library: Library) throws -> [String: String] {
        var zones: [String: String] = [:]
        try library.catalog.statement("SELECT unique_name, zone_id FROM photo").forEach {
            zones[$0.string(0)] = $0.string(1)
        }
        return zones
    }

    /// One peer moved photos into a share after the other took its copy: after merging each
    /// other both must have them in the share (a share's zone wins over the default zone, and of
    /// two shares the smaller id), with the same tags — not each keep its own zone.
    func testPeersConvergeOnTheZoneOfAPhotoOneOfThemMovedIntoAShare() throws {
        let a = try library("A")
        try importInto(a, ["storm.jpg", "path.jpg", "kite.png"], tags: ["Beach"])
        try TestDatabase.copyLibrary(tmp.file("A"), to: tmp.file("B"))
        let b = try Library(root: tmp.file("B"), create: false)
        let storm = try a.resolvePhoto(
            try XCTUnwrap(a.catalog.scalarString("SELECT unique_name FROM photo WHERE display_name = 'storm.jpg'")))
        let path = try a.resolvePhoto(
            try XCTUnwrap(a.catalog.scalarString("SELECT unique_name FROM photo WHERE display_name = 'path.jpg'")))
        let share = try a.createShare(photos: [storm, path], author: "t")
        try b.addTag("Sea", to: [try b.resolvePhoto(storm.uniqueName)], author: "t") // b tags it meanwhile

        let ab = try a.merge(from: b)
        XCTAssertEqual(ab.movedPhotos, 0, "a keeps its share")
        let ba = try b.merge(from: a)
        XCTAssertEqual(ba.movedPhotos, 2)
        XCTAssertEqual(try photoZones(b)[storm.uniqueName], share.id)
        XCTAssertEqual(try photoZones(a), try photoZones(b))
        _ = try a.dedupeTags(all: true); _ = try b.dedupeTags(all: true)
        XCTAssertEqual(try tagState(a), try tagState(b), "same tags, same uuids, on the same photos")
        for lib in [a, b] {
            XCTAssertEqual(
                try lib.catalog.scalarInt(
                    "SELECT count(*) FROM photo_tag pt JOIN photo p ON p.id = pt.photo_id JOIN tag t ON t.id = pt.tag_id WHERE p.zone_id <> t.zone_id"
                ), 0)
            XCTAssertTrue(try lib.verify().isClean)
            XCTAssertTrue(try lib.merge(from: lib === a ? b : a).isEmpty, "merging again changes nothing")
        }
    }

    /// A purge of the share an export is writing: the photos purged after the export listed
    /// them are gone from the library, not failures to report with "run 'photos verify'".
    func testExportOfAShareBeingPurgedSkipsThePurgedPhotosWithoutFailing() throws {
        let lib = try library("L")
        try importInto(lib, ["storm.jpg", "path.jpg", "kite.png"])
        try makeShare(lib, id: "s-purged", photos: ["storm.jpg", "path.jpg", "kite.png"], tag: nil)
        var options = ExportOptions(destination: tmp.file("out"))
        options.filter.zone = ZoneID(rawValue: "s-purged")
        // One photo per batch, so progress (and the purge below) comes between photos.
        options.batchSize = 1
        let exporter = Exporter(library: lib, options: options)
        var notes: [String] = []
        exporter.onNote = { notes.append($0) }
        exporter.onProgress = { done, _ in
            if done == 1 { XCTAssertEqual((try? lib.purge(zone: ZoneID(rawValue: "s-purged")))?.photos, 3) }
        }
        let summary = try exporter.run()
        XCTAssertEqual(summary.failed, 0, "\(summary.failures)")
        XCTAssertEqual(summary.written, 1)
        XCTAssertEqual(notes.filter { $0.contains("deleted from the library") }.count, 2, "\(notes)")
        XCTAssertTrue(try lib.verify().isClean)
    }

    /// A merge that cannot get the target's write lock exits 75 having changed nothing — not
    /// even the originals it would have copied, which would be orphans failing `verify`.
    func testMergeIntoABusyLibraryLeavesNoOrphanOriginals() throws {
        let a = try library("A"), b = try library("B")
        try importInto(b, ["storm.jpg", "path.jpg"])
        let target = try Library(root: a.root, create: false, busyTimeout: 0.2)
        let holder = try Library(root: a.root, create: false)
        try holder.catalog.beginWriteTransaction()
        XCTAssertThrowsError(try target.merge(from: b)) { XCTAssertEqual(($0 as? LibraryError)?.isBusy, true) }
        try holder.catalog.rollback()
        XCTAssertTrue(try a.verify().isClean, "no orphan originals")
        XCTAssertEqual(try a.merge(from: b).photos, 2, "and the merge runs once the lock is free")
        XCTAssertTrue(try a.verify().isClean)
    }

    func makeShare(_ lib: Library, id: String, photos: [String], tag: String?) throws {
        try lib.write {
            try lib.catalog.run("INSERT INTO zone (id, name, scope) VALUES (?, ?, 'private')", [id, id])
            try lib.catalog.run(
                "INSERT INTO share (id, title, created) VALUES (?, 'Trip', '2026-01-01T00:00:00Z')", [id])
            try lib.catalog.run(
                "INSERT INTO participant (uuid, share_id, email, role, permission) VALUES (?, ?, 'bob@example.org', 'private-user', 'read-only')",
                [UUID().uuidString.lowercased(), id])
            for name in photos {
                try lib.catalog.run("UPDATE photo SET zone_id = ? WHERE display_name = ?", [id, name])
                try lib.catalog.run(
                    "DELETE FROM photo_tag WHERE photo_id = (SELECT id FROM photo WHERE display_name = ?)", [name])
            }
            if let tag {
                try lib.catalog.run(
                    "INSERT INTO tag (uuid, name, zone_id) VALUES (?, ?, ?)", [UUID().uuidString.lowercased(), tag, id])
                try lib.catalog.run(
                    "INSERT INTO photo_tag (photo_id, tag_id) SELECT p.id, t.id FROM photo p, tag t WHERE p.zone_id = ? AND t.zone_id = ?",
                    [id, id])
            }
        }
    }

    func testPurgeDeletesTheZoneAndItsFilesOnlyAndRecordsTombstones() throws {
        let lib = try library("L")
        try importInto(lib, ["storm.jpg", "path.jpg", "ladybird.jpg", "kite.png"], tags: ["Sky"])
        try makeShare(lib, id: "share-1234", photos: ["storm.jpg", "ladybird.jpg"], tag: "Sky")
        let sharedFiles = try lib.catalog.statement(
            "SELECT d.file_ref FROM photo_data d JOIN photo p ON p.id = d.photo_id WHERE p.zone_id = 'share-1234'"
        ).map { lib.externalData.path(for: $0.string(0)) }
        let keptFiles = try lib.catalog.statement(
            "SELECT d.file_ref FROM photo_data d JOIN photo p ON p.id = d.photo_id WHERE p.zone_id = 'default'"
        ).map { lib.externalData.path(for: $0.string(0)) }
        // The tombstones a purge writes set-wise: compact JSON as the row-wise ones, on both backends.
        let sharedTombstones = try lib.catalog.rows(
            "SELECT p.unique_name, d.sha256 FROM photo p JOIN photo_data d ON d.photo_id = p.id WHERE p.zone_id = 'share-1234'"
        ).map { "{\"uniqueName\":\"\($0[0] ?? "")\",\"sha256\":\"\($0[1] ?? "")\"}" }
        let outside = tmp.file("outside.jpg")
        try FileManager.default.copyItem(atPath: samplesDir + "/storm.jpg", toPath: outside)

        let dry = try lib.purge(zone: ZoneID(rawValue: "share-1234"), dryRun: true)
        XCTAssertEqual(
            [dry.photos, dry.photoData, dry.thumbnails, dry.ratings, dry.tags, dry.participants, dry.shares],
            [2, 2, 2, 1, 1, 1, 1])
        XCTAssertEqual(try lib.catalog.scalarInt("SELECT count(*) FROM photo"), 4, "dry run changes nothing")

        let report = try lib.purge(zone: ZoneID(rawValue: "share-1234"))
        XCTAssertEqual([report.photos, report.ratings, report.tags, report.filesRemoved], [2, 1, 1, 2])
        XCTAssertEqual(try lib.catalog.scalarInt("SELECT count(*) FROM photo"), 2)
        XCTAssertEqual(try lib.catalog.scalarInt("SELECT count(*) FROM photo_data"), 2)
        XCTAssertEqual(try lib.catalog.scalarInt("SELECT count(*) FROM thumbnail"), 2)
        XCTAssertEqual(try lib.catalog.scalarInt("SELECT count(*) FROM rating"), 0)
        XCTAssertEqual(
            try lib.catalog.scalarInt("SELECT count(*) FROM tag WHERE name = 'Sky'"), 1, "the default zone's Sky stays")
        XCTAssertEqual(try lib.catalog.scalarInt("SELECT count(*) FROM participant") ?? -1, 0)
        XCTAssertEqual(try lib.catalog.scalarInt("SELECT count(*) FROM zone"), 1)
        for f in sharedFiles { XCTAssertFalse(FileManager.default.fileExists(atPath: f)) }
        for f in keptFiles { XCTAssertTrue(FileManager.default.fileExists(atPath: f)) }
        XCTAssertTrue(FileManager.default.fileExists(atPath: outside), "files outside the library are never touched")
        let kinds = try lib.catalog.statement(
            "SELECT c.entity, count(*) FROM history_change c JOIN history_transaction t ON t.token = c.token WHERE t.author = 'purge' AND c.type = 'delete' GROUP BY c.entity ORDER BY c.entity"
        )
        .map { "\($0.string(0))=\($0.int(1))" }
        XCTAssertEqual(
            kinds, ["Participant=1", "Photo=2", "PhotoData=2", "Rating=1", "Share=1", "Tag=1", "Thumbnail=2"])
        let tomb =
            try lib.catalog.scalarString(
                "SELECT tombstone FROM history_change WHERE entity = 'Photo' AND type = 'delete' LIMIT 1") ?? ""
        XCTAssertTrue(tomb.hasPrefix("{\"uniqueName\":\""), tomb)
        XCTAssertEqual(
            try lib.catalog.statement("SELECT tombstone FROM history_change WHERE entity = 'Photo' AND type = 'delete'")
                .map { $0.string(0) }.sorted(), sharedTombstones.sorted())
        XCTAssertTrue(try lib.verify().isClean)

        XCTAssertThrowsError(try lib.purge(zone: .default)) {
            XCTAssertEqual($0 as? MaintenanceError, .defaultZoneNotPurgeable)
        }
        XCTAssertThrowsError(try lib.resolveZone("share-1234")) {
            XCTAssertEqual($0 as? MaintenanceError, .zoneNotFound("share-1234"))
        }
    }

    func testPurgeKeepsAnOriginalStillReferencedFromAnotherZone() throws {
        let lib = try library("L")
        try importInto(lib, ["storm.jpg"])
        try makeShare(lib, id: "zz-share", photos: [], tag: nil)
        // A second photo row in the share with the same bytes (as a merge could bring on SQLite).
        try lib.catalog.allowDuplicateOriginals()
        try lib.write {
            let id = try lib.catalog.insert(
                "INSERT INTO photo (unique_name, display_name, imported_at, width, height, format, zone_id) VALUES ('X-1', 'storm copy.jpg', '2026-01-01T00:00:00Z', 10, 10, 'jpeg', 'zz-share')"
            )
            try lib.catalog.run(
                "INSERT INTO photo_data (photo_id, sha256, byte_size, file_ref) SELECT ?, sha256, byte_size, file_ref FROM photo_data LIMIT 1",
                [id])
        }
        let report = try lib.purge(zone: ZoneID(rawValue: "zz-share"))
        XCTAssertEqual([report.photos, report.filesRemoved], [1, 0])
        XCTAssertTrue(try lib.verify(quick: true).problems.filter { $0.kind != "missing-thumbnail" }.isEmpty)
    }

    func testConsumersSeeEachTransactionOnceAndCompactionRespectsThem() throws {
        let lib = try library("L")
        for name in ["storm.jpg", "path.jpg", "kite.png", "ladybird.jpg"] { try importInto(lib, [name]) }
        XCTAssertEqual(try lib.currentHistoryToken(), 4)
        func seen(_ consumer: String) throws -> [Int64] {
            var filter = HistoryFilter()
            filter.sinceToken = try lib.consumerToken(consumer) ?? 0
            var tokens: [Int64] = []
            try lib.forEachHistoryTransaction(matching: filter) { tokens.append($0.token) }
            try lib.write { try lib.setConsumerToken(consumer, try lib.currentHistoryToken()) }
            return tokens
        }
        XCTAssertEqual(try seen("backup"), [1, 2, 3, 4])
        XCTAssertEqual(try seen("backup"), [])
        try importInto(lib, ["dune-orientation6.jpg"])
        XCTAssertEqual(try seen("backup"), [5])
        try lib.write { try lib.setConsumerToken("slow", 2) }

        let held = try lib.compactHistory(.token(100))
        XCTAssertEqual([held.transactions, Int(held.throughToken)], [2, 2])
        XCTAssertEqual(held.limitedByConsumer, "slow")
        XCTAssertEqual(try lib.catalog.scalarInt("SELECT min(token) FROM history_transaction"), 3)
        XCTAssertEqual(try lib.catalog.scalarInt("SELECT count(*) FROM history_change WHERE token <= 2"), 0)
        let dry = try lib.compactHistory(.token(100), force: true, dryRun: true)
        XCTAssertEqual(dry.transactions, 3)
        XCTAssertEqual(try lib.catalog.scalarInt("SELECT count(*) FROM history_transaction"), 3)
        let forced = try lib.compactHistory(.token(100), force: true)
        XCTAssertEqual(forced.transactions, 3)
        XCTAssertEqual(try lib.catalog.scalarInt("SELECT count(*) FROM history_transaction"), 0)
        // Tokens keep increasing after compaction (AUTOINCREMENT).
        try importInto(lib, ["colorful-cups-progressive.jpg"])
        XCTAssertEqual(try lib.currentHistoryToken(), 6)
        if lib.testBackend == .sqlite {
            XCTAssertEqual(
                try lib.sqlite.scalarInt("PRAGMA auto_vacuum"), 2, "libraries are created with auto_vacuum=INCREMENTAL")
        }
        // By date: nothing is older than a day ago.
        XCTAssertEqual(try lib.compactHistory(.date(Date().addingTimeInterval(-86_400)), force: true).transactions, 0)
        XCTAssertEqual(try lib.compactHistory(.date(Date().addingTimeInterval(60)), force: true).transactions, 1)
    }

    func testStatsCountWhatIsThere() throws {
        let lib = try library("L")
        try importInto(lib, ["storm.jpg", "ladybird.jpg"], tags: ["A"])
        let s = try lib.stats()
        XCTAssertEqual([s.photos, s.tags, s.ratings, s.shares, s.historyTransactions], [2, 3, 1, 0, 1])
        let expected = try ["storm.jpg", "ladybird.jpg"].reduce(Int64(0)) {
            $0
                + ((try FileManager.default.attributesOfItem(atPath: samplesDir + "/" + $1)[.size] as? NSNumber)?
                    .int64Value ?? 0)
        }
        XCTAssertEqual(s.originalBytes, expected)
        XCTAssertEqual(s.zones.map(\.id), ["default"])
    }

    func testMergeBringsSharesParticipantsAndKeepsLinksInsideZones() throws {
        let a = try library("A"), b = try library("B")
        try importInto(b, ["storm.jpg", "path.jpg"], tags: ["Sky"])
        try makeShare(b, id: "s-abcdef", photos: ["path.jpg"], tag: "Sky")
        try importInto(a, ["path.jpg"], tags: ["Sky"]) // path.jpg is in a's default zone
        let privatePath = try XCTUnwrap(try a.catalog.scalarString("SELECT unique_name FROM photo"))
        let report = try a.merge(from: b)
        // b's path.jpg is in its share, a's in a's default zone: matched as import matches it
        // (`DuplicateScope.forPhotos`: any zone of a's own), and a match by the original alone
        // moves nothing (issue 31 A1): a's private photo stays private, b's does not come in.
        XCTAssertEqual(
            [report.zones, report.shares, report.participants, report.photos, report.matchedPhotos], [1, 1, 1, 1, 1])
        XCTAssertEqual(
            try a.catalog.scalarString("SELECT zone_id FROM photo WHERE unique_name = '\(privatePath)'"), "default")
        XCTAssertEqual(try a.catalog.scalarInt("SELECT count(*) FROM photo WHERE zone_id = 's-abcdef'"), 0)
        XCTAssertEqual(try a.catalog.scalarString("SELECT title FROM share WHERE id = 's-abcdef'"), "Trip")
        XCTAssertEqual(
            try a.catalog.scalarInt(
                "SELECT count(*) FROM photo_tag pt JOIN photo p ON p.id = pt.photo_id JOIN tag t ON t.id = pt.tag_id WHERE p.zone_id <> t.zone_id"
            ), 0)
        XCTAssertTrue(try a.verify().isClean)
        XCTAssertTrue(try a.merge(from: b).isEmpty)
        XCTAssertThrowsError(try a.merge(from: a)) { XCTAssertEqual($0 as? MergeError, .intoItself(library: a.root)) }
    }
}
