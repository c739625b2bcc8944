import Foundation
import XCTest
import PhotosTestSupport
@testable import PhotosCore
import PhotosSQLite

/// A small deterministic PRNG (SplitMix64, Steele, Lea & Flood 2014) for the property test.
struct SplitMix64 {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func int(_ n: Int) -> Int { Int(next() % UInt64(n)) }
    mutating func pick<T>(_ items: [T]) -> T? { items.isEmpty ? nil : items[int(items.count)] }
    mutating func bool() -> Bool { next() & 1 == 1 }
}

final class CatalogTests: XCTestCase {
    var tmp: TempDir!
    override func setUpWithError() throws { tmp = try TempDir() }
    override func tearDown() { tmp.cleanup() }

    /// A library with the six sample photos imported, and the photos by display name.
    func makeLibrary() throws -> (Library, [String: PhotoRecord]) {
        let library = try Library(root: tmp.file("lib"), create: true)
        var options = ImportOptions(paths: [samplesDir])
        options.jobs = 2
        let summary = try Importer(library: library, libraryRoot: tmp.file("lib"), options: options).run()
        XCTAssertEqual(summary.imported, 6)
        return (library, try photosByName(library))
    }

    func photosByName(_ library: Library) throws -> [String: PhotoRecord] {
        var photos: [String: PhotoRecord] = [:]
        try library.forEachPhoto(matching: PhotoFilter()) { photos[$0.displayName] = $0 }
        return photos
    }

    func historyCount(_ library: Library) throws -> Int {
        try library.catalog.scalarInt("SELECT count(*) FROM history_transaction") ?? 0
    }

    func lastTransaction(_ library: Library) throws -> (author: String, context: String, changes: [[String]]) {
        let token = try XCTUnwrap(library.catalog.scalarInt("SELECT max(token) FROM history_transaction"))
        let head = try XCTUnwrap(
            library.catalog.statement("SELECT author, context FROM history_transaction WHERE token = ?").first([token])
            {
                ($0.string(0), $0.string(1))
            })
        let changes = try library.catalog.statement(
            "SELECT entity, object_id, type, coalesce(updated, ''), coalesce(tombstone, ''), coalesce(zone_id, '') FROM history_change WHERE token = ? ORDER BY id"
        )
        .map([token]) { row in (0..<6).map { row.string($0) } }
        return (head.0, head.1, changes)
    }

    /// The SPEC §2 invariants this issue must keep: no tag link crosses zones, no dangling
    /// foreign key, and `verify` is clean.
    func assertInvariants(
        _ library: Library, full: Bool = true, _ message: String = "", file: StaticString = #filePath,
        line: UInt = #line
    ) throws {
        let crossing = try library.catalog.scalarInt(
            "SELECT count(*) FROM photo_tag pt JOIN photo p ON p.id = pt.photo_id JOIN tag t ON t.id = pt.tag_id WHERE p.zone_id <> t.zone_id"
        )
        XCTAssertEqual(crossing, 0, "tag links crossing zones \(message)", file: file, line: line)
        if library.testBackend == .sqlite {
            // PostgreSQL enforces every foreign key at each statement; SQLite checks them here.
            let fk = try library.sqlite.statement("PRAGMA foreign_key_check").map { $0.string(0) }
            XCTAssertEqual(fk, [], "foreign_key_check \(message)", file: file, line: line)
        }
        let orphanShares = try library.catalog.scalarInt(
            "SELECT count(*) FROM zone z WHERE z.id <> 'default' AND NOT EXISTS (SELECT 1 FROM share s WHERE s.id = z.id)"
        )
        XCTAssertEqual(orphanShares, 0, "every non-default zone has its share \(message)", file: file, line: line)
        if full {
            let report = try library.verify(quick: true)
            XCTAssertTrue(report.isClean, "verify: \(report.problems) \(message)", file: file, line: line)
        }
    }

    func tagRows(_ library: Library, zone: String) throws -> [TagInfo] {
        try library.tags(zone: ZoneID(rawValue: zone))
    }

    // MARK: - Tags

