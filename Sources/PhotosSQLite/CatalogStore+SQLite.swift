import Foundation
import PhotosModel
import PhotosSQL

/// `CatalogStore` on SQLite: `PhotosSQL`'s `CatalogStore where Self: SQLConnection`, but for
/// `forEachPhoto`, whose instant is SQLite's date arithmetic (`strftime`, `printf`).
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
}
