import Foundation
import PhotosModel
import PhotosSQLite

extension Library {
    /// Counts and sizes, read in one read transaction.
    /// - Throws: the store's error.
    public func stats() throws -> LibraryStats {
        var s = try (db as StatsStore).catalogStats()
        for suffix in ["", "-wal"] {
            if let size = (try? FileManager.default.attributesOfItem(atPath: databasePath + suffix))?[.size] as? NSNumber {
                s.databaseBytes += size.int64Value
            }
        }
        return s
    }
}
