import PhotosModel
import PhotosSQL

/// Merge reads and writes the same SQL on both backends: `PhotosSQL`'s
/// `MergeSourceStore`/`MergeTargetStore where Self: SQLConnection`.
extension Database: MergeSourceStore {}

extension Database: MergeTargetStore {}
