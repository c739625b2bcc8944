import PhotosModel

extension PostgresDatabase: ImportStore {
    public func importedOriginal(sha256: String) throws -> ImportedOriginal? {
        try statement(
            "SELECT p.unique_name, p.display_name, d.file_ref FROM photo_data d JOIN photo p ON p.id = d.photo_id WHERE d.sha256 = ? ORDER BY d.id LIMIT 1"
        )
        .first([sha256]) {
            ImportedOriginal(uniqueName: $0.string(0), displayName: $0.string(1), fileReference: $0.string(2))
        }
    }

    public func hasOriginal(sha256: String) throws -> Bool {
        try statement("SELECT 1 FROM photo_data WHERE sha256 = ? LIMIT 1").first([sha256]) { _ in true } != nil
    }
}
