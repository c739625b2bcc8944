import PhotosModel
import PhotosSQL

/// `PhotosSQL`'s `MetadataStore where Self: SQLConnection`.
extension Database: MetadataStore {}
