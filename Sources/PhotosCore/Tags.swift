import Foundation
import PhotosModel

/// A tag name as stored and compared (SPEC §3/§5): trimmed of white space, NFC-normalized
/// (Unicode Standard Annex #15), not empty, without control characters. The CLI parses each
/// name once, at the edge (`init(parsing:)`); Core's tag commands take this type.
public struct TagName: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The normalized name.
    public let rawValue: String

    /// A name known to be normalized already (read from the library).
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Parses a name as typed.
    /// - Throws: `ValueError.tagNameEmpty` for a name that is empty after trimming,
    ///   `.tagNameControlCharacters` for one holding control characters (both exit 65).
    public init(parsing raw: String) throws { rawValue = try TagName.normalize(raw) }

    public var description: String { rawValue }

    /// Trims white space and NFC-normalizes `raw` (Unicode Standard Annex #15), the form every
    /// tag name is stored and compared in.
    /// - Throws: `ValueError.tagNameEmpty` for a name that is empty after trimming,
    ///   `.tagNameControlCharacters` for one holding control characters, `.tagNameNotUTF8` for
    ///   one holding U+FFFD (bytes that were not UTF-8, replaced by whoever decoded them).
    public static func normalize(_ raw: String) throws -> String {
        let trimmed = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw ValueError.tagNameEmpty }
        if trimmed.unicodeScalars.contains(where: isControl) {
            throw ValueError.tagNameControlCharacters(shown: JSONValue.string(trimmed).serialized())
        }
        if trimmed.unicodeScalars.contains("\u{FFFD}") {
            throw ValueError.tagNameNotUTF8(shown: JSONValue.string(trimmed).serialized())
        }
        return trimmed.precomposedStringWithCanonicalMapping
    }

    /// A control character: Unicode general category Cc (U+0000–U+001F, U+007F–U+009F). Format
    /// characters (Cf: the zero-width joiner of emoji sequences such as 👨‍👩‍👧, the soft
    /// hyphen) are text and allowed, unlike Foundation's `CharacterSet.controlCharacters`
    /// (Cc and Cf).
    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.generalCategory == .control
    }

    /// A keyword read from a file (XMP `dc:subject`, IPTC Keywords) as a tag name: each run of
    /// control characters (a tab or line break some writers leave in a keyword) becomes one
    /// space, then `normalize`; nil when nothing is left.
    public static func fromKeyword(_ raw: String) -> String? {
        var scalars = String.UnicodeScalarView()
        var lastWasControl = false
        for scalar in raw.unicodeScalars {
            if isControl(scalar) {
                if !lastWasControl { scalars.append(" ") }
                lastWasControl = true
            } else {
                scalars.append(scalar)
                lastWasControl = false
            }
        }
        return try? normalize(String(scalars))
    }
}

/// A tag row: its row id, uuid (lowercase canonical form) and zone.
public struct TagRef: Equatable, Sendable {
    public var rowID: Int64
    public var uuid: String
    public var name: String
    public var zone: String

    public init(rowID: Int64, uuid: String, name: String, zone: String) {
        self.rowID = rowID
        self.uuid = uuid
        self.name = name
        self.zone = zone
    }

    /// The tag of a stored row.
    public init(_ stored: StoredTag) {
        self.init(rowID: stored.rowID, uuid: stored.uuid, name: stored.name, zone: stored.zone.rawValue)
    }
}

extension TagName {
    /// The one rule by which a name typed finds a stored tag, for filters and mutations alike
    /// (issue 32 item 2): the two names are equal ignoring case and diacritics, Foundation's
    /// `compare(_:options: [.caseInsensitive, .diacriticInsensitive])` — the seed's `==[cd]`
    /// predicate, which `list --tag` has always used — so `cafe`, `CAFE` and `Café` (composed or
    /// decomposed) find one another.
    public static func sameTag(_ a: String, _ b: String) -> Bool {
        a.compare(b, options: [.caseInsensitive, .diacriticInsensitive]) == .orderedSame
    }

    /// The levels of a hierarchical name, split at every `/` (`Places/France/Paris` gives
    /// `Places`, `France`, `Paris`); a name without `/` is one level.
    public static func levels(_ name: String) -> [Substring] {
        name.split(separator: "/", omittingEmptySubsequences: false)
    }

