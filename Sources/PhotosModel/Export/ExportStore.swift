/// The library reads `photos export` makes besides listing the photos (`Library.listPhotos`).
///
/// For PostgreSQL (libpq): each call is one statement in autocommit (READ COMMITTED), since
/// export reads outside any long transaction so that imports and deletes go on meanwhile.
public protocol ExportStore: AnyObject {
    /// True when a photo named `uniqueName` is still in the library (one listed may have been
    /// deleted or purged by another process since).
    /// - Throws: the store's error.
    func photoExists(uniqueName: String) throws -> Bool
}
