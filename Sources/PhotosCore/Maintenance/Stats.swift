import Foundation
import PhotosModel

extension Library {
    /// Where the counts of `photos stats` are read.
    var statsStore: any StatsStore { db }

    /// Counts and sizes, read in one read transaction.
    /// - Throws: the store's error.
    public func stats() throws -> LibraryStats {
        var s = try statsStore.catalogStats()
        for suffix in ["", "-wal"] {
            if let size = (try? FileManager.default.attributesOfItem(atPath: databasePath + suffix))?[.size]
                as? NSNumber
            {
                s.databaseBytes += size.int64Value
            }
        }
        return s
    }
}
