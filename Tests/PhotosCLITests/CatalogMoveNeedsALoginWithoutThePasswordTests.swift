import Foundation
import PhotosPostgreSQL
import PhotosTestSupport
import XCTest

/// The library folder records a PostgreSQL connection without its password, so a `catalog
/// move --to` whose password only the command line knows would leave a library no later
/// command can open: the move refuses it (64) before copying, and the library stays on its
/// catalog, usable. The password appears nowhere.
final class CatalogMoveNeedsALoginWithoutThePasswordTests: BinaryTestCase {
    override var label: String { "photos-move-password" }

    private var drops: [@Sendable () -> Void] = []

    override func tearDown() {
        for drop in drops { drop() }
        drops = []
        super.tearDown()
    }

    func testAPasswordOnlyTheCommandLineKnowsIsRefused() throws {
        let base = try TestDatabase.requirePostgres()
        let info = try ConnectionInfo(base)
        let admin = try PostgresDatabase(base)
        let suffix = UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(12)
        let user = "photos_pw_\(suffix)", db = "photos_pw_\(suffix)"
        // A server whose pg_hba.conf trusts everyone logs in without a password anyway: then
        // there is nothing to refuse. Members of the group `photos_pw` are the test's users: a
        // pg_hba.conf line `host all +photos_pw 127.0.0.1/32 scram-sha-256` makes them log in
        // with a password only.
        let secret = "Pw-\(suffix)"
        try admin.execute(
            "DO $$ BEGIN CREATE ROLE photos_pw NOLOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$")
        try admin.execute("CREATE ROLE \(user) LOGIN PASSWORD '\(secret)' IN ROLE photos_pw")
        try admin.execute("CREATE DATABASE \(db) OWNER \(user)")
        drops.append {
            if let admin = try? PostgresDatabase(base) {
                try? admin.execute("DROP DATABASE IF EXISTS \(db) WITH (FORCE)")
                try? admin.execute("DROP ROLE IF EXISTS \(user)")
            }
        }
        let bare = info.setting("user", to: user).setting("dbname", to: db)
        let loginNeedsPassword = (try? PostgresDatabase(bare.connectionString)) == nil
        let target = bare.setting("password", to: secret).connectionString
        let lib = dir + "/lib"
        XCTAssertEqual(try run(["--library", lib, "import", "-q", samplesDir]).status, 0)
        let before = try run(["--library", lib, "list", "--json"])
        let r = try run(["--library", lib, "catalog", "move", "--to", target])
        XCTAssertFalse((r.stdout + r.stderr).contains(secret), r.stderr)
        let folder = try FileManager.default.contentsOfDirectory(atPath: lib)
        for name in folder where !name.hasPrefix("ExternalData") {
            let text = String(decoding: FileManager.default.contents(atPath: lib + "/" + name) ?? Data(), as: UTF8.self)
            XCTAssertFalse(text.contains(secret), name)
        }
        let after = try run(["--library", lib, "list", "--json"])
        XCTAssertEqual(after.status, 0, "the library opens after the move command: \(after.stderr)")
        XCTAssertEqual(after.stdout, before.stdout)
        guard loginNeedsPassword else { return XCTAssertEqual(r.status, 0, r.stderr) }
        XCTAssertEqual(r.status, 64, r.stderr)
        XCTAssertTrue(r.stderr.contains("does not log in without the password"), r.stderr)
        XCTAssertEqual(try PostgresDatabase(target).scalarInt("SELECT count(*) FROM photo") ?? 0, 0)
    }
}
