import Foundation
import PhotosModel
import PhotosSQL

/// The catalog's SQLite dialect (`CatalogStore`); the statements both backends share are
/// `PhotosSQL`'s `CatalogStore where Self: SQLConnection`.
extension Database: CatalogStore {
    // MARK: photos

    public func forEachPhoto(matching query: PhotoQuery, _ body: (StoredPhoto) throws -> Void) throws {
        // Each photo's instant, a capture time of unknown offset read in the bound's zone; the
        // import time is UTC.
        let (sql, args) = CatalogSQL.photoQuery(
            query, extraColumns: "",
            instant:
                "COALESCE(strftime('%Y-%m-%dT%H:%M:%f', p.capture_date, printf('%+d minutes', -COALESCE(p.capture_offset, ?))), strftime('%Y-%m-%dT%H:%M:%f', p.imported_at))"
        )
        try forEachRow(sql: sql, arguments: args) { row in try body(CatalogSQL.storedPhoto(row)) }
    }

    // MARK: keys

    public func exactKey(_ key: CatalogKey, _ text: String) throws -> String? {
        let (table, column) = CatalogSQL.table(key)
        return try scalarString("SELECT \(column) FROM \(table) WHERE \(column) = ? COLLATE NOCASE LIMIT 1", [text])
    }

    public func keys(_ key: CatalogKey, withPrefix prefix: String, limit: Int) throws -> [String] {
        let (table, column) = CatalogSQL.table(key)
        // LIKE compares ASCII case-insensitively.
        return try statement(
            "SELECT \(column) FROM \(table) WHERE \(column) LIKE ? ESCAPE '\\' ORDER BY \(column) LIMIT \(limit)"
        )
        .map([CatalogSQL.prefixPattern(prefix)]) { $0.string(0) }
    }

    // MARK: inserts (new row ids from the connection, conflicts ignored with OR IGNORE)

    public func createPrivateZone(_ id: String) throws {
        try ZoneRow(id: id, name: id, scope: .private).insert(into: self)
    }

    public func insertTag(uuid: String, name: String, zone: String) throws -> Int64 {
        try TagRows.insert(uuid: uuid, name: name, zone: zone, into: self)
    }

    public func link(photo photoID: Int64, tag tagID: Int64) throws {
        try TagRows.link(photo: photoID, tag: tagID, in: self)
    }

    public func linkPhotos(ofTag from: Int64, toTag to: Int64) throws {
        try TagRows.linkPhotos(of: from, to: to, in: self)
    }

    public func insertRating(uuid: String, photo photoID: Int64, value: RatingValue, author: String?) throws -> Int64 {
        try RatingRow(uuid: uuid, photoRowID: photoID, value: value, author: author).insert(into: self)
    }

    public func insertShare(id: String, title: String, created: String) throws {
        try ShareRow(id: id, title: title, created: created, publicPermission: .none).insert(into: self)
    }

    @discardableResult
    public func insertParticipant(
        uuid: String, share: String, email: Email, role: ParticipantRole, permission: SharePermission,
        acceptance: Acceptance, ignoringExisting: Bool
    ) throws -> Bool {
        try ParticipantRow(
            uuid: uuid, shareID: share, email: email, role: role, permission: permission, acceptance: acceptance
        )
        .insert(into: self, ignoringExisting: ignoringExisting)
    }
}
