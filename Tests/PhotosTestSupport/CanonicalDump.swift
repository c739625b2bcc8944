import Foundation

/// A library's content by identity, never by local row id (SYNC.md "Tests that tell the
/// truth"): what two peers that converged hold alike. Sync bookkeeping and history differ per
/// library and are left out.
public enum CanonicalDump {
    /// One sorted line per zone, share, participant, photo (with its primary original's SHA-256
    /// and size, thumbnail size, zone), other original of a photo (role, SHA-256, size, format),
    /// tag, link and rating, plus the original files in external data.
    /// Read on whichever backend holds the catalog (`TestCatalog`).
    /// - Throws: `SQLiteError` or `PostgresError` when the catalog cannot be read.
    public static func of(_ library: String) throws -> [String] {
        let catalog = try TestCatalog(root: library, readOnly: true)
        let queries = [
            "SELECT 'zone', id, scope FROM zone",
            "SELECT 'share', id, title, created, public_permission FROM share",
            "SELECT 'participant', uuid, share_id, email, role, permission, acceptance FROM participant",
            """
            SELECT 'photo', p.unique_name, p.display_name, p.imported_at, p.width, p.height, p.format, p.orientation,
                   p.zone_id, d.sha256, d.byte_size, t.width, t.height
            FROM photo p LEFT JOIN photo_data d ON d.photo_id = p.id AND d.role = 'primary'
            LEFT JOIN thumbnail t ON t.photo_id = p.id
            """,
            // The originals beside the primary (issue 24 item 2: the RAW of a RAW+JPEG pair).
            """
            SELECT 'original', p.unique_name, d.role, d.sha256, d.byte_size, d.format
            FROM photo_data d JOIN photo p ON p.id = d.photo_id WHERE d.role <> 'primary'
            """,
            "SELECT 'tag', uuid, name, zone_id FROM tag",
            """
            SELECT 'link', p.unique_name, t.uuid FROM photo_tag pt JOIN photo p ON p.id = pt.photo_id
            JOIN tag t ON t.id = pt.tag_id
            """,
            "SELECT 'rating', r.uuid, p.unique_name, r.value FROM rating r JOIN photo p ON p.id = r.photo_id"
        ]
        var lines: [String] = []
        for sql in queries {
            lines += try catalog.rows(sql).map { $0.map { $0 ?? "NULL" }.joined(separator: "|") }
        }
        let files = filesUnder(library + "/ExternalData").map { "file " + ($0 as NSString).lastPathComponent }
        return lines.sorted() + files.sorted()
    }
}
