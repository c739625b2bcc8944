import Foundation
import PhotosModel
import PhotosTestSupport
import XCTest

@testable import PhotosCore

/// The reconciler compares a chunk of objects per round of store calls; its sync entries must be
/// those of comparing one object at a time. `PerObjectReconciler` below is the one-object-at-a-time
/// reconciler as it was before chunks (the reference); both run on the same library state, the
/// reference inside a transaction that is rolled back, with one fixed time for objects history
/// no longer names, and every column of `sync_entry` is compared.
final class SyncReconcilerChunkTests: SyncTestCase {
    private struct Rollback: Error {}

    /// One `sync_entry` row without its token, and whether this run wrote it (token above the
    /// change token before the run).
    private struct Row: Hashable, CustomStringConvertible {
        var entry: String
        var written: Bool
        var description: String { (written ? "+ " : "  ") + entry }
    }

    private static let fixedNow = "2031-05-06T07:08:09Z"

    private func rows(_ store: any SyncStore, writtenAfter token: Int64) throws -> [Row] {
        var written = Set<String>()
        try store.forEachSyncEntry(after: token, zone: nil) { written.insert(Self.text($0)) }
        var all: [Row] = []
        try store.forEachSyncEntry(after: 0, zone: nil) {
            let text = Self.text($0)
            all.append(Row(entry: text, written: written.contains(text)))
        }
        return all
    }

    private static func text(_ e: SyncEntry) -> String {
        [e.entity.rawValue, e.objectID, e.attribute, e.value ?? "NULL", e.stamp.time, e.stamp.library, e.zone ?? "NULL"]
            .joined(separator: "|")
    }

    /// Runs the reference and then the chunked reconciler (chunks of `chunkSize`) on `library`
    /// and asserts the same rows, tokens and state. - Returns: the number of rows written.
    @discardableResult
    private func assertSameAsPerObject(
        _ library: Library, chunkSize: Int, file: StaticString = #filePath, line: UInt = #line
    ) throws -> Int {
        let store = library.syncStore
        var expected: [Row] = []
        var expectedState: SyncState?
        do {
            try library.write {
                let before = try store.syncState()
                var reference = try PerObjectReconciler(store: store, now: Self.fixedNow)
                expectedState = try reference.run()
                expected = try rows(store, writtenAfter: before.changeToken)
                throw Rollback()
            }
        } catch is Rollback {}
        let before = try library.write { try store.syncState() }
        let (actual, state) = try library.write {
            var reconciler = try SyncReconciler(store: store, now: Self.fixedNow, chunkSize: chunkSize)
            let state = try reconciler.run()
            return (try rows(store, writtenAfter: before.changeToken), state)
        }
        XCTAssertEqual(actual.map(\.description), expected.map(\.description), file: file, line: line)
        let expectedAdvanced = expectedState.map { $0.changeToken != before.changeToken }
        XCTAssertEqual(state.changeToken != before.changeToken, expectedAdvanced, file: file, line: line)
        XCTAssertEqual(state.reconciledHistoryToken, expectedState?.reconciledHistoryToken, file: file, line: line)
        // Every row this run wrote has the run's token (the one column `rows` leaves out).
        let tokens = try TestCatalog(library).rows(
            "SELECT DISTINCT token FROM sync_entry WHERE token > ?", [before.changeToken])
        XCTAssertEqual(
            tokens, actual.contains(where: \.written) ? [[String(state.changeToken)]] : [], file: file, line: line)
        return actual.filter(\.written).count
    }

