import Foundation
import XCTest
import PhotosTestSupport
import PhotosSQLite

/// Where schema migration 2 (issue 9 item 6: local capture time, `capture_offset`,
/// `capture_source`) meets read-only libraries (item 10) and dry runs (item 1). The rules:
/// - a command run by a user who can write a version-1 library migrates it, as before;
/// - a read command on a version-1 library this user may not write exits 77 and says who must
///   run `photos init` (this build cannot read the version-1 photo table, and cannot migrate);
/// - a dry run never migrates: on a version-1 library it exits 65 asking for `photos init`,
///   and the library stays byte for byte as it was;
/// - `merge --from` reads a version-1 library as it is (never writing it), its capture times
///   taken the way migration 2 converts them.

final class SchemaVersion1Tests: BinaryTestCase {
    override var label: String { "photos-schema1" }

    func json(_ line: Substring) throws -> [String: Any] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    func snapshot(_ roots: [String]) throws -> [String] {
        try roots.flatMap { try LibrarySnapshot.dumpDatabase($0 + "/photos.sqlite") + LibrarySnapshot.fileTree($0) }
    }

    /// A version-1 library with the samples, a share, and one photo whose version-1 capture
    /// date is the example (23:30 on 31 December, stored as if UTC).
    func makeVersion1Library(_ lib: String) throws -> (photo: String, share: String) {
        XCTAssertEqual(try run(["--library", lib, "import", "-q", samplesDir]).status, 0)
        let first = try XCTUnwrap(try run(["--library", lib, "list", "--json"]).stdout.split(separator: "\n").first)
        let photo = try XCTUnwrap(try json(first)["uniqueName"] as? String)
        let created = try run([
            "--library", lib, "share", "create", "--title", "Trip", "--owner", "me@example.com", photo, "--json"
        ])
        let share = try XCTUnwrap(
            try json(Substring(created.stdout.trimmingCharacters(in: .newlines)))["id"] as? String)
        try downgradeToSchemaVersion1(lib)
        let db = try Database(path: lib + "/photos.sqlite")
        try db.run("UPDATE photo SET capture_date = '2024-12-31T23:30:00Z' WHERE unique_name = ?", [photo])
        try db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return (photo, share)
    }

