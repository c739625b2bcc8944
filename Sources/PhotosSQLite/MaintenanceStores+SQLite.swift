import PhotosModel
import PhotosSQL

/// `purge-zone` and `dedupe-tags` read and write the same SQL on both backends: `PhotosSQL`'s
/// `ZonePurgeStore`/`TagDedupeStore where Self: SQLConnection` (MaintenanceStores+SQL.swift,
/// TagMerge+SQL.swift).
extension Database: ZonePurgeStore {}

extension Database: TagDedupeStore {}
