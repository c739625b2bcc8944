import PhotosModel
import PhotosSQL

extension PostgresDatabase: StatsStore {
    /// The counts (`readCatalogCounts`, shared) in one read transaction, with this backend's
    /// schema version.
    public func catalogStats() throws -> LibraryStats {
        var s = LibraryStats()
        try transaction(.read) {
            try readCatalogCounts(into: &s, byteLength: "octet_length")
            s.schemaVersion = try schemaVersion()
            s.libraryID = try syncState().libraryID
        }
        return s
    }
}