    /// A dry run never migrates: every `--dry-run` on a version-1 library exits 65, names the
    /// schema version and asks for `photos init`, and changes no byte; after `init` the same
    /// dry runs work.
    func testDryRunsOnAVersion1LibraryMigrateNothingAndAskForInit() throws {
        try TestDatabase.requireSQLite(
            because: "a SQLite file schema version 1 wrote (PostgreSQL catalogs start at the current schema)")
        let lib = dir + "/lib", other = dir + "/other"
        let (_, share) = try makeVersion1Library(lib)
        XCTAssertEqual(try run(["--library", other, "import", "-q", samplesDir + "/storm.jpg"]).status, 0)
        let input = dir + "/in"
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: samplesDir + "/storm.jpg", toPath: input + "/storm.jpg")
        let dryRuns: [[String]] = [
            ["import", "--dry-run", input], ["merge", "--from", other, "--dry-run"],
            ["purge", "--share", share, "--dry-run"],
            ["dedupe-tags", "--dry-run"], ["history", "compact", "--before-token", "99", "--force", "--dry-run"],
            ["verify", "--repair", "--dry-run"], ["export", dir + "/out", "--dry-run"]
        ]
        let before = try snapshot([lib, other])
        XCTAssertTrue(before.contains("user_version=1"))
        for args in dryRuns {
            let result = try run(["--library", lib] + args)
            XCTAssertEqual(result.status, 65, "\(args): \(result.stdout) \(result.stderr)")
            XCTAssertTrue(
                result.stderr.contains(
                    "library \(lib) has schema version 1 and must be upgraded to \(Schema.currentVersion) first"),
                "\(args): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains("run 'photos init'"), "\(args): \(result.stderr)")
            XCTAssertEqual(try snapshot([lib, other]), before, "\(args) changed a library")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/out"), "export --dry-run created DEST")
        XCTAssertEqual(try run(["--library", lib, "init", "-q"]).status, 0)
        for args in dryRuns {
            let result = try run(["--library", lib] + args)
            XCTAssertEqual(result.status, 0, "\(args) after init: \(result.stderr)")
        }
    }

    /// A read command run by a user who may write a version-1 library migrates it (as every
    /// command did before): the example keeps its wall-clock value, offset unknown.
    func testAReadCommandMigratesAVersion1LibraryItsUserMayWrite() throws {
        try TestDatabase.requireSQLite(
            because: "a SQLite file schema version 1 wrote (PostgreSQL catalogs start at the current schema)")
        let lib = dir + "/lib"
        let (photo, _) = try makeVersion1Library(lib)
        let shown = try run(["--library", lib, "show", photo, "--json"])
        XCTAssertEqual(shown.status, 0, shown.stderr)
        let object = try json(Substring(shown.stdout.trimmingCharacters(in: .newlines)))
        XCTAssertEqual(object["captureDate"] as? String, "2024-12-31T23:30:00")
        XCTAssertTrue(object["captureOffset"] is NSNull, "\(object)")
        XCTAssertEqual(object["captureSource"] as? String, "exif")
        let db = try Database(path: lib + "/photos.sqlite", readOnly: true)
        XCTAssertEqual(try db.userVersion, Schema.currentVersion)
        let since = try run(["--library", lib, "list", "--since", "2024-12-31", "--until", "2024-12-31", "--json"])
        XCTAssertEqual(since.stdout.split(separator: "\n").count, 1, since.stdout + since.stderr)
    }

    /// `merge --from` a version-1 library reads it as it is (it is never written, a dry run
    /// neither): its capture dates arrive as migration 2 converts them.
    func testMergeFromAVersion1LibraryReadsItWithoutMigratingIt() throws {
        try TestDatabase.requireSQLite(
            because: "a SQLite file schema version 1 wrote (PostgreSQL catalogs start at the current schema)")
        let a = dir + "/A", b = dir + "/B"
        let (photo, _) = try makeVersion1Library(a)
        let versionOneRows = try Statement.prepare(
            try Database(path: a + "/photos.sqlite", readOnly: true),
            "SELECT count(*) FROM photo WHERE capture_date IS NOT NULL"
        ).map { $0.int(0) }
        XCTAssertEqual(try run(["--library", b, "init", "-q"]).status, 0)
        let before = try snapshot([a])
        let dry = try run(["--library", b, "merge", "--from", a, "--dry-run", "--json"])
        XCTAssertEqual(dry.status, 0, dry.stderr)
        XCTAssertTrue(dry.stdout.contains("\"photos\":6"), dry.stdout)
        let merged = try run(["--library", b, "merge", "--from", a, "--json"])
        XCTAssertEqual(merged.status, 0, merged.stderr)
        XCTAssertTrue(merged.stdout.contains("\"photos\":6"), merged.stdout)
        XCTAssertEqual(try snapshot([a]), before, "merge wrote the other library")
        let shown = try run(["--library", b, "show", photo, "--json"])
        let object = try json(Substring(shown.stdout.trimmingCharacters(in: .newlines)))
        XCTAssertEqual(object["captureDate"] as? String, "2024-12-31T23:30:00")
        XCTAssertTrue(object["captureOffset"] is NSNull, "\(object)")
        XCTAssertEqual(object["captureSource"] as? String, "exif")
        let db = try Database(path: b + "/photos.sqlite", readOnly: true)
        let rows = try Statement.prepare(
            db,
            "SELECT count(*) FROM photo WHERE capture_date IS NOT NULL AND capture_source = 'exif' AND capture_offset IS NULL AND capture_date NOT LIKE '%Z'"
        ).map { $0.int(0) }
        XCTAssertEqual(rows, versionOneRows, "every version-1 capture date arrives as a wall-clock time of source exif")
        XCTAssertEqual(
            try Statement.prepare(
                db, "SELECT count(*) FROM photo WHERE capture_date IS NULL AND capture_source IS NOT NULL"
            ).map { $0.int(0) }, [0])
    }
}
