import Foundation
import PhotosTestSupport
import XCTest

/// Every `catalog move` keeps the catalog it leaves under a name of its own: two moves in the
/// same second (or a file of that name already there) must not rename one kept catalog, or
/// kept connection, over another.
final class CatalogMoveKeepsEveryOldCatalogTests: BinaryTestCase {
    override var label: String { "photos-move-kept" }

    private var drops: [@Sendable () -> Void] = []

    override func tearDown() {
        for drop in drops { drop() }
        drops = []
        super.tearDown()
    }

    private func ok(_ args: [String], file: StaticString = #filePath, line: UInt = #line) throws {
        let r = try run(args)
        XCTAssertEqual(r.status, 0, "\(args): \(r.stderr)", file: file, line: line)
    }

    func testMovesInTheSameSecondKeepEveryOldCatalog() throws {
        _ = try TestDatabase.requirePostgres() // the moves go to schemas on the test server
        let lib = dir + "/lib"
        // A SQLite library whatever the run's backend.
        let imported = try runAsGiven(["--library", lib, "import", "-q", samplesDir])
        XCTAssertEqual(imported.status, 0, imported.stderr)
        guard FileManager.default.fileExists(atPath: lib + "/photos.sqlite") else {
            throw SetUpFailure("the import made no SQLite catalog in \(lib)")
        }
        // Kept names of this second and the next minute are taken already: each move finds
        // its own name taken, as a second move in the same second does.
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        var decoys: [String: String] = [:]
        let now = Date()
        for second in -1...60 {
            let time = formatter.string(from: now.addingTimeInterval(Double(second)))
            for name in ["photos.sqlite", "catalog.postgresql"] {
                let path = lib + "/\(name).moved-\(time)"
                decoys[path] = "kept before \(name) \(time)\n"
                try XCTUnwrap(decoys[path]).write(toFile: path, atomically: false, encoding: .utf8)
            }
        }
        let rounds = 2
        for _ in 0..<rounds {
            let made = try TestDatabase.makeSchema()
            drops.append(made.drop)
            try ok(["--library", lib, "-q", "catalog", "move", "--to", made.connectionString])
            try ok(["--library", lib, "-q", "catalog", "move", "--to", "sqlite"])
        }
        for (path, text) in decoys {
            XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), text, path)
        }
        let names = try FileManager.default.contentsOfDirectory(atPath: lib)
        let kept = names.filter { $0.contains(".moved-") && !decoys.keys.contains(lib + "/" + $0) }
        XCTAssertEqual(
            kept.filter { $0.hasPrefix("photos.sqlite.moved-") && !$0.hasSuffix("-wal") && !$0.hasSuffix("-shm") }
                .count, rounds, "\(kept)")
        XCTAssertEqual(kept.filter { $0.hasPrefix("catalog.postgresql.moved-") }.count, rounds, "\(kept)")
        for name in kept
        where name.hasPrefix("photos.sqlite.moved-") && !name.hasSuffix("-wal") && !name.hasSuffix("-shm") {
            let header = try XCTUnwrap(FileManager.default.contents(atPath: lib + "/" + name)).prefix(16)
            XCTAssertEqual(Array(header), Array("SQLite format 3\0".utf8), name)
        }
        let list = try run(["--library", lib, "list", "--json"])
        XCTAssertEqual(list.stdout.split(separator: "\n").count, 6, list.stderr)
    }
}
