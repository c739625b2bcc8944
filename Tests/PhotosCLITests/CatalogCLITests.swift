import Foundation
import XCTest
import PhotosTestSupport
@testable import PhotosCLI
import PhotosCore
import PhotosSQLite

/// `tag`, `rate`, `rating` and `share` through the in-process CLI runner: happy paths, refusals
/// with their exit codes and messages, JSON shapes, and the invariants after each sequence.
final class CatalogCLITests: TemporaryFolderTestCase {
    override var label: String { "photos-catalog-cli" }
    var lib: String { dir + "/lib" }
    /// uniqueNames by display name.
    var names: [String: String] = [:]

    override func setUpWithError() throws {
        try super.setUpWithError()
        let imported = photos(["--library", lib, "import", "-q", samplesDir])
        XCTAssertEqual(imported.status, 0, imported.stderr)
        for line in run(["list", "--json"]).stdout.split(separator: "\n") {
            let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            names[try XCTUnwrap(object["displayName"] as? String)] = try XCTUnwrap(object["uniqueName"] as? String)
        }
        XCTAssertEqual(names.count, 6)
    }

    func run(_ args: [String], env: [String: String] = [:]) -> RunResult { photos(["--library", lib] + args, env: env) }
    func name(_ display: String) -> String { names[display] ?? "missing-\(display)" }
    func jsonLines(_ result: RunResult) throws -> [[String: Any]] {
        try result.stdout.split(separator: "\n").map {
            try XCTUnwrap(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }
    func json(_ result: RunResult) throws -> [String: Any] {
        try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any],
            result.stdout + result.stderr)
    }
    func historyCount() throws -> Int {
        try TestCatalog(root: lib).scalarInt("SELECT count(*) FROM history_transaction") ?? 0
    }

    /// No tag link crosses zones, foreign keys hold, and `photos verify` exits 0.
    func assertInvariants(file: StaticString = #filePath, line: UInt = #line) throws {
        let db = try TestCatalog(root: lib)
        XCTAssertEqual(
            try db.scalarInt(
                "SELECT count(*) FROM photo_tag pt JOIN photo p ON p.id = pt.photo_id JOIN tag t ON t.id = pt.tag_id WHERE p.zone_id <> t.zone_id"
            ), 0, file: file, line: line)
        if db.backend == .sqlite { // (PostgreSQL enforces foreign keys always)
            XCTAssertEqual(
                try db.statement("PRAGMA foreign_key_check").map { $0.string(0) }, [], file: file, line: line)
        }
        let verify = run(["verify"])
        XCTAssertEqual(verify.status, 0, verify.stdout, file: file, line: line)
    }

    func testEveryNewCommandHasHelp() {
        for command in [
            "tag list", "tag add", "tag remove", "tag delete", "tag prune", "tag rename", "rate", "rating list",
            "rating delete",
            "share create", "share add", "share list", "share show", "share invite", "share uninvite", "share set"
        ] {
            let words = command.split(separator: " ").map(String.init)
            let a = photos(words + ["--help"]), b = photos(["help"] + words)
            XCTAssertEqual(a.status, 0, command)
            XCTAssertEqual(a.stdout, b.stdout, command)
            XCTAssertTrue(a.stdout.hasPrefix("OVERVIEW: "), command)
            XCTAssertTrue(a.stdout.contains("USAGE: photos \(command)"), command)
        }
        let group = photos(["share", "--help"])
        XCTAssertEqual(group.status, 0)
        XCTAssertTrue(group.stdout.contains("share invite"))
        XCTAssertTrue(photos(["--help"]).stdout.contains("tag rename"))
        XCTAssertTrue(
            photos(["share", "invite", "--help"], env: ["COLUMNS": "200"]).stdout.contains(
                "read-only for a new participant; an existing one keeps its own"))
        XCTAssertTrue(photos(["list", "--help"]).stdout.contains("--min-rating <n>"))
        XCTAssertTrue(photos(["import", "--help"]).stdout.contains("--share <id>"))
    }

    /// An unknown --share is an error before anything goes to stdout: no table header.
    func testListOfAnUnknownSharePrintsNothingOnStdout() {
        let result = run(["list", "--share", "nosuchxx"])
        XCTAssertEqual(result.status, 66, result.stderr)
        XCTAssertEqual(result.stdout, "")
    }