    /// What follows `branch` in `name` when `name` lies strictly beneath it: `/France/Paris` for
    /// `Places/France/Paris` below `places` (levels compared by `sameTag`); nil when `name` is
    /// `branch` itself or not beneath it.
    public static func suffix(of name: String, below branch: String) -> String? {
        let levels = self.levels(name)
        let top = self.levels(branch)
        guard levels.count > top.count else { return nil }
        for (a, b) in zip(levels, top) where !sameTag(String(a), String(b)) { return nil }
        return "/" + levels[top.count...].joined(separator: "/")
    }

    /// True when `name` is the tag `branch` or lies beneath it (`Places/France/Paris` is in the
    /// branch `Places`): what `--tag` selects unless `--tag-exact` is given.
    public static func isInBranch(_ name: String, _ branch: String) -> Bool {
        sameTag(name, branch) || suffix(of: name, below: branch) != nil
    }
}

extension Library {
    /// The tag named `name` (already normalized) in `zone`, or nil. When duplicates exist the
    /// one with the smallest uuid is returned, the one `dedupe-tags` will keep.
    /// - Throws: the store's error.
    public func findTag(named name: TagName, zone: String) throws -> TagRef? {
        try findTag(named: name.rawValue, zone: zone)
    }

    /// `findTag(named:zone:)` for a name read from the library (or another one): compared in
    /// NFC, as the store compares stored names (a name stored decomposed by another program is
    /// the same tag, #31 A9); without such a tag, the tag equal to it by `TagName.sameTag`
    /// (case and accents ignored: `cafe` finds `Café`), the smallest uuid when several are.
    /// - Throws: the store's error.
    func findTag(named name: String, zone: String) throws -> TagRef? {
        if let exact = try catalogStore.tag(named: name.precomposedStringWithCanonicalMapping, zone: zone) {
            return TagRef(exact)
        }
        return try tags(matching: name, zone: zone).first
    }

    /// The tags of `zone` whose names equal `name` by `TagName.sameTag`, smallest uuid first.
    /// - Throws: the store's error.
    func tags(matching name: String, zone: String) throws -> [TagRef] {
        try catalogStore.tags(inZone: zone).filter { TagName.sameTag($0.name, name) }.map(TagRef.init)
            .sorted { uuidByteOrder($0.uuid, $1.uuid) }
    }

    /// The one tag of `zone` that `name` finds by `TagName.sameTag`, or nil: what a mutation
    /// acts on.
    /// - Throws: `LibraryError.ambiguous(.tag)` listing the tags when several match (`Café` and
    ///   `cafe` in one zone: exit 65, `dedupe-tags --fold` merges them); the store's error.
    func uniqueTag(matching name: String, zone: String) throws -> TagRef? {
        let found = try tags(matching: name, zone: zone)
        if found.count > 1 { throw LibraryError.ambiguousTag(name, found) }
        return found.first
    }

    /// Finds the tag `name` in `zone` or creates it (named in NFC) with a fresh random UUID,
    /// recording the insert in `history`. Call inside a write transaction.
    /// - Throws: the store's error.
    func findOrCreateTag(named name: String, zone: String, history: inout HistoryWriter) throws -> TagRef {
        let name = name.precomposedStringWithCanonicalMapping
        if let existing = try findTag(named: name, zone: zone) { return existing }
        return try createTag(named: name, zone: zone, history: &history)
    }

    /// Creates the tag `name` (NFC) in `zone` with a fresh random UUID, recording the insert.
    /// - Throws: the store's error.
    func createTag(named name: String, zone: String, history: inout HistoryWriter) throws -> TagRef {
        let uuid = newObjectUUID()
        let rowID = try catalogStore.insertTag(uuid: uuid, name: name, zone: zone)
        history.insert(.tag(uuid: uuid), zone: zone)
        return TagRef(rowID: rowID, uuid: uuid, name: name, zone: zone)
    }
}

extension LibraryError {
    /// `.ambiguous(.tag, …)` for a name that finds several tags, each described as
    /// `'name' (zone Z, uuid U)`.
    static func ambiguousTag(_ name: String, _ tags: [TagRef]) -> LibraryError {
        .ambiguous(.tag, argument: name, candidates: tags.map { "'\($0.name)' (zone \($0.zone), uuid \($0.uuid))" })
    }
}
