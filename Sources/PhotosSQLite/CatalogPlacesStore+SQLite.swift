import PhotosModel
import PhotosSQL

/// `PhotosSQL`'s `CatalogPlacesStore where Self: SQLConnection`.
extension Database: CatalogPlacesStore {}

extension Database: GazetteerStore {}
