import Foundation
import XCTest
import PhotosTestSupport
@testable import PhotosCLI
import PhotosCore
import PhotosSQLite

/// Issue 9 item 7: history has one shape per entity whatever command wrote it. Each entity is
/// deleted by every command that can delete it, through the CLI as users run it; every row that
/// disappeared must have exactly one delete change whose tombstone (keys in order, and values) is
/// the entity's one shape, computed here independently from the rows before the command, and
/// the author must follow the one rule (maintenance commands their own name, `--author` wins).
final class HistoryShapeCLITests: TemporaryFolderTestCase {
    override var label: String { "photos-hist-shape" }
    var lib: String { dir + "/lib" }
    /// `$PHOTOS_AUTHOR`, which the user's commands record and maintenance commands ignore.
    let env = ["PHOTOS_AUTHOR": "eve"]

    @discardableResult
    func run(_ args: [String], library: String? = nil, file: StaticString = #filePath, line: UInt = #line) -> RunResult
    {
        let result = photos(["--library", library ?? lib] + args, env: env)
        XCTAssertTrue(
            [0, 1].contains(result.status), "\(args): \(result.status) \(result.stderr)", file: file, line: line)
        return result
    }

    func db(_ library: String? = nil) throws -> TestCatalog {
        try TestCatalog(root: (library ?? lib), readOnly: true)
    }

    /// storm, path, ladybird (its sidecar: tags Nature, Insect, rating 4), kite.
    func importSamples(_ library: String? = nil, tags: [String] = []) {
        run(
            ["import", "-q"] + tags.flatMap { ["--tag", $0] }
                + ["storm.jpg", "path.jpg", "ladybird.jpg", "kite.png"].map { samplesDir + "/" + $0 },
            library: library)
    }

    func uniqueName(_ displayName: String, _ library: String? = nil) throws -> String {
        try XCTUnwrap(
            try db(library).scalarString("SELECT unique_name FROM photo WHERE display_name = ?", [displayName]))
    }

    /// The tombstone every row would get, keyed `Entity/objectID`, written out here from the
    /// tables (not from `HistoryEntity`): SPEC §4 and the man page's HISTORY section.
    func expectedTombstones(_ library: String? = nil) throws -> [String: [[String]]] {
        let db = try db(library)
        var all: [String: [[String]]] = [:]
        try db.statement("SELECT p.unique_name, d.sha256 FROM photo p JOIN photo_data d ON d.photo_id = p.id").forEach {
            all["Photo/" + $0.string(0)] = [["uniqueName", $0.string(0)], ["sha256", $0.string(1)]]
        }
        try db.statement(
            "SELECT p.unique_name, p.unique_name, d.sha256 FROM photo_data d JOIN photo p ON p.id = d.photo_id"
        ).forEach {
            all["PhotoData/" + $0.string(0)] = [["photo", $0.string(1)], ["sha256", $0.string(2)]]
        }
        try db.statement("SELECT p.unique_name, p.unique_name FROM thumbnail t JOIN photo p ON p.id = t.photo_id")
            .forEach {
                all["Thumbnail/" + $0.string(0)] = [["photo", $0.string(1)]]
            }
        try db.statement("SELECT r.uuid, p.unique_name, r.value FROM rating r JOIN photo p ON p.id = r.photo_id")
            .forEach {
                all["Rating/" + $0.string(0)] = [["photo", $0.string(1)], ["value", String($0.int(2))]]
            }
        try db.statement("SELECT uuid, name FROM tag").forEach {
            all["Tag/" + $0.string(0)] = [["name", $0.string(1)], ["uuid", $0.string(0)]]
        }
        try db.statement("SELECT id, title FROM share").forEach {
            all["Share/" + $0.string(0)] = [["id", $0.string(0)], ["title", $0.string(1)]]
        }
        try db.statement("SELECT uuid, share_id, email FROM participant").forEach {
            all["Participant/" + $0.string(0)] = [["share", $0.string(1)], ["email", $0.string(2)]]
        }
        return all
    }

    struct Recorded { var author: String; var context: String; var key: String; var tombstone: [[String]] }

    /// The delete changes after `token`, as `photos history` reads them (tombstone keys in
    /// their stored order).
    func deletes(after token: Int64, _ library: String? = nil) throws -> [Recorded] {
        let reader = try Library(root: library ?? lib, create: false, readOnly: true)
        var filter = HistoryFilter()
        filter.sinceToken = token
        var result: [Recorded] = []
        try reader.forEachHistoryTransaction(matching: filter) { t in
            for c in t.changes where c.type == .delete {
                result.append(
                    Recorded(
                        author: t.author, context: t.context, key: c.entity + "/" + c.objectID,
                        tombstone: (c.tombstone ?? []).map { [$0.0, $0.1] }))
            }
        }
        return result
    }

    func token(_ library: String? = nil) throws -> Int64 {
        Int64(try db(library).scalarInt("SELECT COALESCE(max(token), 0) FROM history_transaction") ?? 0)
    }

    /// Runs `command`; every row it removed has one delete change with its entity's tombstone,
    /// nothing else has one, and author and context are as given.
    func assertTombstones(
        _ command: [String], author: String, context: String, entities: Set<String>,
        library: String? = nil, file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let before = try expectedTombstones(library)
        let start = try token(library)
        run(command, library: library, file: file, line: line)
        let after = try expectedTombstones(library)
        let gone = Set(before.keys).subtracting(after.keys)
        let recorded = try deletes(after: start, library)
        XCTAssertEqual(
            recorded.map(\.key).sorted(), gone.sorted(),
            "\(command): every removed row, and only those, has a tombstone", file: file, line: line)
        XCTAssertEqual(
            Set(gone.map { String($0.prefix { $0 != "/" }) }), entities, "\(command)", file: file, line: line)
        for r in recorded {
            XCTAssertEqual(r.tombstone, before[r.key], "\(command) \(r.key)", file: file, line: line)
            XCTAssertEqual(r.author, author, "\(command) \(r.key)", file: file, line: line)
            XCTAssertEqual(r.context, context, "\(command) \(r.key)", file: file, line: line)
            let entity = try XCTUnwrap(HistoryEntity(rawValue: String(r.key.prefix { $0 != "/" })))
            XCTAssertEqual(
                r.tombstone.map { $0[0] }, entity.tombstoneKeys, "the declared shape", file: file, line: line)
        }
    }

    // MARK: - Photo, PhotoData, Thumbnail, Rating

    func testDeleteRecordsTheSameTombstonesAsPurgeForThePhotoAndItsChildren() throws {
        importSamples()
        let storm = try uniqueName("storm.jpg"), ladybird = try uniqueName("ladybird.jpg")
        run(["rate", storm, "5"])
        run(["rate", storm, "2"])
        try assertTombstones(
            ["delete", storm], author: "eve", context: "delete", entities: ["Photo", "PhotoData", "Thumbnail", "Rating"]
        )
        try assertTombstones(
            ["--author", "alice", "delete", ladybird], author: "alice", context: "delete",
            entities: ["Photo", "PhotoData", "Thumbnail", "Rating"])
    }

    func testPurgeRecordsEveryEntityOfTheZoneWithItsShape() throws {
        importSamples(tags: ["Sky"])
        let storm = try uniqueName("storm.jpg"), ladybird = try uniqueName("ladybird.jpg")
        run(["rate", storm, "3"])
        run(["share", "create", storm, ladybird, "--title", "Trip", "--owner", "o@example.com"])
        let share = try XCTUnwrap(try db().scalarString("SELECT id FROM share"))
        run(["share", "invite", share, "bob@example.com"])
        try assertTombstones(
            ["purge", "--share", share], author: "purge", context: "purge",
            entities: ["Photo", "PhotoData", "Thumbnail", "Rating", "Tag", "Participant", "Share"])
        // --author wins over the command's own name.
        run(["share", "create", try uniqueName("path.jpg"), "--title", "Again"])
        let second = try XCTUnwrap(try db().scalarString("SELECT id FROM share"))
        try assertTombstones(
            ["--author", "alice", "purge", "--share", second], author: "alice", context: "purge",
            entities: ["Photo", "PhotoData", "Thumbnail", "Tag", "Share"])
    }

    func testVerifyRepairRecordsVerifyAsAuthorAndTheSameShapes() throws {
        importSamples()
        let ladybird = try uniqueName("ladybird.jpg")
        let ref = try XCTUnwrap(
            try db().scalarString(
                "SELECT d.file_ref FROM photo_data d JOIN photo p ON p.id = d.photo_id WHERE p.unique_name = ?",
                [ladybird]))
        XCTAssertEqual(unlink(lib + "/ExternalData/" + ref), 0)
        try assertTombstones(
            ["verify", "--repair"], author: "verify", context: "verify --repair",
            entities: ["Photo", "PhotoData", "Thumbnail", "Rating"])
        let storm = try uniqueName("storm.jpg")
        let stormRef = try XCTUnwrap(
            try db().scalarString(
                "SELECT d.file_ref FROM photo_data d JOIN photo p ON p.id = d.photo_id WHERE p.unique_name = ?", [storm]
            ))
        XCTAssertEqual(unlink(lib + "/ExternalData/" + stormRef), 0)
        try assertTombstones(
            ["--author", "alice", "verify", "--repair"], author: "alice", context: "verify --repair",
            entities: ["Photo", "PhotoData", "Thumbnail"])
    }

    func testRatingDeleteRecordsTheRatingShape() throws {
        importSamples()
        let storm = try uniqueName("storm.jpg")
        run(["rate", storm, "4"])
        let id = try XCTUnwrap(try db().scalarInt("SELECT max(id) FROM rating"))
        try assertTombstones(
            ["rating", "delete", String(id)], author: "eve", context: "rating delete", entities: ["Rating"])
    }

    // MARK: - Tag

    func testEveryCommandThatDeletesATagRecordsNameAndUUID() throws {
        importSamples(tags: ["Sky"])
        let storm = try uniqueName("storm.jpg"), path = try uniqueName("path.jpg")
        try assertTombstones(["tag", "delete", "Insect"], author: "eve", context: "tag delete", entities: ["Tag"])
        run(["tag", "add", "Beach", storm])
        run(["tag", "add", "Coast", path])
        try assertTombstones(
            ["tag", "rename", "Beach", "Coast"], author: "eve", context: "tag rename", entities: ["Tag"])

        // Duplicates arrive by merge; dedupe-tags deletes the losers.
        let other = dir + "/other"
        importSamples(other, tags: ["Sky"])
        try assertTombstones(["merge", "--from", other], author: "merge", context: "merge", entities: [])
        try assertTombstones(["dedupe-tags"], author: "dedupe-tags", context: "dedupe-tags", entities: ["Tag"])

        // share add merges the duplicates of the share's zone.
        run(["share", "create", storm, "--title", "S"])
        let share = try XCTUnwrap(try db().scalarString("SELECT id FROM share"))
        let rw = try TestCatalog(root: lib)
        try rw.run(
            "INSERT INTO tag (uuid, name, zone_id) VALUES ('00000000-0000-0000-0000-000000000000', 'Sky', ?)", [share])
        try assertTombstones(["share", "add", share, path], author: "eve", context: "share add", entities: ["Tag"])
    }

    // MARK: - Participant

    func testUninviteRecordsShareAndEmail() throws {
        importSamples()
        run(["share", "create", try uniqueName("storm.jpg"), "--title", "S"])
        let share = try XCTUnwrap(try db().scalarString("SELECT id FROM share"))
        run(["share", "invite", share, "bob@example.com"])
        try assertTombstones(
            ["share", "uninvite", share, "bob@example.com"], author: "eve", context: "share uninvite",
            entities: ["Participant"])
    }

    /// `history --entity` takes the entities history records, in any case; another name is a
    /// usage error instead of an empty listing.
    func testEntityFilterIsTyped() throws {
        importSamples()
        XCTAssertEqual(
            photos(["--library", lib, "history", "--entity", "tag", "--json"], env: env).stdout.split(separator: "\n")
                .count, 1)
        let zone = photos(["--library", lib, "history", "--entity", "Zone"], env: env)
        XCTAssertEqual(zone.status, 64)
        XCTAssertTrue(
            zone.stderr.contains(
                "--entity takes one of Photo, PhotoData, Thumbnail, Tag, Rating, Share, Participant, not 'Zone'"),
            zone.stderr)
    }

    /// The rule lives in `HistoryAuthor`: `--author` wins, maintenance commands record their own
    /// name, the user's commands `$PHOTOS_AUTHOR` or `photos`.
    func testAuthorRule() {
        XCTAssertEqual(HistoryAuthor(given: nil, user: "eve").name(for: .verifyRepair), "verify")
        XCTAssertEqual(HistoryAuthor(given: nil, user: "eve").name(for: .purge), "purge")
        XCTAssertEqual(HistoryAuthor(given: nil, user: "eve").name(for: .dedupeTags), "dedupe-tags")
        XCTAssertEqual(HistoryAuthor(given: nil, user: "eve").name(for: .merge), "merge")
        XCTAssertEqual(HistoryAuthor(given: nil, user: "eve").name(for: .delete), "eve")
        XCTAssertEqual(HistoryAuthor.default.name(for: .ratingDelete), "photos")
        for context in HistoryContext.allCases {
            XCTAssertEqual(HistoryAuthor(given: "alice", user: "eve").name(for: context), "alice")
        }
    }
}
