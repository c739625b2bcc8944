import Foundation
import PhotosSQLite

/// Tag names and the find-or-create rule of SPEC §3/§5.
public enum TagName {
    /// Trims white space and NFC-normalizes `raw` (Unicode Standard Annex #15), the form every
    /// tag name is stored and compared in.
    /// - Throws: `PhotosError` 65 for a name that is empty after trimming or holds control
    ///   characters.
    public static func normalize(_ raw: String) throws -> String {
        let trimmed = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw PhotosError.dataError("tag name is empty") }
        if trimmed.unicodeScalars.contains(where: { CharacterSet.controlCharacters.contains($0) }) {
            throw PhotosError.dataError("tag name \(JSONValue.string(trimmed).serialized()) contains control characters")
        }
        return trimmed.precomposedStringWithCanonicalMapping
    }
}

/// A tag row: its row id, uuid (lowercase canonical form) and zone.
public struct TagRef: Equatable, Sendable {
    public var rowID: Int64
    public var uuid: String
    public var name: String
    public var zone: String
}

extension Library {
    /// The tag named `name` (already normalized) in `zone`, or nil. When duplicates exist the
    /// one with the smallest uuid is returned, the one `dedupe-tags` will keep.
    /// - Throws: `SQLiteError`.
    public func findTag(named name: String, zone: String) throws -> TagRef? {
        try db.statement("SELECT id, uuid FROM tag WHERE zone_id = ? AND name = ? ORDER BY lower(uuid) LIMIT 1")
            .first([zone, name]) { TagRef(rowID: $0.int64(0), uuid: $0.string(1), name: name, zone: zone) }
    }

    /// Finds the tag `name` in `zone` or creates it with a fresh random UUID, recording the
    /// insert in `history`. Call inside a write transaction.
    /// - Throws: `SQLiteError`.
    func findOrCreateTag(named name: String, zone: String, history: inout HistoryWriter) throws -> TagRef {
        if let existing = try findTag(named: name, zone: zone) { return existing }
        let uuid = newObjectUUID()
        let rowID = try TagRows.insert(uuid: uuid, name: name, zone: zone, into: db)
        history.insert(.tag(uuid: uuid), zone: zone)
        return TagRef(rowID: rowID, uuid: uuid, name: name, zone: zone)
    }
}
