import Foundation
import PhotosModel

extension Library {
    /// Where the counts of `photos stats` are read.
    var statsStore: any StatsStore { store }

    /// Counts and sizes, read in one read transaction.
    /// - Throws: the store's error.
    public func stats() throws -> LibraryStats {
        var s = try statsStore.catalogStats()
        s.databaseBytes += store.storageBytes()
        return s
    }
}