    func testTagAddFindsOrCreatesPerZoneAndRecordsNothingWhenUnchanged() throws {
        let (library, photos) = try makeLibrary()
        let storm = try XCTUnwrap(photos["storm.jpg"]), path = try XCTUnwrap(photos["path.jpg"])
        let before = try historyCount(library)
        XCTAssertEqual(try library.addTag("  Beach ", to: [storm, path, storm], author: "alice"), 2)
        let tx = try lastTransaction(library)
        XCTAssertEqual(tx.author, "alice")
        XCTAssertEqual(tx.context, "tag add")
        let beach = try XCTUnwrap(library.findTag(named: "Beach", zone: "default"))
        XCTAssertEqual(
            tx.changes.map { Array($0.prefix(4)) },
            [
                ["Tag", beach.uuid, "insert", ""],
                ["Photo", storm.uniqueName, "update", #"["tags"]"#],
                ["Photo", path.uniqueName, "update", #"["tags"]"#]
            ])
        XCTAssertNotNil(UUID(uuidString: beach.uuid))
        XCTAssertEqual(beach.uuid, beach.uuid.lowercased())
        XCTAssertEqual(try historyCount(library), before + 1)

        // Adding it again changes nothing and records nothing.
        XCTAssertEqual(try library.addTag("Beach", to: [storm, path], author: "alice"), 0)
        XCTAssertEqual(try historyCount(library), before + 1)
        // Close-up and Colors: colorful-cups-progressive.jpg carries digiKam's embedded XMP: keywords Close-up, Colors; rating 5.
        XCTAssertEqual(
            try library.tags(zone: "default").map(\.name), ["Beach", "Close-up", "Colors", "Insect", "Nature"])
        XCTAssertEqual(try library.tags().first { $0.name == "Beach" }?.photoCount, 2)

        XCTAssertThrowsError(try library.addTag(TagName(parsing: " \t "), to: [storm], author: "a")) {
            XCTAssertEqual($0 as? ValueError, .tagNameEmpty)
        }
        XCTAssertThrowsError(try library.addTag(TagName(parsing: "a\u{0}b"), to: [storm], author: "a")) {
            XCTAssertEqual($0 as? ValueError, .tagNameControlCharacters(shown: #""a\u0000b""#))
        }
        XCTAssertEqual(try historyCount(library), before + 1)
        try assertInvariants(library)
    }

    func testComposedAndDecomposedCafeAreOneTagAndMatchIgnoresCaseAndDiacritics() throws {
        let (library, photos) = try makeLibrary()
        let storm = try XCTUnwrap(photos["storm.jpg"]), kite = try XCTUnwrap(photos["kite.png"])
        try library.addTag("Caf\u{E9}", to: [storm], author: "a")
        try library.addTag("Cafe\u{301}", to: [kite], author: "a")
        try library.addTag("Cafe\u{301}", to: [storm], author: "a") // already has it, typed the other way
        let cafe = try library.tags().filter { $0.name.hasPrefix("Caf") }
        XCTAssertEqual(cafe.count, 1)
        XCTAssertEqual(cafe.first?.photoCount, 2)
        XCTAssertEqual(cafe.first?.name.unicodeScalars.map(\.value), [0x43, 0x61, 0x66, 0xE9], "stored NFC")
        XCTAssertEqual(try library.catalog.scalarInt("SELECT count(*) FROM tag WHERE name = ?", ["Cafe\u{301}"]), 0)

        XCTAssertEqual(try library.tags(matching: "cafe").map(\.name), ["Caf\u{E9}"])
        XCTAssertEqual(try library.tags(matching: "CAFE\u{301}").map(\.name), ["Caf\u{E9}"])
        XCTAssertEqual(try library.tags(matching: "AF\u{C9}").map(\.name), ["Caf\u{E9}"])
        XCTAssertEqual(try library.tags(matching: "caff").map(\.name), [])
        XCTAssertEqual(try library.tags(matching: "SECT").map(\.name), ["Insect"])
        XCTAssertTrue(TagName.matches("Ærøskøbing Straße", "straße"))
        XCTAssertFalse(TagName.matches("Nature", "natures"))

        // Removing by the decomposed spelling removes the composed tag.
        XCTAssertEqual(try library.removeTag(TagName(parsing: "cafe\u{301}".capitalized), from: [kite], author: "a"), 1)
        XCTAssertEqual(try library.resolvePhoto(kite.uniqueName).tags, [])
        try assertInvariants(library)
    }

    func testTagRemoveDeleteAndRenameKeepPhotosAndRecordTombstones() throws {
        let (library, photos) = try makeLibrary()
        let storm = try XCTUnwrap(photos["storm.jpg"]), path = try XCTUnwrap(photos["path.jpg"]),
            kite = try XCTUnwrap(photos["kite.png"])
        try library.addTag("Sky", to: [storm, path, kite], author: "a")
        let before = try historyCount(library)
        XCTAssertEqual(try library.removeTag("Sky", from: [kite, kite], author: "a"), 1)
        XCTAssertEqual(
            try lastTransaction(library).changes.map { Array($0.prefix(4)) },
            [["Photo", kite.uniqueName, "update", #"["tags"]"#]])
        XCTAssertEqual(try library.removeTag("Sky", from: [kite], author: "a"), 0, "nothing to remove")
        XCTAssertEqual(try historyCount(library), before + 1)
        XCTAssertThrowsError(try library.removeTag("Nope", from: [kite], author: "a")) {
            XCTAssertEqual($0 as? LibraryError, .notFound(.tagInPhotoZones("Nope", zoneCount: 1)))
        }

        // Rename onto a new name is an update of `name`; onto an existing name it merges.
        let sky = try XCTUnwrap(library.findTag(named: "Sky", zone: "default"))
        XCTAssertEqual(try library.renameTag("Sky", to: "Clouds", author: "a"), 1)
        XCTAssertEqual(
            try lastTransaction(library).changes.map { Array($0.prefix(4)) },
            [["Tag", sky.uuid, "update", #"["name"]"#]])
        try library.addTag("Weather", to: [storm, kite], author: "a")
        let weather = try XCTUnwrap(library.findTag(named: "Weather", zone: "default"))
        XCTAssertEqual(try library.renameTag("Clouds", to: "Weather", author: "a"), 1)
        let merge = try lastTransaction(library)
        XCTAssertEqual(merge.context, "tag rename")
        XCTAssertTrue(
            merge.changes.contains([
                "Tag", sky.uuid, "delete", "", #"{"name":"Clouds","uuid":"\#(sky.uuid)"}"#, "default"
            ]), "\(merge.changes)")
        let weatherNow = try XCTUnwrap(library.tags(zone: "default").first { $0.name == "Weather" })
        XCTAssertEqual(weatherNow.uuid, weather.uuid)
        XCTAssertEqual(weatherNow.photoCount, 3, "storm (had both), path and kite; no duplicate link")
        XCTAssertEqual(try library.renameTag("Weather", to: "Weather", author: "a"), 0)
        XCTAssertThrowsError(try library.renameTag("Clouds", to: "X", author: "a")) {
            XCTAssertEqual($0 as? LibraryError, .notFound(.tag("Clouds", zone: nil)))
        }

        // Delete nullifies the links and keeps the photos.
        let photoCount = try library.catalog.scalarInt("SELECT count(*) FROM photo")
        let deleted = try library.deleteTag("Weather", author: "bob")
        XCTAssertEqual(deleted.map(\.uuid), [weather.uuid])
        let tx = try lastTransaction(library)
        XCTAssertEqual(tx.author, "bob")
        XCTAssertEqual(tx.context, "tag delete")
        XCTAssertEqual(tx.changes.filter { $0[0] == "Photo" }.count, 3)
        XCTAssertTrue(
            tx.changes.contains([
                "Tag", weather.uuid, "delete", "", #"{"name":"Weather","uuid":"\#(weather.uuid)"}"#, "default"
            ]))
        XCTAssertEqual(try library.catalog.scalarInt("SELECT count(*) FROM photo"), photoCount)
        XCTAssertEqual(try library.resolvePhoto(storm.uniqueName).tags, [])
        XCTAssertThrowsError(try library.deleteTag("Weather", author: "a")) {
            XCTAssertEqual($0 as? LibraryError, .notFound(.tag("Weather", zone: nil)))
        }
        XCTAssertThrowsError(try library.deleteTag("Insect", zone: "nowhere", author: "a")) {
            XCTAssertEqual($0 as? LibraryError, .notFound(.zone("nowhere")))
        }
        try assertInvariants(library)
    }

    // MARK: - Ratings

    func testRatingsMeanRoundsHalfUpAndMinRatingFilters() throws {
        let (library, photos) = try makeLibrary()
        let storm = try XCTUnwrap(photos["storm.jpg"]), path = try XCTUnwrap(photos["path.jpg"])
        let r1 = try library.setRating(2, of: storm, author: "a").rating
        let r2 = try library.setRating(3, of: storm, author: "b").rating
        XCTAssertEqual(
            try lastTransaction(library).changes.map { Array($0.prefix(4)) },
            [
                ["Rating", try ratingUUID(library, r2.id), "insert", ""],
                ["Photo", storm.uniqueName, "update", #"["ratings"]"#]
            ])
        try library.setRating(2, of: path, author: "a")
        XCTAssertEqual(try library.resolvePhoto(storm.uniqueName).rating, 3, "2.5 rounds half up to 3")
        XCTAssertEqual(try library.ratings(of: storm).map(\.value), [2, 3])
        XCTAssertEqual(
            r1.json.serialized(), #"{"id":\#(r1.id),"value":2,"photo":"\#(storm.uniqueName)","author":"a"}"#)

        func names(_ min: Int) throws -> [String] {
            var filter = PhotoFilter()
            filter.minRating = min
            var out: [String] = []
            try library.forEachPhoto(matching: filter) { out.append($0.displayName) }
            return out.sorted()
        }
        // colorful-cups-progressive.jpg carries digiKam's embedded XMP: keywords Close-up, Colors; rating 5.
        XCTAssertEqual(
            try names(1), ["colorful-cups-progressive.jpg", "ladybird.jpg", "path.jpg", "storm.jpg"],
            "unrated photos are left out")
        XCTAssertEqual(try names(3), ["colorful-cups-progressive.jpg", "ladybird.jpg", "storm.jpg"])
        XCTAssertEqual(try names(4), ["colorful-cups-progressive.jpg", "ladybird.jpg"])
        XCTAssertEqual(try names(5), ["colorful-cups-progressive.jpg"])

        XCTAssertNil(RatingValue(rawValue: 6), "a rating of 6 cannot even be made")
        XCTAssertThrowsError(try RatingValue(parsing: "6")) {
            XCTAssertEqual($0 as? ValueError, .ratingOutOfRange("6"))
        }
        XCTAssertThrowsError(try RatingValue(parsing: "4.5")) { XCTAssertEqual(($0 as? ValueError)?.isMalformed, true) }
        XCTAssertThrowsError(try RatingValue(parsing: "0")) { XCTAssertEqual(($0 as? ValueError)?.isMalformed, false) }
        XCTAssertThrowsError(try RatingValue(parsing: "99999999999999999999")) {
            XCTAssertEqual(
                ($0 as? ValueError)?.isMalformed, false,
                "a whole number too large for Int is out of range, not malformed")
        }
        XCTAssertEqual(try RatingValue(parsing: " 5").rawValue, 5)

        let r2UUID = try ratingUUID(library, r2.id)
        let deleted = try library.deleteRating(id: r2.id, author: "a")
        XCTAssertEqual(deleted.value, 3)
        XCTAssertEqual(
            try lastTransaction(library).changes.first,
            ["Rating", r2UUID, "delete", "", #"{"photo":"\#(storm.uniqueName)","value":"3"}"#, "default"])
        XCTAssertEqual(try library.resolvePhoto(storm.uniqueName).rating, 2)
        XCTAssertThrowsError(try library.deleteRating(id: r2.id, author: "a")) {
            XCTAssertEqual($0 as? LibraryError, .notFound(.rating(r2.id)))
        }
        try assertInvariants(library)
    }

    // MARK: - Shares

    func testMovingTaggedPhotosIntoAShareSplitsTheTagByZone() throws {
        let (library, photos) = try makeLibrary()
        let storm = try XCTUnwrap(photos["storm.jpg"]), path = try XCTUnwrap(photos["path.jpg"]),
            kite = try XCTUnwrap(photos["kite.png"])
        try library.addTag("Beach", to: [storm, path, kite], author: "a")
        let oldBeach = try XCTUnwrap(library.findTag(named: "Beach", zone: "default"))
        let rStorm = try library.setRating(5, of: storm, author: "a").rating
        let rPath = try library.setRating(3, of: path, author: "a").rating
        let created = Date(timeIntervalSince1970: 1_795_960_992) // 2026-11-29 14:03:12 UTC

        let share = try library.createShare(photos: [storm, path], author: "carol", now: created)
        XCTAssertEqual(share.title, "Share-2026-11-29 14:03:12")
        XCTAssertEqual(share.created, "2026-11-29T14:03:12Z")
        XCTAssertEqual(share.scope, .private)
        XCTAssertEqual(share.publicPermission, "none")
        XCTAssertEqual(share.photoCount, 2)
        XCTAssertEqual(share.participants, [])
        XCTAssertNotNil(UUID(uuidString: share.id))

        let inShare = try tagRows(library, zone: share.id)
        XCTAssertEqual(inShare.map(\.name), ["Beach"])
        XCTAssertEqual(inShare.first?.photoCount, 2)
        XCTAssertNotEqual(inShare.first?.uuid, oldBeach.uuid)
        let inDefault = try tagRows(library, zone: "default").filter { $0.name == "Beach" }
        XCTAssertEqual(inDefault.map(\.uuid), [oldBeach.uuid], "the old tag stays with the photo that remains")
        XCTAssertEqual(inDefault.first?.photoCount, 1)
        XCTAssertEqual(try library.resolvePhoto(kite.uniqueName).tags, ["Beach"])

        let movedStorm = try library.resolvePhoto(storm.uniqueName)
        XCTAssertEqual(movedStorm.zone, share.id)
        XCTAssertEqual(movedStorm.tags, ["Beach"])
        XCTAssertEqual(movedStorm.ratings, [5], "ratings move with the photo")
        XCTAssertEqual(try library.resolvePhoto(path.uniqueName).ratings, [3])

        let tx = try lastTransaction(library)
        XCTAssertEqual(tx.author, "carol")
        XCTAssertEqual(tx.context, "share create")
        let newBeach = try XCTUnwrap(inShare.first?.uuid)
        // PhotoData and Thumbnail are named by their photo's uniqueName, ratings by uuid.
        for expected in [
            ["Share", share.id, "insert", "", "", share.id],
            ["Photo", storm.uniqueName, "update", #"["zone","tags"]"#, "", share.id],
            ["PhotoData", storm.uniqueName, "update", #"["zone"]"#, "", share.id],
            ["Thumbnail", storm.uniqueName, "update", #"["zone"]"#, "", share.id],
            ["Rating", try ratingUUID(library, rStorm.id), "update", #"["zone"]"#, "", share.id],
            ["Rating", try ratingUUID(library, rPath.id), "update", #"["zone"]"#, "", share.id],
            ["Tag", newBeach, "insert", "", "", share.id],
            ["Photo", path.uniqueName, "update", #"["zone","tags"]"#, "", share.id]
        ] {
            XCTAssertTrue(tx.changes.contains(expected), "missing \(expected) in \(tx.changes)")
        }
        XCTAssertEqual(tx.changes.filter { $0[0] == "Tag" }.count, 1, "one Beach created for both photos")

        // Filters by share.
        var filter = PhotoFilter()
        filter.share = String(share.id.prefix(6)).uppercased()
        var names: [String] = []
        try library.forEachPhoto(matching: filter) { names.append($0.displayName) }
        XCTAssertEqual(names.sorted(), ["path.jpg", "storm.jpg"])
        try assertInvariants(library)
    }

    func testShareAddMovesRefusesOtherSharesAndMergesDuplicateTagsSmallestUUIDWins() throws {
        let (library, photos) = try makeLibrary()
        let storm = try XCTUnwrap(photos["storm.jpg"]), path = try XCTUnwrap(photos["path.jpg"])
        let kite = try XCTUnwrap(photos["kite.png"]), cups = try XCTUnwrap(photos["colorful-cups-progressive.jpg"])
        try library.addTag("Beach", to: [storm, path], author: "a")
        let share = try library.createShare(photos: [storm], title: "  Holiday ", owner: "Me@Example.ORG", author: "a")
        XCTAssertEqual(share.title, "Holiday")
        XCTAssertEqual(
            share.participants,
            [ParticipantInfo(email: "me@example.org", role: "owner", permission: "read-write", acceptance: "accepted")])
        let created = try XCTUnwrap(library.findTag(named: "Beach", zone: share.id))
        // Duplicates, as a merge from another peer brings them: one larger and one smaller uuid.
        let big = "ffffffff-ffff-4fff-bfff-ffffffffffff", small = "00000000-0000-4000-8000-000000000001"
        try library.catalog.run("INSERT INTO tag (uuid, name, zone_id) VALUES (?, 'Beach', ?)", [big, share.id])
        try library.catalog.run(
            "INSERT INTO photo_tag (photo_id, tag_id) VALUES (?, ?)", [storm.rowID, library.catalog.lastInsertRowID])
        try library.catalog.run("INSERT INTO tag (uuid, name, zone_id) VALUES (?, 'Beach', ?)", [small, share.id])

        let result = try library.addToShare(share, photos: [path, storm], author: "a")
        XCTAssertEqual(result, ShareAddResult(moved: 1, mergedTags: 2))
        let beach = try tagRows(library, zone: share.id).filter { $0.name == "Beach" }
        XCTAssertEqual(beach.map(\.uuid), [small])
        XCTAssertEqual(beach.first?.photoCount, 2)
        XCTAssertEqual(try library.resolvePhoto(storm.uniqueName).tags, ["Beach"], "one link, not two")
        let tx = try lastTransaction(library)
        XCTAssertEqual(tx.context, "share add")
        XCTAssertTrue(tx.changes.contains(["Tag", big, "delete", "", #"{"name":"Beach","uuid":"\#(big)"}"#, share.id]))
        XCTAssertTrue(
            tx.changes.contains([
                "Tag", created.uuid, "delete", "", #"{"name":"Beach","uuid":"\#(created.uuid)"}"#, share.id
            ]))
        XCTAssertEqual(
            tx.changes.filter { $0[0] == "Photo" && $0[1] == storm.uniqueName }.count, 1, "one change per object")

        // Adding a photo that is already there changes nothing and records nothing.
        let count = try historyCount(library)
        XCTAssertEqual(
            try library.addToShare(share, photos: [storm], author: "a"), ShareAddResult(moved: 0, mergedTags: 0))
        XCTAssertEqual(try historyCount(library), count)

        // A photo in another share is refused unless moving is allowed.
        let other = try library.createShare(photos: [kite], title: "Other", author: "a")
        XCTAssertThrowsError(try library.addToShare(share, photos: [cups, kite], author: "a")) {
            XCTAssertEqual($0 as? ShareError, .photoInAnotherShare(photo: kite.uniqueName, share: other.id))
        }
        XCTAssertEqual(try library.resolvePhoto(cups.uniqueName).zone, "default", "nothing moved")
        XCTAssertThrowsError(try library.createShare(photos: [kite], author: "a")) {
            XCTAssertEqual($0 as? ShareError, .photoInAnotherShare(photo: kite.uniqueName, share: other.id))
        }
        XCTAssertEqual(try library.shares().count, 2, "the refused create left no share behind")
        XCTAssertEqual(try library.addToShare(share, photos: [kite], allowMove: true, author: "a").moved, 1)
        XCTAssertEqual(try library.share(id: other.id).photoCount, 0)
        try assertInvariants(library)
    }

    func testInviteUninviteSetAndResolveShare() throws {
        let (library, photos) = try makeLibrary()
        let storm = try XCTUnwrap(photos["storm.jpg"])
        let share = try library.createShare(photos: [storm], author: "a")
        let count = try historyCount(library)
        XCTAssertTrue(try library.invite(" Bob@Example.com ", to: share, author: "a"))
        XCTAssertFalse(try library.invite("bob@example.com", to: share, author: "a"), "inviting twice changes nothing")
        XCTAssertEqual(try historyCount(library), count + 1)
        XCTAssertTrue(try library.invite("bob@example.com", to: share, permission: .readWrite, author: "a"))
        XCTAssertEqual(try lastTransaction(library).changes.map { Array($0.prefix(4)) }.first?[3], #"["permission"]"#)
        XCTAssertEqual(
            try library.share(id: share.id).participants,
            [
                ParticipantInfo(
                    email: "bob@example.com", role: "private-user", permission: "read-write", acceptance: "pending")
            ])
        for bad in ["bob", "a@b@c", "@example.com", "bob@", "bob smith@example.com", "bob@exa\u{7}mple.com", ""] {
            XCTAssertThrowsError(try Email(parsing: bad), bad) {
                XCTAssertEqual(($0 as? ValueError)?.isMalformed, false, bad)
            }
        }
        XCTAssertThrowsError(try library.uninvite("carol@example.com", from: share, author: "a")) {
            XCTAssertEqual($0 as? LibraryError, .notFound(.participant("carol@example.com", share: share.id)))
        }
        try library.uninvite("BOB@example.com", from: share, author: "a")
        XCTAssertEqual(
            try lastTransaction(library).changes.first?[4], #"{"share":"\#(share.id)","email":"bob@example.com"}"#)
        XCTAssertEqual(try library.share(id: share.id).participants, [])

        XCTAssertTrue(try library.updateShare(share, title: "Dunes", publicPermission: .readOnly, author: "a"))
        XCTAssertEqual(
            try lastTransaction(library).changes.map { Array($0.prefix(4)) },
            [["Share", share.id, "update", #"["title","publicPermission"]"#]])
        let before = try historyCount(library)
        XCTAssertFalse(try library.updateShare(share, title: "Dunes", author: "a"))
        XCTAssertEqual(try historyCount(library), before)
        XCTAssertEqual(
            try library.share(id: share.id).json.serialized(),
            #"{"id":"\#(share.id)","title":"Dunes","scope":"private","publicPermission":"read-only","photoCount":1,"participants":[]}"#
        )

        XCTAssertEqual(try library.resolveShare(share.id.uppercased()).id, share.id)
        XCTAssertEqual(try library.resolveShare(String(share.id.prefix(4))).id, share.id)
        XCTAssertThrowsError(try library.resolveShare(String(share.id.prefix(3)))) {
            XCTAssertEqual(
                $0 as? LibraryError, .prefixTooShort(.share, argument: String(share.id.prefix(3)), minimum: 4))
        }
        XCTAssertThrowsError(try library.resolveShare("default")) {
            XCTAssertEqual($0 as? LibraryError, .notFound(.share("default")))
        }
        XCTAssertThrowsError(try library.resolveShare("zzzz-nope")) {
            XCTAssertEqual($0 as? LibraryError, .notFound(.share("zzzz-nope")))
        }
        try assertInvariants(library)
    }

    // MARK: - Property test

    /// 500 random tag/rate/share/delete operations (fixed seed) keep every invariant: no
    /// relationship crosses zones, foreign keys hold, verify is clean, each operation records at
    /// most one history transaction and one only when it changed something, and `share add`
    /// leaves no duplicate tag names in its zone.
    func testRandomOperationsKeepTheInvariants() throws {
        let (library, _) = try makeLibrary()
        var rng = SplitMix64(state: 0x5EED_2026)
        let names = ["Beach", "beach", "Caf\u{E9}", "Cafe\u{301}", "Sky", "Family", "Insect", "Nature", "Trip 2024"]
        let emails = ["ann@example.org", "BOB@example.org", "carol@example.net", "bad@@example.org"]
        var counts: [String: Int] = [:]

        func allPhotos() throws -> [PhotoRecord] {
            var out: [PhotoRecord] = []
            try library.forEachPhoto(matching: PhotoFilter()) { out.append($0) }
            return out
        }
        func somePhotos() throws -> [PhotoRecord] {
            let all = try allPhotos()
            guard !all.isEmpty else { return [] }
            return (0...rng.int(3)).compactMap { _ in rng.pick(all) }
        }
        func fingerprint() throws -> String {
            let parts = try [
                "SELECT id, zone_id FROM photo ORDER BY id",
                "SELECT uuid, name, zone_id FROM tag ORDER BY uuid",
                "SELECT photo_id, tag_id FROM photo_tag ORDER BY 1, 2",
                "SELECT id, photo_id, value FROM rating ORDER BY id",
                "SELECT id, title, public_permission FROM share ORDER BY id",
                "SELECT share_id, email, permission FROM participant ORDER BY id"
            ].map { sql in
                try library.catalog.rows(sql).map { $0.map { $0 ?? "" }.joined(separator: ":") }.joined(separator: ",")
            }
            return parts.joined(separator: "|")
        }

        for step in 0..<500 {
            let op = rng.int(14)
            let before = try fingerprint()
            let tokens = try historyCount(library)
            var label = ""
            var shareAddZone: String?
            var notACommand = false
            do {
                switch op {
                case 0, 1, 2:
                    label = "tag add"
                    try library.addTag(TagName(parsing: rng.pick(names) ?? "x"), to: try somePhotos(), author: "prop")
                case 3:
                    label = "tag remove"
                    let photos = try somePhotos()
                    if !photos.isEmpty {
                        try library.removeTag(TagName(parsing: rng.pick(names) ?? "x"), from: photos, author: "prop")
                    }
                case 4:
                    label = "tag delete"
                    let zone = rng.bool() ? nil : rng.pick(try allPhotos().map(\.zone))
                    try library.deleteTag(
                        TagName(parsing: rng.pick(names) ?? "x"), zone: zone.map(ZoneID.init(rawValue:)), author: "prop"
                    )
                case 5:
                    label = "tag rename"
                    try library.renameTag(
                        TagName(parsing: rng.pick(names) ?? "x"), to: TagName(parsing: rng.pick(names) ?? "y"),
                        zone: rng.bool() ? nil : "default", author: "prop")
                case 6, 7:
                    label = "rate"
                    if let photo = try somePhotos().first {
                        try library.setRating(RatingValue(rawValue: 1 + rng.int(5)) ?? 1, of: photo, author: "prop")
                    }
                case 8:
                    label = "rating delete"
                    let ids = try library.catalog.statement("SELECT id FROM rating ORDER BY id").map { $0.int64(0) }
                    try library.deleteRating(id: rng.pick(ids) ?? 999_999, author: "prop")
                case 9:
                    label = "share create"
                    let photos = try somePhotos()
                    if !photos.isEmpty {
                        try library.createShare(
                            photos: photos, title: rng.bool() ? nil : ShareTitle("T\(step)"),
                            owner: rng.bool() ? nil : Email("owner@example.org"), allowMove: rng.bool(), author: "prop")
                    }
                case 10:
                    label = "share add"
                    if let share = rng.pick(try library.shares()) {
                        try library.addToShare(share, photos: try somePhotos(), allowMove: rng.bool(), author: "prop")
                        shareAddZone = share.id
                    }
                case 11:
                    label = "invite/uninvite/set"
                    if let share = rng.pick(try library.shares()) {
                        switch rng.int(3) {
                        case 0:
                            try library.invite(
                                Email(parsing: rng.pick(emails) ?? ""), to: share,
                                permission: rng.bool() ? .readOnly : .readWrite, author: "prop")
                        case 1:
                            try library.uninvite(Email(parsing: rng.pick(emails) ?? ""), from: share, author: "prop")
                        default:
                            try library.updateShare(
                                share, title: rng.bool() ? ShareTitle("Title \(rng.int(3))") : nil,
                                publicPermission: rng.pick(SharePermission.allCases), author: "prop")
                        }
                    }
                case 12:
                    label = "duplicate tag (as a merge brings)"
                    // Not a command: a same-named tag with another uuid in a photo's zone.
                    if let photo = try somePhotos().first, let name = photo.tags.first {
                        let uuid = UUID().uuidString.lowercased()
                        try library.catalog.run(
                            "INSERT INTO tag (uuid, name, zone_id) VALUES (?, ?, ?)", [uuid, name, photo.zone])
                        try library.catalog.run(
                            "INSERT INTO photo_tag (photo_id, tag_id) VALUES (?, ?)",
                            [photo.rowID, library.catalog.lastInsertRowID])
                        notACommand = true
                    }
                default:
                    label = "delete/re-import"
                    let remaining = try allPhotos().count
                    if rng.int(3) == 0 || remaining < 3 {
                        var options = ImportOptions(paths: [samplesDir])
                        options.jobs = 2
                        _ = try Importer(library: library, libraryRoot: tmp.file("lib"), options: options).run()
                        notACommand = true
                    } else if let photo = try somePhotos().first {
                        try library.deletePhotos([photo], author: "prop")
                    }
                }
                counts[label, default: 0] += 1
            } catch let error
                where error is ValueError || error is ShareError
                || (error as? LibraryError).map(\.isCatalogRefusal) ?? false
            {
                // A refusal (unknown tag, photo in another share, bad e-mail, owner …) changes nothing.
                counts[label + " refused", default: 0] += 1
                XCTAssertEqual(
                    try fingerprint(), before, "step \(step) \(label): a refused operation changed data: \(error)")
                XCTAssertEqual(
                    try historyCount(library), tokens, "step \(step) \(label): a refused operation recorded history")
            }
            let after = try fingerprint()
            let recorded = try historyCount(library) - tokens
            if !notACommand {
                XCTAssertEqual(
                    recorded, after == before ? 0 : 1,
                    "step \(step) \(label): one history transaction exactly when something changed")
            }
            if let zone = shareAddZone {
                XCTAssertEqual(
                    try library.catalog.scalarInt(
                        "SELECT count(*) FROM (SELECT name FROM tag WHERE zone_id = ? GROUP BY name HAVING count(*) > 1) AS duplicate",
                        [zone]), 0,
                    "step \(step): share add leaves no duplicate tags in its zone")
            }
            try assertInvariants(library, full: true, "after step \(step) (\(label))")
        }
        if ProcessInfo.processInfo.environment["PHOTOS_TEST_VERBOSE"] != nil {
            print(counts.sorted { $0.key < $1.key })
        }
        // Every kind of operation ran, and some were refused.
        for kind in [
            "tag add", "tag remove", "tag delete", "tag rename", "rate", "rating delete", "share create", "share add",
            "invite/uninvite/set", "delete/re-import"
        ] {
            XCTAssertGreaterThan(counts[kind] ?? 0, 0, "\(kind) never succeeded: \(counts)")
        }
        XCTAssertGreaterThan(counts.filter { $0.key.hasSuffix("refused") }.values.reduce(0, +), 0)
        let report = try library.verify()
        XCTAssertTrue(report.isClean, "\(report.problems)")
    }

    /// The uuid of the rating with row id `id` (history names ratings by uuid, schema 3).
    func ratingUUID(_ library: Library, _ id: Int64) throws -> String {
        try XCTUnwrap(library.catalog.scalarString("SELECT uuid FROM rating WHERE id = ?", [id]))
    }
}
