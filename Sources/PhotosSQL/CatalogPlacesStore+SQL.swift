import PhotosModel

/// `CatalogPlacesStore` on any `SQLConnection` (tables of migration 7, issue 31 item A3).
extension CatalogPlacesStore where Self: SQLConnection {
    public func catalogPlaces(host: String, folder: String) throws -> CatalogPlaces {
        let row = try fetchOne(
            sql: """
                SELECT (SELECT root FROM catalog_originals WHERE singleton = 1),
                    (SELECT catalog_id FROM catalog_originals WHERE singleton = 1),
                    (SELECT recorded_at FROM catalog_originals WHERE singleton = 1),
                    (SELECT unknown_folders FROM catalog_originals WHERE singleton = 1),
                    (SELECT count(*) FROM catalog_folder),
                    (SELECT count(*) FROM catalog_folder WHERE host = ? AND folder = ?)
                """,
            arguments: [host, folder]
        ) { row -> CatalogPlaces in
            var originals: OriginalsRootRecord?
            if let root = row.optionalString(0), let id = row.optionalString(1) {
                originals = OriginalsRootRecord(
                    root: root, catalogID: id, recordedAt: row.optionalString(2) ?? "", unknownFolders: row.int(3) != 0)
            }
            return CatalogPlaces(originals: originals, folders: row.int(4), folderKnown: row.int(5) > 0)
        }
        return row ?? CatalogPlaces(originals: nil, folders: 0, folderKnown: false)
    }

    public func recordOriginalsRoot(_ record: OriginalsRootRecord) throws {
        try execute(
            sql: """
                INSERT INTO catalog_originals (singleton, root, catalog_id, recorded_at, unknown_folders)
                VALUES (1, ?, ?, ?, ?)
                ON CONFLICT (singleton) DO UPDATE SET root = excluded.root, catalog_id = excluded.catalog_id,
                    recorded_at = excluded.recorded_at, unknown_folders = excluded.unknown_folders
                """,
            arguments: [record.root, record.catalogID, record.recordedAt, record.unknownFolders ? 1 : 0])
    }

    public func recordCatalogFolder(host: String, folder: String, openedAt: String) throws {
        try execute(
            sql: """
                INSERT INTO catalog_folder (host, folder, first_opened) VALUES (?, ?, ?)
                ON CONFLICT (host, folder) DO NOTHING
                """,
            arguments: [host, folder, openedAt])
    }
}
