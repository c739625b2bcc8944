import PhotosModel
import PhotosSQL

/// `PhotosSQL`'s `ExportStore where Self: SQLConnection`.
extension Database: ExportStore {}
