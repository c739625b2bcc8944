import Foundation
import PhotosCore
import PhotosPostgreSQL
import PhotosTestSupport
import XCTest

/// Issue 31 item A3: one PostgreSQL catalog named by several library folders (machines). The
/// catalog records its originals root (`init --database URL --originals PATH`, marked by
/// `PATH/.photos-originals`); a second folder joins it saying so and uses that root; import,
/// merge and repair refuse (66, 73) while the root is not the catalog's here; and `verify
/// --repair` never deletes a photo because its original is not visible from one folder.
/// Needs the PostgreSQL server (skipped without `PHOTOS_TEST_DATABASE_URL`).
final class TeamCatalogCLITests: BinaryTestCase {
    private var url = ""
    private var drop: (@Sendable () -> Void)?

    override func setUpWithError() throws {
        try super.setUpWithError()
        let made = try TestDatabase.makeSchema()
        url = made.connectionString
        drop = made.drop
    }

    override func tearDown() {
        drop?()
        super.tearDown()
    }

    /// Runs photos and checks its exit status.
    @discardableResult
    private func photos(_ args: [String], expect: Int32 = 0, file: StaticString = #filePath, line: UInt = #line)
        throws -> (stdout: String, stderr: String)
    {
        let r = try run(args)
        XCTAssertEqual(r.status, expect, "\(args): \(r.stdout) \(r.stderr)", file: file, line: line)
        return (r.stdout, r.stderr)
    }

    private var display: String { (try? ConnectionInfo(url).display) ?? "" }

    /// Every row that a repair could delete, as text, for before/after comparisons.
    private func catalogRows() throws -> [String] {
        let db = try PostgresDatabase(url)
        var rows: [String] = []
        for sql in [
            "SELECT unique_name || ' ' || display_name FROM photo ORDER BY unique_name",
            "SELECT p.unique_name || ' ' || d.sha256 FROM photo_data d JOIN photo p ON p.id = d.photo_id ORDER BY 1",
            "SELECT p.unique_name || ' tag ' || t.name FROM photo_tag pt JOIN photo p ON p.id = pt.photo_id JOIN tag t ON t.id = pt.tag_id ORDER BY 1",
            "SELECT p.unique_name || ' rating ' || r.value FROM rating r JOIN photo p ON p.id = r.photo_id ORDER BY 1",
            "SELECT 'thumbnails ' || count(*) FROM thumbnail"
        ] {
            rows += try db.statement(sql).map { $0.string(0) }
        }
        return rows
    }

    private func originalsFiles(_ root: String) -> [String] { filesUnder(root) }

    private func uniqueName(of displayName: String) throws -> String {
        try XCTUnwrap(
            try PostgresDatabase(url).scalarString(
                "SELECT unique_name FROM photo WHERE display_name = ?", [displayName]))
    }

    /// The example: TEAM1 makes the catalog and imports 6 photos; TEAM2 joins ("joined an
    /// existing catalog of 6 photos", not "Created library") and its imports land in the
    /// catalog's root, where TEAM1 sees them; with one of TEAM2's originals not visible,
    /// `verify --repair --yes` on either folder deletes nothing, says why and exits 1.
    func testASecondFolderJoinsTheCatalogAndRepairNeverDeletesWhatItCannotSee() throws {
        let root = dir + "/shared/originals", team1 = dir + "/TEAM1", team2 = dir + "/TEAM2"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        let created = try photos(["init", "--database", url, "--originals", root, team1]).stdout
        let version = PostgresSchema.currentVersion
        XCTAssertEqual(
            created,
            "Created library at \(team1) with its catalog in \(display) (schema version \(version)); its originals are in \(root)\n"
        )
        // The catalog records the root; the root's marker names the catalog.
        let db = try PostgresDatabase(url)
        XCTAssertEqual(try db.scalarString("SELECT root FROM catalog_originals"), root)
        XCTAssertEqual(try db.scalarInt("SELECT unknown_folders FROM catalog_originals"), 0)
        let id = try XCTUnwrap(try db.scalarString("SELECT catalog_id FROM catalog_originals"))
        let marker = try String(contentsOfFile: root + "/.photos-originals", encoding: .utf8)
        XCTAssertTrue(marker.contains("\ncatalog \(id)\n"), marker)

        XCTAssertTrue(
            try photos(["--library", team1, "import", "--author", "ann", samplesDir]).stdout.contains(
                "Imported 6 photos"))
        XCTAssertEqual(originalsFiles(root).count, 6)
        XCTAssertFalse(FileManager.default.fileExists(atPath: team1 + "/ExternalData"), "TEAM1 has a folder of its own")

        let joined = try photos(["init", "--database", url, team2])
        XCTAssertEqual(
            joined.stdout,
            "Library at \(team2) joined an existing catalog of 6 photos (originals in \(root)) in \(display) (schema version \(version))\n"
        )
        XCTAssertFalse(joined.stdout.contains("Created library"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: team2 + "/ExternalData"))
        XCTAssertTrue(try photos(["--library", team2, "import", formatSamplesDir]).stdout.contains("Imported 3 photos"))
        // TEAM2's originals are in the catalog's root, not in a folder of its own.
        XCTAssertEqual(originalsFiles(root).count, 9)
        XCTAssertFalse(FileManager.default.fileExists(atPath: team2 + "/ExternalData"))
        XCTAssertEqual(try db.scalarInt("SELECT count(*) FROM catalog_folder"), 2)
        _ = try photos(["--library", team1, "tag", "add", "Best", try uniqueName(of: "kite.png")])
        _ = try photos(["--library", team2, "--author", "bob", "rate", try uniqueName(of: "path.webp"), "4"])
        for team in [team1, team2] {
            XCTAssertTrue(
                try photos(["--library", team, "verify"]).stdout.contains(
                    "9 photos, 9 thumbnails and 9 files: 0 problems"))
        }

        // TEAM2's path.webp is not visible (from TEAM1 as from TEAM2: one root here).
        let webp = try uniqueName(of: "path.webp")
        let sha = try XCTUnwrap(
            try db.scalarString(
                "SELECT d.sha256 FROM photo_data d JOIN photo p ON p.id = d.photo_id WHERE p.display_name = 'path.webp'"
            ))
        let original = root + "/" + sha.prefix(2) + "/" + sha
        try FileManager.default.moveItem(atPath: original, toPath: dir + "/away.webp")
        let before = try catalogRows()
        XCTAssertEqual(before.filter { $0.hasPrefix(webp) }.count, 3, before.joined(separator: "\n"))
        for team in [team1, team2] {
            let dry = try photos(["--library", team, "verify", "--repair", "--dry-run"], expect: 1).stdout
            XCTAssertFalse(dry.contains("would repair: delete photo"), dry)
            let repair = try photos(["--library", team, "verify", "--repair", "--yes"], expect: 1)
            XCTAssertTrue(
                repair.stdout.contains(
                    "problem: missing-file: photo \(webp) (path.webp): original \(sha.prefix(2))/\(sha) is missing"),
                repair.stdout)
            XCTAssertTrue(
                repair.stdout.contains(
                    "(not repaired: the catalog is shared by 2 library folders, and an original not visible from here may be visible from another; restore it into \(root), or delete the photo with 'photos delete')"
                ), repair.stdout)
            XCTAssertFalse(repair.stdout.contains("repaired: missing-file"), repair.stdout)
            XCTAssertTrue(repair.stdout.contains("1 problem"), repair.stdout)
            XCTAssertEqual(try catalogRows(), before, "verify --repair on \(team) changed the catalog")
        }
        try FileManager.default.moveItem(atPath: dir + "/away.webp", toPath: original)
        for team in [team1, team2] {
            XCTAssertTrue(try photos(["--library", team, "verify"]).stdout.contains("0 problems"))
        }
        XCTAssertEqual(try catalogRows(), before)
        XCTAssertEqual(originalsFiles(root).count, 9)
    }

    /// The root not mounted (missing), an empty mount point (no marker), another library's
    /// folder (another catalog's marker): import, merge and verify --repair refuse with 66
    /// naming what to mount, write nothing there, and change no row; verify alone reports the
    /// originals missing (exit 1); a third folder cannot join (66, nothing made). Mounted
    /// again, everything works.
    func testImportMergeAndRepairRefuseWhileTheRootIsNotTheCatalogs() throws {
        let root = dir + "/mnt/originals", team1 = dir + "/TEAM1", team2 = dir + "/TEAM2"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        _ = try photos(["init", "-q", "--database", url, "--originals", root, team1])
        _ = try photos(["--library", team1, "import", "-q", samplesDir])
        _ = try photos(["init", "-q", "--database", url, team2])
        let solo = dir + "/solo"
        XCTAssertEqual(try runAsGiven(["--library", solo, "import", "-q", formatSamplesDir]).status, 0)
        let changeset = dir + "/solo.changeset"
        XCTAssertEqual(try runAsGiven(["--library", solo, "sync", "-q", "--export", changeset]).status, 0)
        let id = try XCTUnwrap(try PostgresDatabase(url).scalarString("SELECT catalog_id FROM catalog_originals"))
        let before = try catalogRows()

        func expectRefusals(_ why: String, _ state: String) throws {
            for args in [
                ["--library", team2, "import", formatSamplesDir], ["--library", team1, "import", formatSamplesDir],
                ["--library", team2, "merge", "--from", solo], ["--library", team2, "verify", "--repair", "--yes"],
                ["--library", team2, "sync", "--apply", changeset], ["--library", team1, "sync", "--from", solo],
                ["--library", team2, "verify", "--repair", "--dry-run"]
            ] {
                let r = try photos(args, expect: 66)
                XCTAssertTrue(
                    r.stderr.contains(
                        "library \(args[1]): the catalog's originals root \(root) cannot be used here: \(why): mount the catalog's originals at \(root) (the folder holding .photos-originals of catalog \(id)), or change the root with 'photos catalog set-originals PATH'; nothing was changed"
                    ), "\(state) \(args): \(r.stderr)")
            }
            XCTAssertEqual(try catalogRows(), before, state)
            let verify = try photos(["--library", team2, "verify"], expect: 1)
            XCTAssertTrue(
                verify.stderr.contains("the catalog's originals root \(root) cannot be used here"), verify.stderr)
            XCTAssertTrue(verify.stdout.contains("6 photos"), verify.stdout)
            let team3 = dir + "/TEAM3-" + state
            let join = try photos(["init", "--database", url, team3], expect: 66)
            XCTAssertTrue(join.stderr.contains("mount the catalog's originals at \(root)"), join.stderr)
            XCTAssertFalse(FileManager.default.fileExists(atPath: team3 + "/catalog.postgresql"))
        }

        // Not mounted: the folder is not there, and no command makes it.
        try FileManager.default.moveItem(atPath: root, toPath: dir + "/mounted-elsewhere")
        try expectRefusals("it is not there (No such file or directory)", "missing")
        XCTAssertFalse(FileManager.default.fileExists(atPath: root))
        // An empty mount point.
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: false)
        try expectRefusals("it holds no .photos-originals marker (nothing mounted there?)", "empty")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: root), [])
        // Another catalog's originals at that path.
        let other = UUID().uuidString.lowercased()
        try OriginalsMarker.write(catalogID: other, root: root)
        try expectRefusals("its marker belongs to another catalog (\(other))", "other")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: root), [".photos-originals"])

        // Mounted again.
        try FileManager.default.removeItem(atPath: root)
        try FileManager.default.moveItem(atPath: dir + "/mounted-elsewhere", toPath: root)
        XCTAssertTrue(try photos(["--library", team2, "import", formatSamplesDir]).stdout.contains("Imported 3 photos"))
        XCTAssertTrue(
            try photos(["--library", team1, "verify"]).stdout.contains("9 photos, 9 thumbnails and 9 files: 0 problems")
        )
    }

    /// A root this user may not write (EACCES): import and verify --repair refuse with 77
    /// naming the root, and nothing is written (run as root: the commands run as nobody).
    func testImportAndRepairRefuseWith77WhileThisUserMayNotWriteTheRoot() throws {
        let root = dir + "/originals", team1 = dir + "/TEAM1"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        _ = try photos(["init", "-q", "--database", url, "--originals", root, team1])
        _ = try photos(["--library", team1, "import", "-q", samplesDir + "/storm.jpg"])
        let input = dir + "/in"
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: samplesDir + "/kite.png", toPath: input + "/kite.png")
        chmod(input, 0o755)
        chmod(input + "/kite.png", 0o644)
        chmod(root, geteuid() == 0 ? 0o755 : 0o555)
        defer { chmod(root, 0o755) }
        let files = originalsFiles(root)
        for args in [["import", input], ["verify", "--repair", "--yes"]] {
            let r = try asReader(["--library", team1, "--wait", "0"] + args)
            XCTAssertEqual(r.status, 77, "\(args): \(r.stderr)")
            XCTAssertTrue(
                r.stderr.contains(
                    "library \(team1): the catalog's originals root \(root) cannot be used here: this user may not use it (\(root): Permission denied); nothing was changed"
                ), r.stderr)
        }
        XCTAssertEqual(try PostgresDatabase(url).photoCount(), 1)
        XCTAssertEqual(originalsFiles(root), files)
    }

    /// A team catalog made before the root was recorded (schema version 6, each folder with an
    /// ExternalData of its own): a third folder cannot join without --originals (64, nothing
    /// made); the first command in TEAM1 records TEAM1/ExternalData as the root and says so;
    /// TEAM2 then uses it, and is told that its own ExternalData is not used.
    func testACatalogOfBeforeTheRootRecordsTheFirstFoldersOriginals() throws {
        let team1 = dir + "/TEAM1", team2 = dir + "/TEAM2", team3 = dir + "/TEAM3"
        _ = try photos(["init", "-q", "--database", url, team1])
        _ = try photos(["--library", team1, "import", "-q", samplesDir])
        // Back to what the version before the originals root (migration 10) left: no record, no marker.
        let db = try PostgresDatabase(url)
        try db.execute(
            """
            DROP TABLE catalog_originals; DROP TABLE catalog_folder; DROP TABLE photo_file_state; DROP TABLE photo_signature;
            DROP TABLE library_owner; DROP TABLE place;
            ALTER TABLE photo DROP COLUMN latitude_e7, DROP COLUMN longitude_e7, DROP COLUMN altitude_mm,
                DROP COLUMN kind, DROP COLUMN duration_ms, DROP COLUMN video_codec, DROP COLUMN camera_make,
                DROP COLUMN camera_model, DROP COLUMN lens_model, DROP COLUMN camera_format,
                DROP COLUMN title, DROP COLUMN description, DROP COLUMN content_identifier,
                DROP COLUMN place_name;
            ALTER TABLE photo_data DROP COLUMN role, DROP COLUMN format, ADD CONSTRAINT photo_data_photo_id_key UNIQUE (photo_id);
            UPDATE schema_version SET version = 9
            """
        )
        // (Migrations 13–16's position, kind and original role columns go too: a version-9 catalog
        // has none.)
        try FileManager.default.removeItem(atPath: team1 + "/ExternalData/.photos-originals")
        try FileManager.default.createDirectory(atPath: team2 + "/ExternalData/ab", withIntermediateDirectories: true)
        try PostgresCatalogBackend.record(try ConnectionInfo(url).withoutPassword, root: team2)
        XCTAssertTrue(
            FileManager.default.createFile(atPath: team2 + "/ExternalData/ab/abcdef", contents: Data("x".utf8)))

        let refused = try photos(["init", "--database", url, team3], expect: 64)
        XCTAssertTrue(
            refused.stderr.contains(
                "holds 6 photos but records no originals root (it was made by an earlier photos): give --originals PATH"
            ),
            refused.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: team3 + "/catalog.postgresql"))

        let first = try photos(["--library", team1, "list"])
        XCTAssertTrue(
            first.stderr.contains(
                "the catalog recorded no originals root: recorded \(team1)/ExternalData (this library folder's ExternalData); every library folder on the catalog now uses it"
            ), first.stderr)
        XCTAssertEqual(try db.scalarString("SELECT root FROM catalog_originals"), team1 + "/ExternalData")
        XCTAssertEqual(try db.scalarInt("SELECT version FROM schema_version"), PostgresSchema.currentVersion)
        let id = try XCTUnwrap(try db.scalarString("SELECT catalog_id FROM catalog_originals"))
        XCTAssertEqual(OriginalsMarker.read(root: team1 + "/ExternalData"), .catalog(id))
        // Said once: the next command records nothing.
        XCTAssertFalse(try photos(["--library", team1, "list"]).stderr.contains("recorded"))
        // Only TEAM1 is recorded as having opened it, but others may have before: a photo whose
        // original TEAM1 does not see is not deleted.
        XCTAssertEqual(try db.scalarInt("SELECT unknown_folders FROM catalog_originals"), 1)
        XCTAssertEqual(try db.scalarInt("SELECT count(*) FROM catalog_folder"), 1)
        let sha = try XCTUnwrap(
            try db.scalarString(
                "SELECT d.sha256 FROM photo_data d JOIN photo p ON p.id = d.photo_id WHERE p.display_name = 'kite.png'")
        )
        let original = team1 + "/ExternalData/" + sha.prefix(2) + "/" + sha
        try FileManager.default.moveItem(atPath: original, toPath: dir + "/kite.away")
        let rows = try catalogRows()
        let repair = try photos(["--library", team1, "verify", "--repair", "--yes"], expect: 1)
        XCTAssertTrue(
            repair.stdout.contains(
                "(not repaired: the catalog may be shared by library folders that opened it before photos recorded them, and an original not visible from here may be visible from another;"
            ), repair.stdout)
        XCTAssertEqual(try catalogRows(), rows)
        try FileManager.default.moveItem(atPath: dir + "/kite.away", toPath: original)

        let second = try photos(["--library", team2, "verify"])
        XCTAssertTrue(second.stdout.contains("6 photos, 6 thumbnails and 6 files: 0 problems"), second.stdout)
        XCTAssertTrue(
            second.stderr.contains(
                "\(team2)/ExternalData holds files, but the catalog keeps its originals in \(team1)/ExternalData: they are not used"
            ), second.stderr)
        // The third folder joins now, without --originals.
        XCTAssertTrue(
            try photos(["init", "--database", url, team3]).stdout.contains(
                "joined an existing catalog of 6 photos (originals in \(team1)/ExternalData) in \(display)"))
    }

    /// `init --database --originals PATH` for a new catalog with a PATH that is missing (66) or
    /// holds another catalog's marker (65): refused before anything is made (no folder, no
    /// connection file, no table in the schema).
    func testANewCatalogRefusesAnOriginalsRootItCannotRecord() throws {
        let team1 = dir + "/TEAM1", foreign = dir + "/foreign"
        let missing = try photos(["init", "--database", url, "--originals", dir + "/nowhere", team1], expect: 66)
        XCTAssertTrue(
            missing.stderr.contains("the catalog's originals root \(dir)/nowhere cannot be used here: it is not there"),
            missing.stderr)
        try FileManager.default.createDirectory(atPath: foreign, withIntermediateDirectories: true)
        try OriginalsMarker.write(catalogID: UUID().uuidString.lowercased(), root: foreign)
        let other = try photos(["init", "--database", url, "--originals", foreign, team1], expect: 65)
        XCTAssertTrue(
            other.stderr.contains("--originals \(foreign) holds the originals of another catalog"), other.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: team1))
        XCTAssertEqual(
            try PostgresDatabase(url).scalarInt(
                "SELECT count(*) FROM pg_tables WHERE schemaname = current_schema()"), 0)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/nowhere"))
    }

    /// `catalog set-originals` moves the root (after the files were moved): the marker moves
    /// along, every folder uses the new root; another catalog's folder is refused (65), a
    /// SQLite library has no root to set (64), and `init --originals` naming another root
    /// than the recorded one is refused (64).
    func testSetOriginalsChangesTheRootOfEveryFolder() throws {
        let old = dir + "/old", new = dir + "/new", team1 = dir + "/TEAM1", team2 = dir + "/TEAM2"
        try FileManager.default.createDirectory(atPath: old, withIntermediateDirectories: true)
        _ = try photos(["init", "-q", "--database", url, "--originals", old, team1])
        _ = try photos(["--library", team1, "import", "-q", samplesDir])
        _ = try photos(["init", "-q", "--database", url, team2])
        let refused = try photos(["init", "--database", url, "--originals", new, team2], expect: 64)
        XCTAssertTrue(refused.stderr.contains("keeps its originals in \(old)"), refused.stderr)

        let foreign = dir + "/foreign"
        try FileManager.default.createDirectory(atPath: foreign, withIntermediateDirectories: true)
        try OriginalsMarker.write(catalogID: UUID().uuidString.lowercased(), root: foreign)
        let other = try photos(["--library", team1, "catalog", "set-originals", foreign], expect: 65)
        XCTAssertTrue(other.stderr.contains("holds the originals of another catalog"), other.stderr)
        XCTAssertEqual(try PostgresDatabase(url).scalarString("SELECT root FROM catalog_originals"), old)

        try FileManager.default.moveItem(atPath: old, toPath: new)
        XCTAssertEqual(try photos(["--library", team2, "import", formatSamplesDir], expect: 66).stdout, "")
        let set = try photos(["--library", team2, "catalog", "set-originals", new])
        XCTAssertEqual(
            set.stdout, "The catalog's originals root is now \(new) (was \(old)): 6 of 6 originals are there\n")
        XCTAssertEqual(try PostgresDatabase(url).scalarString("SELECT root FROM catalog_originals"), new)
        XCTAssertTrue(try photos(["--library", team1, "import", formatSamplesDir]).stdout.contains("Imported 3 photos"))
        XCTAssertTrue(
            try photos(["--library", team2, "verify"]).stdout.contains("9 photos, 9 thumbnails and 9 files: 0 problems")
        )

        let solo = dir + "/solo"
        XCTAssertEqual(try runAsGiven(["init", "-q", solo]).status, 0)
        let sqlite = try runAsGiven(["--library", solo, "catalog", "set-originals", new])
        XCTAssertEqual(sqlite.status, 64, sqlite.stderr)
        XCTAssertTrue(sqlite.stderr.contains("only a catalog shared by several library folders"), sqlite.stderr)
        let initSQLite = try runAsGiven(["init", "--originals", new, solo])
        XCTAssertEqual(initSQLite.status, 64, initSQLite.stderr)
        XCTAssertTrue(initSQLite.stderr.contains("--originals goes with a PostgreSQL catalog"), initSQLite.stderr)
        // On a PostgreSQL folder without --database: the recorded root is confirmed, another refused.
        // (runAsGiven: `init` without --database is given one in the PostgreSQL run otherwise.)
        let confirmed = try runAsGiven(["init", "--originals", new, team1])
        XCTAssertEqual(confirmed.status, 0, confirmed.stderr)
        XCTAssertEqual(confirmed.stdout, "Library at \(team1) keeps its originals in \(new)\n")
        let otherRoot = try runAsGiven(["init", "--originals", old, team1])
        XCTAssertEqual(otherRoot.status, 64, otherRoot.stderr)
        XCTAssertTrue(otherRoot.stderr.contains("the catalog keeps its originals in \(new)"), otherRoot.stderr)
    }
}
