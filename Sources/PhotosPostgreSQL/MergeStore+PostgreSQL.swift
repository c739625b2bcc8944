import PhotosModel
import PhotosSQL

/// Merge reads and writes the same SQL on both backends: `PhotosSQL`'s
/// `MergeSourceStore`/`MergeTargetStore where Self: SQLConnection`.
extension PostgresDatabase: MergeSourceStore {}

extension PostgresDatabase: MergeTargetStore {}
