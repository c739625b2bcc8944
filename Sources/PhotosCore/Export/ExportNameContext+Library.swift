import Foundation
import PhotosModel

extension Library {
    /// The title of every share by its zone id (a share's id is its zone's id, SPEC §3), for
    /// `{share}`: one query (`CatalogStore.shares`), whatever the number of photos.
    /// - Throws: the store's error.
    public func shareTitlesByZone() throws -> [String: String] {
        var titles: [String: String] = [:]
        for share in try catalogStore.shares() { titles[share.id] = share.title }
        return titles
    }

    /// The transaction author of each photo's insert in persistent history, by uniqueName, for
    /// `{author}`; a photo whose insert is no longer in the history (compacted) is left out.
    /// One query per 1,000 names (`HistoryFeedStore.photoInsertAuthors`), never one a photo.
    /// - Throws: the store's error.
    public func insertAuthors(ofPhotos uniqueNames: [String]) throws -> [String: String] {
        var authors: [String: String] = [:]
        for first in stride(from: 0, to: uniqueNames.count, by: Library.authorLookupChunk) {
            let chunk = Array(uniqueNames[first..<min(first + Library.authorLookupChunk, uniqueNames.count)])
            authors.merge(try historyFeed.photoInsertAuthors(uniqueNames: chunk)) { a, _ in a }
        }
        return authors
    }

    /// Names per `photoInsertAuthors` query (bound parameters; SQLite allows 32,766).
    static let authorLookupChunk = 1_000

    /// What `template` needs to render `photos` (issue 32 item 6): `shareTitles` (read once by
    /// the caller with `shareTitlesByZone`, when the template has `{share}`) and, when it has
    /// `{author}`, the insert authors of `photos` (one query per 1,000 photos).
    /// - Throws: the store's error.
    public func nameContext(
        for photos: [PhotoRecord], template: ExportNameTemplate, shareTitles: [String: String]
    ) throws -> ExportNameContext {
        ExportNameContext(
            shareTitles: shareTitles,
            authors: template.usesAuthor ? try insertAuthors(ofPhotos: photos.map(\.uniqueName)) : [:])
    }
}
