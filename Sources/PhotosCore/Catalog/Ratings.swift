import Foundation
import PhotosModel

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
    /// - Throws: `LibraryError.notFound(.photo)` when the photo was deleted meanwhile,
    ///   `LibraryError.busy`.
    @discardableResult
    public func addRating(_ value: RatingValue, to photo: PhotoRecord, author: HistoryAuthor) throws -> RatingInfo {
        try write {
            guard let key = try photoKeys([photo]).first else {
                throw LibraryError.notFound(.photo(photo.uniqueName))
            }
            let uuid = newObjectUUID()
            let id = try catalogStore.insertRating(uuid: uuid, photo: key.rowID, value: value)
            var history = HistoryWriter(self, author: author, context: .rate)
            history.insert(.rating(uuid: uuid), zone: key.zone)
            history.update(.photo(uniqueName: key.uniqueName), ["ratings"], zone: key.zone)
            try history.commit()
            return RatingInfo(id: id, value: value.rawValue, photo: key.uniqueName)
        }
    }

    /// The ratings of one photo, oldest first.
    /// - Throws: the store's error.
    public func ratings(of photo: PhotoRecord) throws -> [RatingInfo] {
        try catalogStore.ratings(ofPhoto: photo.rowID).map { RatingInfo(id: $0.id, value: $0.value, photo: $0.photo) }
    }

    /// Deletes one rating by its id. History context `rating delete`: a Rating delete with the
    /// Rating tombstone (`HistoryEntity.rating`), and a Photo update of `ratings`.
    /// - Returns: the deleted rating.
    /// - Throws: `LibraryError.notFound(.rating)` when there is no rating with that id,
    ///   `LibraryError.busy`.
    @discardableResult
    public func deleteRating(id: Int64, author: HistoryAuthor) throws -> RatingInfo {
        try write {
            guard let stored = try catalogStore.rating(id: id) else {
                throw LibraryError.notFound(.rating(id))
            }
            let info = RatingInfo(id: stored.id, value: stored.value, photo: stored.photo)
            var history = HistoryWriter(self, author: author, context: .ratingDelete)
            try history.delete(.rating, .rowID(id))
            try catalogStore.deleteRating(id: id)
            history.update(.photo(uniqueName: info.photo), ["ratings"], zone: stored.zone)
            try history.commit()
            return info
        }
    }
}
