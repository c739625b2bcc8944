import PhotosModel
import PhotosSQL

/// `PhotosSQL`'s `CatalogStore where Self: SQLConnection`.
extension Database: CatalogStore {}
