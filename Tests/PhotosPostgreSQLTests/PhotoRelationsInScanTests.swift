import PhotosModel
import PhotosPostgreSQL
import XCTest

/// `forEachPhoto` on PostgreSQL reads each photo's tag names and rating values in the same row
/// (`StoredPhoto.tagNames`, `.ratingValues`), so that `list` and `export` of a big catalog make
/// one scan instead of two more queries per photo. They equal what `tagNames(ofPhoto:)` and
/// `ratingValues(ofPhoto:)` return (and the ratings' authors, issue #29, what `ratings(ofPhoto:)`
/// says), in the same order, for names and authors holding the encoding's own
/// characters (digits, colons), non-ASCII text and the empty set.
final class PhotoRelationsInScanTests: PostgresTestCase {
    func testTagNamesAndRatingsOfTheScanEqualThePerPhotoQueries() throws {
        let writer = PostgresPhotoWriter(db)
        let names = ["12:34", "a:b:", "3", "Été à Zürich", "😀 tag", ":", "z", "Z", "tag with , comma"]
        try db.transaction(.write) {
            var tags: [Int64] = []
            for (n, name) in names.enumerated() {
                tags.append(try db.insertTag(uuid: UUID().uuidString.lowercased(), name: name, zone: "default"))
                // A second tag of the same name (a duplicate, ordered by uuid).
                if n % 3 == 0 {
                    tags.append(try db.insertTag(uuid: UUID().uuidString.lowercased(), name: name, zone: "default"))
                }
            }
            for p in 0..<12 {
                let id = try writer.insert(
                    photo("P\(p)"), sha256: sha(p), byteSize: p, fileReference: "ref\(p)", thumbnail: nil)
                for (k, tag) in tags.enumerated() where (k + p) % 4 == 0 && p != 0 {
                    try writer.link(photo: id, tag: tag)
                }
                for k in 0..<(p % 4) {
                    // Authors holding the encoding's own characters, an anonymous one (nil).
                    let authors: [String?] = [nil, "-", "12:ab", "ann@example.org", "Zoë", "-3:"]
                    _ = try writer.insertRating(
                        uuid: UUID().uuidString.lowercased(), photo: id,
                        value: try XCTUnwrap(RatingValue(rawValue: 1 + (k * 3 + p) % 5)),
                        author: authors[(k + p) % authors.count])
                }
            }
        }
        var seen = 0
        var tagged = 0
        var rated = 0
        try db.forEachPhoto(matching: PhotoQuery()) { row in
            seen += 1
            XCTAssertEqual(row.tagNames, try db.tagNames(ofPhoto: row.rowID), row.uniqueName)
            XCTAssertEqual(row.ratingValues, try db.ratingValues(ofPhoto: row.rowID), row.uniqueName)
            XCTAssertEqual(row.ratingAuthors, try db.ratings(ofPhoto: row.rowID).map(\.author), row.uniqueName)
            if row.tagNames?.isEmpty == false { tagged += 1 }
            if row.ratingValues?.isEmpty == false { rated += 1 }
        }
        XCTAssertEqual(seen, 12)
        XCTAssertEqual(tagged, 11)
        XCTAssertEqual(rated, 9)
    }
}