    func testChunkedReconcilerWritesTheRowsOfThePerObjectOne() throws {
        let a = try library("A"), b = try library("B")
        let names = try importPhotos(a, count: 7, tags: ["Trip", "Beach"])
        func photo(_ i: Int) throws -> PhotoRecord { try a.resolvePhoto(names[i]) }
        _ = try a.addTag(try TagName(parsing: "Dog"), to: [try photo(0), try photo(1)], author: .default)
        _ = try a.removeTag(try TagName(parsing: "Beach"), from: [try photo(2)], author: .default)
        let five = try XCTUnwrap(RatingValue(rawValue: 5)), two = try XCTUnwrap(RatingValue(rawValue: 2))
        _ = try a.setRating(five, of: try photo(0), author: "ann")
        _ = try a.setRating(two, of: try photo(0), author: "bob")
        _ = try a.setRating(two, of: try photo(3), author: "ann")
        let share = try a.createShare(photos: [try photo(1), try photo(3)], author: .default)
        try a.invite(try Email(parsing: "ann@example.org"), to: share, permission: .readWrite, author: .default)
        try a.invite(try Email(parsing: "bob@example.org"), to: share, permission: .readOnly, author: .default)
        try a.deletePhotos([try photo(6)], author: .default)

        // The first run compares every object (nothing reconciled yet), across chunk borders.
        XCTAssertGreaterThan(try assertSameAsPerObject(a, chunkSize: 3), 0)
        _ = try b.sync(from: a)

        // Incremental: zone moves, unlinks, deletions, rating changes, a participant gone.
        _ = try a.addToShare(share, photos: [try photo(2), try photo(4)], author: .default)
        _ = try a.addTag(try TagName(parsing: "Late"), to: [try photo(4), try photo(5)], author: .default)
        _ = try a.removeTag(try TagName(parsing: "Trip"), from: [try photo(1)], author: .default)
        _ = try a.setRating(five, of: try photo(3), author: "ann")
        try a.uninvite(try Email(parsing: "bob@example.org"), from: share, author: .default)
        _ = try a.deleteTag(try TagName(parsing: "Dog"), author: .default)
        try a.deletePhotos([try photo(5)], author: .default)
        XCTAssertGreaterThan(try assertSameAsPerObject(a, chunkSize: 2), 0)
        XCTAssertEqual(try assertSameAsPerObject(a, chunkSize: 2), 0, "nothing new")

        // History compacted with --force: every object again, with tombstones kept and objects
        // history no longer names stamped at the fixed time.
        try a.deletePhotos([try photo(0)], author: .default)
        _ = try a.compactHistory(.date(Date().addingTimeInterval(3600)), force: true)
        _ = try a.addTag(try TagName(parsing: "Last"), to: [try photo(4)], author: .default)
        XCTAssertGreaterThan(try assertSameAsPerObject(a, chunkSize: 4), 0)
        XCTAssertEqual(try assertSameAsPerObject(a, chunkSize: 512), 0, "nothing new")

        _ = try b.sync(from: a)
        XCTAssertEqual(try CanonicalDump.of(b.root), try CanonicalDump.of(a.root))
    }
}

/// The reconciler as it was before chunks: one object at a time, several store calls each. Kept
/// here as the reference `SyncReconcilerChunkTests` compares the chunked one with.
private struct PerObjectReconciler {
    let store: any SyncStore
    let state: SyncState
    let token: Int64
    private(set) var changed = 0
    private let now: String

    init(store: any SyncStore, now: String) throws {
        self.store = store
        state = try store.syncState()
        token = SyncClock.nextToken(after: state.changeToken)
        self.now = now
    }

