import Foundation
import PhotosPostgreSQL
import PhotosTestSupport
import XCTest

/// Several `photos import` processes into one PostgreSQL catalog at once (issue 12 item 3):
/// overlapping folders, the same bytes under different names, every distinct original ends up
/// exactly once, no importer fails, and `verify` is clean.
final class PostgresConcurrentImportTests: BinaryTestCase {
    func testFourImportersOfOverlappingFoldersStoreEachOriginalOnce() throws {
        let (schema, drop) = try { () -> (String, @Sendable () -> Void) in
            let made = try TestDatabase.makeSchema()
            return (made.connectionString, made.drop)
        }()
        defer { drop() }
        let library = dir + "/lib"
        let created = try run(["init", "--database", schema, library])
        XCTAssertEqual(created.status, 0, created.stderr)

        // 24 distinct originals; folder k holds the files whose index is not ≡ k (mod 4), so each
        // original is in three folders, under another name in one of them.
        let (input, count) = try makeInput(copies: 4)
        let files = try FileManager.default.contentsOfDirectory(atPath: input).sorted()
        XCTAssertEqual(files.count, count)
        var folders: [String] = []
        for k in 0..<4 {
            let folder = dir + "/folder\(k)"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            for (i, name) in files.enumerated() where i % 4 != k {
                let target = k == (i + 1) % 4 ? "renamed-\(k)-\(name)" : name
                try FileManager.default.copyItem(atPath: input + "/" + name, toPath: folder + "/" + target)
            }
            folders.append(folder)
        }
        // Four processes at once (not a thread pool, which a 2-core machine runs two at a time).
        var processes: [(Process, String)] = []
        for k in 0..<4 {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: try binary())
            process.arguments = ["import", "--library", library, "--jobs", "2", folders[k], folders[(k + 1) % 4]]
            let log = dir + "/import\(k).log"
            XCTAssertTrue(FileManager.default.createFile(atPath: log, contents: nil))
            let handle = try XCTUnwrap(FileHandle(forWritingAtPath: log))
            process.standardOutput = handle
            process.standardError = handle
            try process.run()
            processes.append((process, log))
        }
        for (process, log) in processes {
            process.waitUntilExit()
            let output = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            XCTAssertEqual(process.terminationStatus, 0, output)
        }
        let db = try PostgresDatabase(schema)
        XCTAssertEqual(try db.photoCount(), count)
        XCTAssertEqual(try db.scalarInt("SELECT count(DISTINCT sha256) FROM photo_data"), count)
        XCTAssertEqual(try db.scalarInt("SELECT count(*) FROM thumbnail"), count)
        XCTAssertTrue(try db.photosSharingOriginals().isEmpty)
        // One history insert of each photo, in transactions whose tokens all differ.
        XCTAssertEqual(
            try db.scalarInt("SELECT count(*) FROM history_change WHERE entity = 'Photo' AND type = 'insert'"), count)
        let stored = try FileManager.default.subpathsOfDirectory(atPath: library + "/ExternalData")
            .filter { !$0.contains("/.") && $0.split(separator: "/").count == 2 }
        XCTAssertEqual(stored.count, count, "one original file each, no orphans")
        let verify = try run(["verify", "--library", library])
        XCTAssertEqual(verify.status, 0, verify.stdout + verify.stderr)
        XCTAssertTrue(verify.stdout.contains("0 problems"), verify.stdout)
    }
}
