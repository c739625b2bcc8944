import PhotosModel

extension PostgresDatabase: ExportStore {
    public func photoExists(uniqueName: String) throws -> Bool {
        try scalarInt("SELECT 1 FROM photo WHERE unique_name = ?", [uniqueName]) != nil
    }
}
