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
    /// The history author who set it with `photos rate`; nil for an anonymous rating (from
    /// before schema 5, or read from an XMP sidecar on import).
    public var author: String?

    /// - Parameters:
    ///   - id: the rating's row id.
    ///   - value: 1…5.
    ///   - photo: the rated photo's uniqueName.
    ///   - author: who set it; nil for an anonymous rating.
    public init(id: Int64, value: Int, photo: String, author: String? = nil) {
        self.id = id
        self.value = value
        self.photo = photo
        self.author = author
    }

    /// `{"id":N,"value":N,"photo":"uniqueName","author":"name"}` (`"author":null` when anonymous).
    public var json: JSONValue {
        .object([
            ("id", .int(Int(id))), ("value", .int(value)), ("photo", .string(photo)),
            ("author", author.map(JSONValue.string) ?? .null)
        ])
    }
}

/// What `Library.setRating` did.
public enum RatingChange: Equatable, Sendable {
    /// The author had not rated the photo: a new rating row.
    case added
    /// The author's earlier rating, of this value, was replaced (the row keeps its id and uuid).
    case replaced(previous: Int)
    /// The author's rating already had this value: nothing was written, no history.
    case unchanged
}

extension Library {
    /// Sets `author`'s rating of a photo: one rating per author per photo (schema 5), replacing
    /// that author's earlier one; other authors' and anonymous ratings stay. The displayed
    /// rating is the mean of all of a photo's ratings, rounded half up (SPEC §3). History
    /// context `rate`: a Rating insert (or a Rating update of `value`) and a Photo update of
    /// `ratings`; nothing when the value is unchanged.
    /// - Parameters:
    ///   - value: 1…5.
    ///   - photo: the photo, resolved beforehand.
    ///   - author: the history author; `historyAuthorName(author, context: .rate, zone:)` in the
    ///     photo's zone is the rating's author.
    /// - Returns: the rating as it now is, and what changed.
    /// - Throws: `LibraryError.notFound(.photo)` when the photo was deleted meanwhile,
    ///   `LibraryError.busy`.
    @discardableResult
    public func setRating(_ value: RatingValue, of photo: PhotoRecord, author: HistoryAuthor) throws -> (
        rating: RatingInfo, change: RatingChange
    ) {
        guard let only = try setRatings(value, of: [photo], author: author).first else {
            throw LibraryError.notFound(.photo(photo.uniqueName))
        }
        return only
    }

    /// `setRating` for many photos in one transaction with one history transaction
    /// (`photos rate PHOTO… VALUE`, `rate - VALUE`; issue 32 item 3): each photo, once, in the
    /// order given.
    /// - Returns: each photo's rating as it now is, and what changed.
    /// - Throws: `LibraryError.notFound(.photo)` when a photo was deleted meanwhile (nothing
    ///   changes), `LibraryError.busy`.
    @discardableResult
    public func setRatings(_ value: RatingValue, of photos: [PhotoRecord], author: HistoryAuthor) throws -> [(
        rating: RatingInfo, change: RatingChange
    )] {
        try write {
            let keys = try photoKeys(photos)
            if let gone = photos.first(where: { photo in !keys.contains { $0.rowID == photo.rowID } }) {
                throw LibraryError.notFound(.photo(gone.uniqueName))
            }
            var history = HistoryWriter(self, author: author, context: .rate)
            var results: [(rating: RatingInfo, change: RatingChange)] = []
            var names: [String: String] = [:]
            for key in keys {
                let name = try names[key.zone] ?? historyAuthorName(author, context: .rate, zone: key.zone)
                names[key.zone] = name
                let change: RatingChange
                let id: Int64
                if let existing = try catalogStore.rating(ofPhoto: key.rowID, author: name) {
                    id = existing.id
                    if existing.value == value.rawValue {
                        results.append(
                            (RatingInfo(id: id, value: value.rawValue, photo: key.uniqueName, author: name), .unchanged)
                        )
                        continue
                    }
                    try catalogStore.setValue(ofRating: id, to: value)
                    history.update(.rating(uuid: existing.uuid), ["value"], zone: key.zone)
                    change = .replaced(previous: existing.value)
                } else {
                    let uuid = newObjectUUID()
                    id = try catalogStore.insertRating(uuid: uuid, photo: key.rowID, value: value, author: name)
                    history.insert(.rating(uuid: uuid), zone: key.zone)
                    change = .added
                }
                history.update(.photo(uniqueName: key.uniqueName), ["ratings"], zone: key.zone)
                results.append((RatingInfo(id: id, value: value.rawValue, photo: key.uniqueName, author: name), change))
            }
            try history.commit()
            return results
        }
    }

    /// Removes `author`'s rating of a photo (`photos rate PHOTO --clear`); other authors' and
    /// anonymous ratings stay. History context `rate`: a Rating delete with its tombstone and
    /// a Photo update of `ratings`.
    /// - Returns: the removed rating, or nil when `author` had not rated the photo (nothing
    ///   is written).
    /// - Throws: `LibraryError.notFound(.photo)` when the photo was deleted meanwhile,
    ///   `LibraryError.busy`.
    @discardableResult
    public func clearRating(of photo: PhotoRecord, author: HistoryAuthor) throws -> RatingInfo? {
        try write {
            guard let key = try photoKeys([photo]).first else {
                throw LibraryError.notFound(.photo(photo.uniqueName))
            }
            let name = try historyAuthorName(author, context: .rate, zone: key.zone)
            guard let existing = try catalogStore.rating(ofPhoto: key.rowID, author: name) else { return nil }
            var history = HistoryWriter(self, author: author, context: .rate)
            try history.delete(.rating, .rowID(existing.id))
            try catalogStore.deleteRating(id: existing.id)
            history.update(.photo(uniqueName: key.uniqueName), ["ratings"], zone: key.zone)
            try history.commit()
            return RatingInfo(id: existing.id, value: existing.value, photo: key.uniqueName, author: name)
        }
    }

    /// The ratings of one photo, oldest first.
    /// - Throws: the store's error.
    public func ratings(of photo: PhotoRecord) throws -> [RatingInfo] {
        try catalogStore.ratings(ofPhoto: photo.rowID).map {
            RatingInfo(id: $0.id, value: $0.value, photo: $0.photo, author: $0.author)
        }
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
            let info = RatingInfo(id: stored.id, value: stored.value, photo: stored.photo, author: stored.author)
            var history = HistoryWriter(self, author: author, context: .ratingDelete)
            try history.delete(.rating, .rowID(id))
            try catalogStore.deleteRating(id: id)
            history.update(.photo(uniqueName: info.photo), ["ratings"], zone: stored.zone)
            try history.commit()
            return info
        }
    }
}

extension Library {
    /// This library's participant email in `zone` when the zone is of scope `shared` and was
    /// accepted here (`sync_membership`, written by `acceptShare`), else nil: the person a
    /// change in that zone is authored by (issue #29 "Identity"; CloudKit's
    /// `CKShare.currentUserParticipant`).
    /// - Parameter zone: a zone id (`key.zone` of a photo).
    /// - Throws: the store's error.
    func participantEmail(inZone zone: String) throws -> String? {
        guard zone != ZoneID.default.rawValue,
            try catalogStore.share(id: zone)?.scope == ZoneScope.shared.rawValue,
            let m = try syncStore.membership(zone: zone), m.leftAt == nil
        else { return nil }
        return m.email
    }
}
