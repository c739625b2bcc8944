import Foundation
import PhotosModel

/// Verify's catalog-rows step, the second part of the catalog's checks: displayNames no file
/// can have, photos sharing an original, uniqueNames differing in case, one author's two
/// ratings of a photo, then tag names and uuids (SPEC §2, §3, §5).
struct VerifyCatalogRowsCheck {
    /// The problems, in that order.
    /// - Throws: the store's error.
    func run(on store: any VerifyStore) throws -> [VerifyProblem] {
        try displayNames(store) + sharedOriginals(store) + uniqueNameCases(store) + duplicateAuthorRatings(store)
            + tags(store)
    }

    /// Photos whose displayName no file can have.
    /// - Throws: the store's error.
    func displayNames(_ store: any VerifyStore) throws -> [VerifyProblem] {
        var problems: [VerifyProblem] = []
        for (name, bytes) in try store.photosWithImpossibleDisplayName() {
            let shown = JSONValue.string(String(decoding: bytes, as: UTF8.self)).serialized()
            problems.append(
                VerifyProblem(
                    kind: .badDisplayName, subject: .photoNamed(name),
                    detail: "photo \(name) has the file name \(shown), which no file can have"))
        }
        return problems
    }

    /// Groups of photos with one original's SHA-256.
    /// - Throws: the store's error.
    func sharedOriginals(_ store: any VerifyStore) throws -> [VerifyProblem] {
        var problems: [VerifyProblem] = []
        for (sha, photos) in try store.photosSharingOriginals() {
            let shown = JSONValue.string(photos.map { "\($0.uniqueName) (\($0.displayName))" }.joined(separator: ", "))
                .serialized()
            problems.append(
                VerifyProblem(
                    kind: .duplicatePhoto, subject: .photos(sha256: sha, photos),
                    detail:
                        "photos \(shown) have the same SHA-256 \(sha); delete the one not wanted with 'photos delete'"))
        }
        return problems
    }

    /// Groups of photos whose uniqueNames differ only in case.
    /// - Throws: the store's error.
    func uniqueNameCases(_ store: any VerifyStore) throws -> [VerifyProblem] {
        var problems: [VerifyProblem] = []
        for group in try store.photosWithUniqueNamesDifferingInCase() {
            let shown = JSONValue.string(group.map { "\($0.uniqueName) (\($0.displayName))" }.joined(separator: ", "))
                .serialized()
            problems.append(
                VerifyProblem(
                    kind: .uniqueNameCase, subject: .photoNamed(group[0].uniqueName),
                    detail:
                        "photos \(shown) have uniqueNames that differ only in case, one identity; delete the one not wanted with 'photos delete'"
                ))
        }
        return problems
    }

    /// One author's two or more ratings of one photo (authors compared trimmed and NFC).
    /// - Throws: the store's error.
    func duplicateAuthorRatings(_ store: any VerifyStore) throws -> [VerifyProblem] {
        var problems: [VerifyProblem] = []
        let ratings = try store.authoredRatingsOfPhotosRatedTwice()
        var start = 0
        while start < ratings.count {
            var end = start
            while end < ratings.count, ratings[end].photo.uniqueName == ratings[start].photo.uniqueName { end += 1 }
            // Grouped by the author as `--author` normalizes it, in first-rating order.
            var byAuthor: [String: [AuthoredRating]] = [:]
            var order: [String] = []
            for rating in ratings[start..<end] {
                let author = rating.author.trimmingCharacters(in: .whitespacesAndNewlines)
                    .precomposedStringWithCanonicalMapping
                if byAuthor[author] == nil { order.append(author) }
                byAuthor[author, default: []].append(rating)
            }
            for author in order {
                guard let same = byAuthor[author], same.count > 1 else { continue }
                let photo = same[0].photo
                let values = same.map { "\($0.value) (rating row \($0.rowID))" }.joined(separator: ", ")
                problems.append(
                    VerifyProblem(
                        kind: .duplicateAuthorRating, subject: .photo(photo),
                        detail:
                            "\(Library.describePhoto(photo.uniqueName, photo.displayName)) has \(same.count) ratings by author \(JSONValue.string(author).serialized()): \(values); one author keeps one rating"
                    ))
            }
            start = end
        }
        return problems
    }

    /// Tags whose name is not normalized or whose uuid is not a lowercase canonical UUID.
    /// - Throws: the store's error.
    func tags(_ store: any VerifyStore) throws -> [VerifyProblem] {
        var problems: [VerifyProblem] = []
        for (uuid, name, zone) in try store.allTags().map({ ($0.uuid, $0.name, $0.zone) }) {
            let shown = JSONValue.string(name).serialized()
            // Compared by scalars: Swift's String equality is canonical equivalence, under
            // which a decomposed name equals its NFC form.
            if (try? TagName.normalize(name)).map({ Array($0.unicodeScalars) }) != Array(name.unicodeScalars) {
                // A name that normalizes (a decomposed or untrimmed one) is renamed and merged;
                // one that is empty or holds control characters has no name to take (#31 A9).
                let normalized = try? TagName.normalize(name)
                problems.append(
                    VerifyProblem(
                        kind: .badTagName, subject: .tag(uuid: uuid, name: name, zone: zone),
                        detail:
                            "tag \(shown) (\(uuid)) in zone \(zone) is not a trimmed, NFC-normalized name without control characters",
                        repair: normalized.map {
                            .normalizeTagName(uuid: uuid, name: name, normalized: $0, zone: zone)
                        }))
            }
            if UUID(uuidString: uuid)?.uuidString.lowercased() != uuid {
                problems.append(
                    VerifyProblem(
                        kind: .badTagUUID, subject: .tag(uuid: uuid, name: name, zone: zone),
                        detail: "tag \(shown) in zone \(zone) has uuid '\(uuid)', not a lowercase canonical UUID"))
            }
        }
        return problems
    }
}

extension Library {
    /// `VerifyCatalogRowsCheck` on `store`.
    /// - Throws: the store's error.
    static func checkCatalogRows(_ store: any VerifyStore) throws -> [VerifyProblem] {
        try VerifyCatalogRowsCheck().run(on: store)
    }
}
