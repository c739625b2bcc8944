import Foundation
import PhotosModel
import PhotosSQL

/// `CatalogStore` on PostgreSQL: `PhotosSQL`'s `CatalogStore where Self: SQLConnection`, but
/// for `forEachPhoto`, whose rows carry their tag names and ratings (one scan, not two more
/// round trips per photo; SQLite asks in-process, where a query costs no round trip).
extension PostgresDatabase: CatalogStore {
    // MARK: photos

    /// The extra columns of `forEachPhoto`: the photo's tag names (`tagNames(ofPhoto:)`'s
    /// order), each as its length in bytes, a colon and the name (no separator a name could
    /// hold), its rating values (`ratingValues(ofPhoto:)`'s order) joined by commas, and their
    /// authors in the same order, each as the names are or `-` when anonymous; NULL when there
    /// are none.
    private static let relationColumns = """
        , (SELECT string_agg(octet_length(tg.name)::text || ':' || tg.name, '' ORDER BY tg.name, tg.uuid)
             FROM photo_tag ptg JOIN tag tg ON tg.id = ptg.tag_id WHERE ptg.photo_id = p.id),
          (SELECT string_agg(r.value::text, ',' ORDER BY r.id) FROM rating r WHERE r.photo_id = p.id),
          (SELECT string_agg(CASE WHEN r.author IS NULL THEN '-' ELSE octet_length(r.author)::text || ':' || r.author END,
                             '' ORDER BY r.id)
             FROM rating r WHERE r.photo_id = p.id)

        """

    /// The rating authors of the third extra column of `forEachPhoto` (see `relationColumns`),
    /// or nil when the text is not in that form.
    static func decodeRatingAuthors(_ text: String?) -> [String?]? {
        guard let text else { return [] }
        var authors: [String?] = []
        var bytes = Substring(text).utf8[...]
        while let first = bytes.first {
            if first == UInt8(ascii: "-") {
                authors.append(nil)
                bytes = bytes.dropFirst()
                continue
            }
            guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")),
                let length = Int(String(decoding: bytes[..<colon], as: UTF8.self)), length >= 0
            else { return nil }
            let start = bytes.index(after: colon)
            guard let end = bytes.index(start, offsetBy: length, limitedBy: bytes.endIndex) else { return nil }
            authors.append(String(decoding: bytes[start..<end], as: UTF8.self))
            bytes = bytes[end...]
        }
        return authors
    }

    /// The tag names of column 18 of `forEachPhoto` (see `relationColumns`), or nil when the
    /// text is not in that form.
    static func decodeTagNames(_ text: String?) -> [String]? {
        guard let text else { return [] }
        var names: [String] = []
        var bytes = Substring(text).utf8[...]
        while !bytes.isEmpty {
            guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")),
                let length = Int(String(decoding: bytes[..<colon], as: UTF8.self)), length >= 0
            else { return nil }
            let start = bytes.index(after: colon)
            guard let end = bytes.index(start, offsetBy: length, limitedBy: bytes.endIndex) else { return nil }
            names.append(String(decoding: bytes[start..<end], as: UTF8.self))
            bytes = bytes[end...]
        }
        return names
    }

    /// Photos matching `query`, each with its tag names and rating values read in the same row
    /// (`StoredPhoto.tagNames`, `.ratingValues`): a list or export of the whole catalog makes one
    /// scan, not two more queries per photo; rows come through a cursor (`PGStatement.forEach`).
    public func forEachPhoto(matching query: PhotoQuery, _ body: (StoredPhoto) throws -> Void) throws {
        let (sql, args) = CatalogSQL.photoQuery(
            query, extraColumns: PostgresDatabase.relationColumns, instant: dialect.photoInstant)
        try forEachRow(sql: sql, arguments: args) { row in
            var photo = try CatalogSQL.storedPhoto(row)
            let extra = CatalogSQL.extraColumnIndex
            let values =
                row.isNull(extra + 1) ? [] : row.string(extra + 1).split(separator: ",").compactMap { Int($0) }
            if let names = PostgresDatabase.decodeTagNames(row.optionalString(extra)),
                let authors = PostgresDatabase.decodeRatingAuthors(row.optionalString(extra + 2)),
                authors.count == values.count
            {
                photo.tagNames = names
                photo.ratingValues = values
                photo.ratingAuthors = authors
            }
            try body(photo)
        }
    }
}

extension PostgresDatabase: GazetteerStore {}
