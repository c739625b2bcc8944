import PhotosModel
import PhotosSQL

/// `PhotosSQL`'s `ImportStore where Self: SQLConnection`.
extension Database: ImportStore {}
