import PhotosModel

/// What `photos describe` did to one photo (issue 26 item 6).
public struct DescribeChange: Sendable {
    public var uniqueName: String
    /// The title and description before and after (nil: none).
    public var titleBefore: String?
    public var title: String?
    public var descriptionBefore: String?
    public var description: String?

    /// True when either changed.
    public var changed: Bool { titleBefore != title || descriptionBefore != description }

    /// `{"photo","title","description","changed"}`, null for none.
    public var json: JSONValue {
        .object([
            ("photo", .string(uniqueName)), ("title", .optional(title)), ("description", .optional(description)),
            ("changed", .bool(changed))
        ])
    }
}

extension Library {
    /// `photos describe PHOTO… [--title T] [--description D]` (issue 26 item 6): sets the title
    /// and/or description of each photo (nil: left as it is; the empty string, or one blank once
    /// cleaned by `PhotoText`, clears it). One write transaction with one history transaction
    /// (context `describe`): a Photo update of `title`/`description` per photo changed, which
    /// sync carries with the conflict rule of every attribute. A photo in a share this library
    /// may not write is refused as every write is (`HistoryWriter.commit`, exit 77), nothing
    /// changed.
    /// - Parameters:
    ///   - photos: the photos, resolved.
    ///   - title: the new title (as typed; cleaned and bounded by `PhotoText.title`), or nil.
    ///   - description: the new description, or nil.
    /// - Returns: one change per photo, in the order given (duplicates once).
    /// - Throws: `LibraryError.notFound` for a photo deleted meanwhile, the history's
    ///   permission error, the store's error.
    public func describePhotos(
        _ photos: [PhotoRecord], title: String?, description: String?, author: HistoryAuthor
    ) throws -> [DescribeChange] {
        try write {
            let keys = try photoKeys(photos)
            if let gone = photos.first(where: { photo in !keys.contains { $0.rowID == photo.rowID } }) {
                throw LibraryError.notFound(.photo(gone.uniqueName))
            }
            var history = HistoryWriter(self, author: author, context: .describe)
            var changes: [DescribeChange] = []
            for key in keys {
                guard let row = try catalogStore.photo(uniqueName: key.uniqueName) else {
                    throw LibraryError.notFound(.photo(key.uniqueName))
                }
                var change = DescribeChange(
                    uniqueName: key.uniqueName, titleBefore: row.title, title: row.title,
                    descriptionBefore: row.description, description: row.description)
                if let title { change.title = PhotoText.title(title) }
                if let description { change.description = PhotoText.description(description) }
                if change.changed {
                    try metadataStore.setText(ofPhoto: key.rowID, title: change.title, description: change.description)
                    history.update(.photo(uniqueName: key.uniqueName), SyncEntity.textAttributes, zone: key.zone)
                }
                changes.append(change)
            }
            try history.commit()
            return changes
        }
    }
}