    func testTagCommands() throws {
        let storm = name("storm.jpg"), path = name("path.jpg"), kite = name("kite.png")
        let add = run(["tag", "add", "Caf\u{E9}", String(storm.prefix(8)).lowercased(), path])
        XCTAssertEqual(add.status, 0, add.stderr)
        XCTAssertEqual(add.stdout, "Tagged 2 photos with 'Caf\u{E9}'\n")
        let decomposed = run(["tag", "add", "  Cafe\u{301}  ", kite, storm, "--json"])
        XCTAssertEqual(decomposed.stdout, #"{"tag":"Caf\#u{E9}","added":1}"# + "\n")

        let listed = try jsonLines(run(["tag", "list", "--json", "--match", "CAFE"]))
        XCTAssertEqual(listed.count, 1)
        XCTAssertEqual(Set(listed[0].keys), ["uuid", "name", "zone", "photoCount"])
        XCTAssertEqual(listed[0]["name"] as? String, "Caf\u{E9}")
        XCTAssertEqual(listed[0]["zone"] as? String, "default")
        XCTAssertEqual(listed[0]["photoCount"] as? Int, 3)
        // Close-up and Colors: colorful-cups-progressive.jpg carries digiKam's embedded XMP: keywords Close-up, Colors; rating 5.
        XCTAssertEqual(
            try jsonLines(run(["tag", "list", "--json"])).map { $0["name"] as? String },
            ["Caf\u{E9}", "Close-up", "Colors", "Insect", "Nature"])
        let text = run(["tag", "list", "--zone", "default"])
        XCTAssertTrue(text.stdout.hasPrefix("NAME "), text.stdout)
        XCTAssertEqual(text.stdout.split(separator: "\n").count, 6)
        XCTAssertEqual(run(["tag", "list", "--zone", "nowhere"]).status, 66)

        // Refusals: empty name, control characters, unknown photo, too short prefix.
        // A bad argument value is a usage error (64) everywhere (issue 14).
        let empty = run(["tag", "add", "   ", storm])
        XCTAssertEqual(empty.status, 64)
        XCTAssertTrue(
            empty.stderr.hasPrefix("photos tag add: error: tag name is empty\nUsage: photos tag add"), empty.stderr)
        let control = run(["tag", "add", "a\u{1B}b", storm])
        XCTAssertEqual(control.status, 64)
        XCTAssertTrue(control.stderr.contains("contains control characters"), control.stderr)
        let unknown = run(["tag", "add", "X", storm, "ffff0000-nope"])
        XCTAssertEqual(unknown.status, 66)
        XCTAssertTrue(unknown.stderr.contains("no photo 'ffff0000-nope' in the library"), unknown.stderr)
        XCTAssertEqual(run(["tag", "add", "X", "abc"]).status, 64, "a prefix needs 4 characters")
        XCTAssertEqual(run(["tag", "list", "--json", "--match", "X"]).stdout, "", "nothing was tagged")
        XCTAssertEqual(run(["tag", "add", "X"]).status, 64, "missing photo")

        let count = try historyCount()
        XCTAssertEqual(run(["tag", "add", "Caf\u{E9}", storm]).stdout, "Tagged 0 photos with 'Caf\u{E9}'\n")
        XCTAssertEqual(try historyCount(), count, "a command that changes nothing records nothing")

        XCTAssertEqual(run(["tag", "remove", "Cafe\u{301}", kite]).stdout, "Removed 'Caf\u{E9}' from 1 photo\n")
        XCTAssertEqual(run(["tag", "remove", "Nope", kite]).status, 66)
        let rename = run(["tag", "rename", "Caf\u{E9}", "Coffee", "--json"])
        XCTAssertEqual(
            rename.stdout,
            #"{"from":"Caf\#u{E9}","to":"Coffee","renamed":1,"merged":0,"photosMerged":0,"beneath":0,"dryRun":false}"#
                + "\n")
        XCTAssertEqual(run(["tag", "rename", "Caf\u{E9}", "Coffee"]).status, 66)
        XCTAssertEqual(run(["tag", "rename", "Coffee", ""]).status, 64)

        let delete = run(["tag", "delete", "Coffee"])
        XCTAssertEqual(delete.status, 0, delete.stderr)
        XCTAssertEqual(delete.stdout, "Deleted 1 tag named 'Coffee' (zone default) from 2 photos\n")
        XCTAssertEqual(run(["list", "--json"]).stdout.split(separator: "\n").count, 6, "the photos stay")
        XCTAssertEqual(run(["tag", "delete", "Coffee"]).status, 66)

        let db = try TestCatalog(root: lib)
        let contexts = try db.statement(
            "SELECT context FROM history_transaction WHERE context <> 'import' ORDER BY token"
        ).map { $0.string(0) }
        XCTAssertEqual(contexts, ["tag add", "tag add", "tag remove", "tag rename", "tag delete"])
        try assertInvariants()
    }

    /// Issue 32 item 8: `tag prune` deletes the tags no photo has, in one history
    /// transaction; `--dry-run` names them and changes nothing; the used tags stay.
    func testTagPruneDeletesOnlyUnusedTagsInOneTransaction() throws {
        let storm = name("storm.jpg")
        let fromFiles = Set(try jsonLines(run(["tag", "list", "--json"])).compactMap { $0["name"] as? String })
        for tag in ["Kept", "Gone", "Also gone"] { XCTAssertEqual(run(["tag", "add", tag, storm]).status, 0) }
        XCTAssertEqual(run(["tag", "remove", "Gone", storm]).status, 0)
        XCTAssertEqual(run(["tag", "remove", "Also gone", storm]).status, 0)
        let before = try historyCount()

        let dry = run(["tag", "prune", "--dry-run"])
        XCTAssertEqual(dry.status, 0, dry.stderr)
        XCTAssertEqual(dry.stdout, "Would delete 2 unused tags: Also gone, Gone\n")
        XCTAssertEqual(try historyCount(), before)
        XCTAssertEqual(
            Set(try jsonLines(run(["tag", "list", "--json"])).compactMap { $0["name"] as? String }),
            fromFiles.union(["Kept", "Gone", "Also gone"]))

        let pruned = run(["tag", "prune"])
        XCTAssertEqual(pruned.status, 0, pruned.stderr)
        XCTAssertEqual(pruned.stdout, "Deleted 2 unused tags: Also gone, Gone\n")
        XCTAssertEqual(
            Set(try jsonLines(run(["tag", "list", "--json"])).compactMap { $0["name"] as? String }),
            fromFiles.union(["Kept"]))
        XCTAssertEqual(try historyCount(), before + 1)
        let db = try TestCatalog(root: lib)
        XCTAssertEqual(
            try db.scalarString("SELECT context FROM history_transaction ORDER BY token DESC LIMIT 1"), "tag prune")

        let again = run(["tag", "prune"])
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertEqual(again.stdout, "No unused tags\n")
        XCTAssertEqual(try historyCount(), before + 1, "nothing to prune records nothing")
        XCTAssertEqual(run(["tag", "prune", "--zone", "nowhere"]).status, 66)
        try assertInvariants()
    }

    func testRateAndRatingCommands() throws {
        let storm = name("storm.jpg"), ladybird = name("ladybird.jpg")
        let rated = run(["rate", storm, "2", "--json"])
        XCTAssertEqual(rated.status, 0, rated.stderr)
        let first = try json(rated)
        XCTAssertEqual(first["value"] as? Int, 2)
        XCTAssertEqual(first["photo"] as? String, storm)
        // Another author's rating is a second row (issue 14: one rating per author).
        let text = run(["--author", "b", "rate", String(storm.prefix(5)), "3"])
        XCTAssertTrue(text.stdout.hasPrefix("Rated \(storm) 3 by b (rating id "), text.stdout)
        XCTAssertTrue(text.stdout.hasSuffix("the photo's rating is now 3)\n"), "2.5 rounds half up: \(text.stdout)")

        let list = try jsonLines(run(["rating", "list", storm, "--json"]))
        XCTAssertEqual(list.map { $0["value"] as? Int }, [2, 3])
        XCTAssertEqual(Set(list[0].keys), ["id", "value", "photo", "author"])
        let shown = run(["show", storm]).stdout
        XCTAssertTrue(
            shown.contains("rating:      3 (the mean of 2, rounded half up)\nratings:     photos 2, b 3\n"), shown)

        // --min-rating: the rounded mean; unrated photos are left out.
        // colorful-cups-progressive.jpg carries digiKam's embedded XMP: keywords Close-up, Colors; rating 5.
        XCTAssertEqual(
            Set(
                try jsonLines(run(["list", "--min-rating", "3", "--json"])).compactMap { $0["displayName"] as? String }),
            ["storm.jpg", "ladybird.jpg", "colorful-cups-progressive.jpg"])
        XCTAssertEqual(
            Set(
                try jsonLines(run(["list", "--min-rating", "4", "--json"])).compactMap { $0["displayName"] as? String }),
            ["ladybird.jpg", "colorful-cups-progressive.jpg"])
        XCTAssertEqual(run(["list", "--min-rating", "6"]).status, 64)
        XCTAssertEqual(run(["list", "--min-rating", "x"]).status, 64)

        for (bad, status) in [("abc", Int32(64)), ("4.5", 64), ("0", 64), ("6", 64)] {
            let r = run(["rate", ladybird, bad])
            XCTAssertEqual(r.status, status, bad)
            XCTAssertTrue(r.stderr.contains("rating"), r.stderr)
        }
        XCTAssertEqual(run(["rate", ladybird, "--", "-1"]).status, 64, "a negative number after --")
        XCTAssertEqual(run(["rate", "ffff0000-nope", "3"]).status, 66)

        let id = try XCTUnwrap(list.last?["id"] as? Int)
        let deleted = run(["rating", "delete", String(id)])
        XCTAssertEqual(deleted.status, 0, deleted.stderr)
        XCTAssertEqual(deleted.stdout, "Deleted rating \(id) (value 3) of photo \(storm)\n")
        let again = run(["rating", "delete", String(id)])
        XCTAssertEqual(again.status, 66)
        XCTAssertEqual(again.stderr, "photos rating delete: error: no rating with id \(id) in the library\n")
        XCTAssertEqual(run(["rating", "delete", "two"]).status, 64)
        XCTAssertEqual(try jsonLines(run(["rating", "list", storm, "--json"])).map { $0["value"] as? Int }, [2])
        try assertInvariants()
    }

    func testShareCommandsMoveTaggedPhotosAndManageParticipants() throws {
        let storm = name("storm.jpg"), path = name("path.jpg"), kite = name("kite.png"),
            dune = name("dune-orientation6.jpg")
        XCTAssertEqual(run(["tag", "add", "Beach", storm, path, kite]).status, 0)
        XCTAssertEqual(run(["rate", storm, "5"]).status, 0)

        let created = run(
            ["share", "create", storm, path, "--title", "Summer", "--json"], env: ["PHOTOS_OWNER": "Owner@Example.com"])
        XCTAssertEqual(created.status, 0, created.stderr)
        let share = try json(created)
        XCTAssertEqual(
            Array(share.keys).sorted(), ["id", "participants", "photoCount", "publicPermission", "scope", "title"])
        let id = try XCTUnwrap(share["id"] as? String)
        XCTAssertEqual(share["title"] as? String, "Summer")
        XCTAssertEqual(share["scope"] as? String, "private")
        XCTAssertEqual(share["publicPermission"] as? String, "none")
        XCTAssertEqual(share["photoCount"] as? Int, 2)
        let owner = try XCTUnwrap((share["participants"] as? [[String: Any]])?.first)
        XCTAssertEqual(
            owner as NSDictionary,
            ["email": "owner@example.com", "role": "owner", "permission": "read-write", "acceptance": "accepted"]
                as NSDictionary)

        // The share has one Beach with the two photos; the default zone keeps its Beach with kite.
        let beach = try jsonLines(run(["tag", "list", "--json", "--match", "beach"]))
        XCTAssertEqual(
            beach.map { "\($0["zone"] as? String ?? ""):\($0["photoCount"] as? Int ?? -1)" }.sorted(),
            ["\(id):2", "default:1"].sorted())
        let stormNow = try json(run(["show", storm, "--json"]))
        XCTAssertEqual(stormNow["zone"] as? String, id)
        XCTAssertEqual(RatingsJSON.values(stormNow), [5])
        XCTAssertEqual(stormNow["tags"] as? [String], ["Beach"])

        // Filters and show by share, by prefix.
        let prefix = String(id.prefix(6)).uppercased()
        XCTAssertEqual(
            Set(try jsonLines(run(["list", "--share", prefix, "--json"])).compactMap { $0["uniqueName"] as? String }),
            [storm, path])
        XCTAssertEqual(try jsonLines(run(["list", "--zone", id, "--json"])).count, 2)
        XCTAssertEqual(run(["list", "--zone", id, "--share", id]).status, 64)
        XCTAssertEqual(run(["show", storm, "--share", prefix]).status, 0)
        XCTAssertEqual(run(["show", kite, "--share", prefix]).status, 66)

        // share add; a photo in another share needs --move.
        let added = run(["share", "add", prefix, kite])
        XCTAssertEqual(added.stdout, "Moved 1 photo into share \(id)\n", added.stderr)
        let other = try json(run(["share", "create", dune, "--json"]))
        let otherID = try XCTUnwrap(other["id"] as? String)
        XCTAssertTrue((other["title"] as? String)?.hasPrefix("Share-") ?? false)
        XCTAssertEqual(((other["title"] as? String) ?? "").count, "Share-2026-11-29 14:03:12".count)
        let refused = run(["share", "add", id, dune])
        XCTAssertEqual(refused.status, 65)
        XCTAssertTrue(refused.stderr.contains("already in share \(otherID); use --move"), refused.stderr)
        XCTAssertEqual(run(["share", "create", dune]).status, 65)
        XCTAssertEqual(
            run(["share", "add", id, dune, "--move", "--json"]).stdout,
            #"{"share":"\#(id)","moved":1,"mergedTags":0}"# + "\n")

        // Participants.
        let invite = run(["share", "invite", id, "Ann@Example.org", "--permission", "read-write"])
        XCTAssertEqual(invite.stdout, "Invited ann@example.org to share \(id) (read-write)\n", invite.stderr)
        let count = try historyCount()
        XCTAssertEqual(run(["share", "invite", id, "ann@example.org", "--permission", "read-write"]).status, 0)
        XCTAssertEqual(try historyCount(), count, "inviting twice changes nothing")
        XCTAssertEqual(run(["share", "invite", id, "bob@example.org"]).status, 0)
        for bad in ["bob", "a@b@c", "@x.org", "bob@", "bo b@x.org"] {
            let r = run(["share", "invite", id, bad])
            XCTAssertEqual(r.status, 64, bad)
            XCTAssertTrue(r.stderr.contains("e-mail address"), r.stderr)
        }
        XCTAssertEqual(run(["share", "invite", id, "c@x.org", "--permission", "admin"]).status, 64)
        XCTAssertEqual(run(["share", "invite", id, "owner@example.com"]).status, 65, "the owner is not invited")
        XCTAssertEqual(run(["share", "uninvite", id, "nobody@example.org"]).status, 66)
        XCTAssertEqual(
            run(["share", "uninvite", id, "BOB@example.org"]).stdout, "Removed bob@example.org from share \(id)\n")

        XCTAssertEqual(run(["share", "set", id]).status, 64)
        XCTAssertEqual(run(["share", "set", id, "--public-permission", "everyone"]).status, 64)
        XCTAssertEqual(run(["share", "set", id, "--title", " "]).status, 64)
        let set = try json(
            run(["share", "set", id, "--title", "Summer 2026", "--public-permission", "read-only", "--json"]))
        XCTAssertEqual(set["title"] as? String, "Summer 2026")
        XCTAssertEqual(set["publicPermission"] as? String, "read-only")

        let show = run(["share", "show", String(id.prefix(4))])
        XCTAssertEqual(show.status, 0, show.stderr)
        XCTAssertTrue(show.stdout.contains("title:       Summer 2026\n"), show.stdout)
        XCTAssertTrue(
            show.stdout.contains(
                "  owner@example.com (owner, read-write, accepted)\n  ann@example.org (private-user, read-write, pending)\n"
            ), show.stdout)
        XCTAssertTrue(show.stdout.contains("  \(storm)  storm.jpg\n"), show.stdout)
        let showJSON = try json(run(["share", "show", id, "--json"]))
        XCTAssertEqual(Set(showJSON["photos"] as? [String] ?? []), [storm, path, kite, dune])

        let list = try jsonLines(run(["share", "list", "--json"]))
        XCTAssertEqual(list.compactMap { $0["id"] as? String }.sorted(), [id, otherID].sorted())
        XCTAssertEqual(list.first { $0["id"] as? String == otherID }?["photoCount"] as? Int, 0)

        // History: every change of these commands, with author and context.
        let db = try TestCatalog(root: lib)
        let moves = try db.statement(
            "SELECT c.entity, c.updated FROM history_change c JOIN history_transaction t ON t.token = c.token WHERE t.context = 'share create' AND c.entity = 'Photo' AND c.object_id = ?"
        )
        .map([storm]) { [$0.string(0), $0.string(1)] }
        XCTAssertEqual(moves, [["Photo", #"["zone","tags"]"#]])
        XCTAssertEqual(
            try db.scalarInt(
                "SELECT count(*) FROM history_change c JOIN history_transaction t ON t.token = c.token WHERE t.context = 'share create' AND c.entity = 'Rating' AND c.type = 'update'"
            ), 1)
        try assertInvariants()
    }

    func testShareArgumentsUnknownAmbiguousAndImportIntoAShare() throws {
        XCTAssertEqual(run(["share", "show", "abcd"]).status, 66)
        XCTAssertEqual(run(["share", "show", "abc"]).status, 64, "a prefix needs 4 characters")
        XCTAssertEqual(run(["share", "list"]).stdout.split(separator: "\n").count, 1, "header only")
        // Two shares whose ids share a prefix.
        let db = try TestCatalog(root: lib)
        for suffix in ["1", "2"] {
            let id = "abcd000\(suffix)-0000-4000-8000-000000000000"
            try db.run("INSERT INTO zone (id, name, scope) VALUES (?, ?, 'private')", [id, id])
            try db.run(
                "INSERT INTO share (id, title, created) VALUES (?, ?, '2026-01-01T00:00:00Z')", [id, "S\(suffix)"])
        }
        let ambiguous = run(["share", "show", "ABCD"])
        XCTAssertEqual(ambiguous.status, 65)
        XCTAssertTrue(
            ambiguous.stderr.contains(
                "share prefix 'ABCD' is ambiguous: abcd0001-0000-4000-8000-000000000000 (S1), abcd0002-0000-4000-8000-000000000000 (S2)"
            ), ambiguous.stderr)
        XCTAssertEqual(run(["list", "--share", "abcd"]).status, 65)
        XCTAssertEqual(run(["share", "show", "abcd0002"]).status, 0)

        // Ambiguous photo prefixes are refused with the candidates.
        try db.run(
            "UPDATE photo SET unique_name = 'EEEE0001-0000-4000-8000-000000000000' WHERE unique_name = ?",
            [name("storm.jpg")])
        try db.run(
            "UPDATE photo SET unique_name = 'EEEE0002-0000-4000-8000-000000000000' WHERE unique_name = ?",
            [name("path.jpg")])
        let photoAmbiguous = run(["share", "add", "abcd0001", "eeee"])
        XCTAssertEqual(photoAmbiguous.status, 65)
        XCTAssertTrue(photoAmbiguous.stderr.contains("photo prefix 'eeee' is ambiguous"), photoAmbiguous.stderr)

        // Import straight into a share; the sidecar's tags are created in the share's zone.
        try FileManager.default.createDirectory(atPath: dir + "/in", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: samplesDir + "/ladybird.jpg", toPath: dir + "/in/bug.jpg")
        try FileManager.default.copyItem(atPath: samplesDir + "/ladybird.jpg.xmp", toPath: dir + "/in/bug.jpg.xmp")
        _ = FileManager.default.createFile(atPath: dir + "/in/extra.bin", contents: Data([1, 2, 3]))
        XCTAssertEqual(run(["delete", name("ladybird.jpg")]).status, 0)
        XCTAssertEqual(run(["import", dir + "/in", "--share", "nope-nope"]).status, 66)
        XCTAssertEqual(
            run(["list", "--json"]).stdout.split(separator: "\n").count, 5, "nothing imported into an unknown share")
        let imported = run(["import", dir + "/in", "--share", "abcd0001", "--tag", "Bugs", "--json"])
        XCTAssertEqual(imported.status, 0, imported.stderr)
        let inShare = try jsonLines(run(["list", "--share", "abcd0001", "--json"]))
        XCTAssertEqual(inShare.count, 1)
        XCTAssertEqual(inShare.first?["tags"] as? [String], ["Bugs", "Insect", "Nature"])
        XCTAssertEqual(
            Set(
                try jsonLines(run(["tag", "list", "--zone", "abcd0001-0000-4000-8000-000000000000", "--json"]))
                    .compactMap { $0["name"] as? String }),
            ["Bugs", "Insect", "Nature"])
        XCTAssertEqual(photos(["--library", dir + "/none", "import", dir + "/in", "--share", "abcd"]).status, 66)
        if TestDatabase.isPostgreSQL {
            // The library was made before the import (as `init --database` makes one): it stays empty.
            XCTAssertEqual(try TestCatalog(root: dir + "/none").scalarInt("SELECT count(*) FROM photo"), 0)
        } else {
            XCTAssertFalse(
                FileManager.default.fileExists(atPath: dir + "/none"), "no library is created for an unknown share")
        }
        try assertInvariants()
    }
}
