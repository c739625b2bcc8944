import Foundation

/// A persistent-history transaction as `photos history` lists it (SPEC §4, §5a).
public struct HistoryTransaction: Equatable {
    /// Monotonically increasing token.
    public var token: Int64
    /// ISO 8601 UTC.
    public var timestamp: String
    /// Who made the change (`HistoryAuthor.name(for:)`).
    public var author: String
    /// The command (a `HistoryContext` raw value, kept as read).
    public var context: String
    /// The changes, in the order they were written.
    public var changes: [HistoryChange]

    public init(token: Int64, timestamp: String, author: String, context: String, changes: [HistoryChange]) {
        self.token = token
        self.timestamp = timestamp
        self.author = author
        self.context = context
        self.changes = changes
    }

    /// `{"token":N,"timestamp":"…","author":"…","context":"…","changes":[…]}`.
    public var json: JSONValue {
        .object([
            ("token", .int(Int(token))), ("timestamp", .string(timestamp)), ("author", .string(author)),
            ("context", .string(context)),
            (
                "changes",
                .array(
                    changes.map { change in
                        var pairs: [(String, JSONValue)] = [
                            ("entity", .string(change.entity)), ("id", .string(change.objectID)),
                            ("type", .string(change.type.rawValue))
                        ]
                        if !change.updated.isEmpty {
                            pairs.append(("updated", .array(change.updated.map(JSONValue.string))))
                        }
                        if let tombstone = change.tombstone {
                            pairs.append(("tombstone", .object(tombstone.map { ($0.0, .string($0.1)) })))
                        }
                        if let zone = change.zone { pairs.append(("zone", .string(zone))) }
                        return .object(pairs)
                    })
            )
        ])
    }
}

/// Which history `photos history` lists. Transactions are kept when their author matches;
/// changes when their entity and zone match; a transaction left without changes is dropped.
public struct HistoryFilter: Sendable {
    /// Only transactions after this token.
    public var sinceToken: Int64 = 0
    /// Only transactions with a timestamp at or after this one (`YYYY-MM-DDTHH:MM:SSZ`, UTC,
    /// the form history stores, so that text order is time order).
    public var sinceTimestamp: String?
    /// Only transactions with a timestamp before this one (same form).
    public var untilTimestamp: String?
    /// Only transactions by these authors (all when empty).
    public var authors: [String] = []
    /// Leave out transactions by these authors.
    public var excludedAuthors: [String] = []
    /// Only changes of these entities (all when empty).
    public var entities: [HistoryEntity] = []
    /// Only changes in this zone.
    public var zone: ZoneID?

    public init() {}

    /// True when the filter selects changes, so that a transaction can be left without any.
    public var filtersChanges: Bool { !entities.isEmpty || zone != nil }
}

/// A registered history consumer: a name and the last token it processed.
public struct HistoryConsumer: Equatable, Sendable {
    /// The name it registered under (`dedupe-tags`, `--consumer NAME`).
    public var name: String
    /// The last token it processed.
    public var token: Int64

    public init(name: String, token: Int64) {
        self.name = name
        self.token = token
    }
}

/// The read side of persistent history and its consumers (SPEC §4: `history_transaction`,
/// `history_change`, `history_consumer`): what `photos history`, `history consumers` and the
/// incremental `dedupe-tags` read. Core decides what a consumer has seen and when history has
/// expired; a store only reads and writes the rows.
///
/// Designed for a PostgreSQL implementation (libpq) without changing Core:
/// - Tokens must stay gap-free except for compaction (`hasHistoryTransaction` is how Core tells
///   a consumer it missed compacted changes). AUTOINCREMENT gives that here (a rolled-back
///   transaction takes its token back) and `issuedHistoryToken` reads its `sqlite_sequence`
///   high-water mark; a PostgreSQL sequence does not take values back, so a PostgreSQL store
///   draws tokens from a one-row counter table updated under the write lock (returned with
///   `RETURNING`) and reads the high-water mark from it. Compaction never sets the feed back.
/// - Tombstones and `updated` are `jsonb` there (`jsonb_each_text` keeps no key order, so a
///   PostgreSQL store reads them in `HistoryEntity.tombstoneKeys` order, which is the order
///   they were written in); JSON text walked with `json_each` here.
/// - Filters are bound parameters (`= ANY($1::text[])` there, expanded `IN (?, …)` here).
/// - `setHistoryConsumerToken` is an upsert (`ON CONFLICT (name) DO UPDATE` on both).
public protocol HistoryFeedStore: AnyObject {
    /// The highest token ever handed out, also when compaction has deleted it (0 when none).
    /// - Throws: the store's error.
    func issuedHistoryToken() throws -> Int64

    /// True when the transaction `token` exists.
    /// - Throws: the store's error.
    func hasHistoryTransaction(token: Int64) throws -> Bool

    /// Calls `body` for each transaction `filter` selects, in token order, with the changes
    /// that match it in the order they were written; a transaction left without changes by an
    /// entity or zone filter is skipped. Streams: never holds the whole history in memory.
    /// - Throws: the store's error, or what `body` throws.
    func forEachHistoryTransaction(matching filter: HistoryFilter, _ body: (HistoryTransaction) throws -> Void) throws

    /// The transaction author of each photo's insert (its `Photo` insert change, by
    /// uniqueName; the earliest when there are several), for the photos of `uniqueNames` whose
    /// insert is still in the history (compaction deletes old ones). One query, on the
    /// `history_change_object` index; call with at most 1,000 names (bound parameters).
    /// - Throws: the store's error.
    func photoInsertAuthors(uniqueNames: [String]) throws -> [String: String]

    /// Every registered consumer, by name.
    /// - Throws: the store's error.
    func historyConsumers() throws -> [HistoryConsumer]

    /// The token of consumer `name`, or nil when it is not registered.
    /// - Throws: the store's error.
    func historyConsumerToken(_ name: String) throws -> Int64?

    /// Registers `name` at `token`, or moves it there. Call inside a write transaction.
    /// - Throws: the store's error.
    func setHistoryConsumerToken(_ name: String, _ token: Int64) throws

    /// Unregisters `name`. Call inside a write transaction.
    /// - Returns: true when it was registered.
    /// - Throws: the store's error.
    func removeHistoryConsumer(_ name: String) throws -> Bool
}