    mutating func run() throws -> SyncState {
        let newest = try store.newestHistoryToken()
        let oldest = try store.oldestHistoryToken()
        let complete =
            state.reconciledHistoryToken > 0 && (oldest.map { $0 <= state.reconciledHistoryToken + 1 } ?? false)
        if complete {
            let named = try store.historyObjects(
                after: state.reconciledHistoryToken, excludingContext: HistoryContext.sync.rawValue)
            var seen = Set<String>()
            for object in named {
                guard let entity = SyncReconciler.entity(ofHistory: object.entity) else { continue }
                guard seen.insert(entity.rawValue + " " + object.objectID).inserted else { continue }
                try reconcile(entity, object.objectID, time: object.timestamp)
            }
        } else {
            for entity in [SyncEntity.share, .participant, .photo, .tag, .rating] {
                var ids = Set(try store.catalogObjects(entity))
                ids.formUnion(try store.liveSyncObjects(entity))
                for id in ids.sorted() {
                    let time = try store.newestHistoryTimestamps(
                        entity: entity.rawValue, objectIDs: [id], excludingContext: HistoryContext.sync.rawValue)[id]
                    try reconcile(entity, id, time: time ?? now)
                }
            }
        }
        let after = SyncState(
            libraryID: state.libraryID, changeToken: changed > 0 ? token : state.changeToken,
            reconciledHistoryToken: max(newest, state.reconciledHistoryToken))
        if after != state {
            try store.setSyncTokens(
                changeToken: after.changeToken, reconciledHistoryToken: after.reconciledHistoryToken)
        }
        return after
    }

    private mutating func put(
        _ entity: SyncEntity, _ id: String, _ attribute: String, _ value: String?, zone: String?, time: String,
        after previous: String?
    ) throws {
        try store.putSyncEntry(
            SyncEntry(
                entity: entity, objectID: id, attribute: attribute, value: value,
                stamp: SyncStamp(time: SyncClock.stamp(time, after: previous), library: state.libraryID), zone: zone),
            token: token)
        changed += 1
    }

    private mutating func reconcile(_ entity: SyncEntity, _ id: String, time: String) throws {
        let synced = Dictionary(
            try store.syncEntries(entity, id).map { ($0.attribute, $0) }, uniquingKeysWith: { a, _ in a })
        if synced[SyncEntity.deleted] != nil { return }
        guard let live = try store.catalogAttributes(entity, id) else {
            if !synced.isEmpty {
                try put(
                    entity, id, SyncEntity.deleted, "1", zone: synced.values.first?.zone, time: time,
                    after: synced.values.map(\.stamp.time).max())
            }
            return
        }
        let zone = try self.zone(of: entity, live, id: id)
        for attribute in entity.attributes {
            if entity == .share && attribute == "scope" && live[attribute] == ZoneScope.shared.rawValue { continue }
            let old = synced[attribute]
            if old == nil || old?.value != live[attribute] {
                try put(entity, id, attribute, live[attribute], zone: zone, time: time, after: old?.stamp.time)
            } else if let old, old.zone != zone {
                var moved = old
                moved.zone = zone
                try store.putSyncEntry(moved, token: token)
                changed += 1
            }
        }
        if entity == .photo { try reconcileLinks(ofPhoto: id, zone: zone, time: time) }
    }

    private mutating func reconcileLinks(ofPhoto photo: String, zone: String?, time: String) throws {
        let live = Set(try store.tagUUIDs(ofPhotos: [photo])[photo] ?? [])
        var synced: [String: SyncEntry] = [:]
        for e in try store.syncLinkEntries(ofPhoto: photo) where e.attribute == "present" {
            synced[String(e.objectID.dropFirst(photo.count + 1))] = e
        }
        for tag in live.union(synced.keys).sorted() {
            let value = live.contains(tag) ? "1" : "0"
            if let old = synced[tag], old.value == value {
                if old.zone != zone {
                    var moved = old
                    moved.zone = zone
                    try store.putSyncEntry(moved, token: token)
                    changed += 1
                }
                continue
            }
            try put(
                .photoTag, photo + "/" + tag, "present", value, zone: zone, time: time, after: synced[tag]?.stamp.time)
        }
    }

    private func zone(of entity: SyncEntity, _ live: [String: String], id: String) throws -> String? {
        switch entity {
        case .photo, .tag: return live["zone"]
        case .share: return id
        case .participant: return live["share"]
        case .rating: return try live["photo"].flatMap { try store.catalogAttributes(.photo, $0)?["zone"] }
        case .photoTag, .photoData: return nil
        }
    }
}
