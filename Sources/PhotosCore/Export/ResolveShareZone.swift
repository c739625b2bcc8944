import Foundation
import PhotosStorage

extension Library {
    /// The record zone of the share `id`: a share's id is its zone's id (SPEC §3), so this only
    /// checks that the share exists.
    /// - Parameter id: the share id, exactly.
    /// - Returns: the zone id to filter on.
    /// - Throws: `PhotosError` 66 when there is no such share, `SQLiteError`.
    public func resolveShareZone(_ id: String) throws -> String {
        guard let zone = try db.scalarString("SELECT id FROM share WHERE id = ?", [id]) else {
            throw PhotosError.noInput("no share '\(id)' in the library")
        }
        return zone
    }
}
