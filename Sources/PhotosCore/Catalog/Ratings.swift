import Foundation
import PhotosSQLite

/// One rating row as `photos rating list` presents it (SPEC §5a).
public struct RatingInfo: Equatable, Sendable {
    /// The rating's row id, the handle `photos rating delete` takes.
    public var id: Int64
    /// 1…5.
    public var value: Int
    /// The rated photo's uniqueName.
    public var photo: String

    /// `{"id":N,"value":N,"photo":"uniqueName"}`.
    public var json: JSONValue {
        .object([("id", .int(Int(id))), ("value", .int(value)), ("photo", .string(photo))])
    }
}

extension Library {
    /// Adds a rating to a photo (the seed keeps each rating as its own row; the displayed rating
    /// is their mean rounded half up, SPEC §3). History context `rate`: a Rating insert and a
    /// Photo update of `ratings`.
    /// - Parameters:
    ///   - value: 1…5.
    ///   - photo: the photo, resolved beforehand.
    ///   - author: the history author.
    /// - Returns: the new rating.
    /// - Throws: `PhotosError` 65 for a value outside 1…5, 66 when the photo was deleted
    ///   meanwhile, 75 when busy.
    @discardableResult
    public func addRating(_ value: RatingValue, to photo: PhotoRecord, author: HistoryAuthor) throws -> RatingInfo {
        try write {
            guard let key = try photoKeys([photo]).first else {
                throw PhotosError.noInput("no photo '\(photo.uniqueName)' in the library")
            }
            let row = RatingRow(photoRowID: key.rowID, value: value)
            let id = try row.insert(into: db)
            var history = HistoryWriter(self, author: author, context: .rate)
            history.insert(.rating(uuid: row.uuid), zone: key.zone)
            history.update(.photo(uniqueName: key.uniqueName), ["ratings"], zone: key.zone)
            try history.commit()
            return RatingInfo(id: id, value: value.rawValue, photo: key.uniqueName)
        }
    }

    /// The ratings of one photo, oldest first.
    /// - Throws: `SQLiteError`.
    public func ratings(of photo: PhotoRecord) throws -> [RatingInfo] {
        try db.statement("SELECT r.id, r.value, p.unique_name FROM rating r JOIN photo p ON p.id = r.photo_id WHERE r.photo_id = ? ORDER BY r.id")
            .map([photo.rowID]) { RatingInfo(id: $0.int64(0), value: $0.int(1), photo: $0.string(2)) }
    }

    /// Deletes one rating by its id. History context `rating delete`: a Rating delete with the
    /// Rating tombstone (`HistoryEntity.rating`), and a Photo update of `ratings`.
    /// - Returns: the deleted rating.
    /// - Throws: `PhotosError` 66 when there is no rating with that id, 75 when busy.
    @discardableResult
    public func deleteRating(id: Int64, author: HistoryAuthor) throws -> RatingInfo {
        try write {
            guard let (info, zone) = try db.statement("SELECT r.id, r.value, p.unique_name, p.zone_id FROM rating r JOIN photo p ON p.id = r.photo_id WHERE r.id = ?")
                .first([id], { (RatingInfo(id: $0.int64(0), value: $0.int(1), photo: $0.string(2)), $0.string(3)) }) else {
                throw PhotosError.noInput("no rating with id \(id) in the library")
            }
            var history = HistoryWriter(self, author: author, context: .ratingDelete)
            try history.delete(.rating, .rowID(id))
            try db.run("DELETE FROM rating WHERE id = ?", [id])
            history.update(.photo(uniqueName: info.photo), ["ratings"], zone: zone)
            try history.commit()
            return info
        }
    }
}
