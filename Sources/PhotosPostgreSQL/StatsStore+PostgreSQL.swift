import PhotosModel
import PhotosSQL

/// `PhotosSQL`'s `StatsStore where Self: LibraryStore & SQLConnection`.
extension PostgresDatabase: StatsStore {}
