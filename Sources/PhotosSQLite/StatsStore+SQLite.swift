import PhotosModel
import PhotosSQL

extension Database: StatsStore {
    /// The counts (`readCatalogCounts`, shared) in one read transaction, with this backend's
    /// schema version.
    public func catalogStats() throws -> LibraryStats {
        var s = LibraryStats()
        try transaction(.deferred) {
            try readCatalogCounts(into: &s, byteLength: "length")
            s.schemaVersion = try userVersion
            s.libraryID = try syncState().libraryID
        }
        return s
    }
}
