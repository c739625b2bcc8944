import Foundation
import PhotosFiles
import PhotosSQLite
import PhotosTestSupport
import XCTest

@testable import PhotosCore

/// Group durability beyond import (issue 15 item 1): export, merge and the heal of a re-import
/// write their files without fsync and make them durable together with one syncfs(2) per batch,
/// before anything that relies on them commits (export state rows, PhotoData rows, the report
/// of a restored original).
final class ExportMergeHealDurabilityTests: ImportTestCase {
    override func tearDown() {
        DurabilityStats.recordEvents(false)
        super.tearDown()
    }

    /// What an observer saw at each syncfs of one path.
    final class Seen: @unchecked Sendable {
        let lock = NSLock()
        var committedRows: [Int] = []
        var missingFiles: [String] = []
        func add(rows: Int, missing: [String]) {
            lock.withLock {
                committedRows.append(rows)
                missingFiles += missing
            }
        }
    }

    /// `count` distinct small JPEGs in `tmp/<folder>`.
    func writePhotos(_ count: Int, folder: String = "in") throws {
        for i in 0..<count {
            let bytes = try MetadataFixture.jpeg(
                seed: i, segments: [MetadataFixture.segment(0xFE, Array("photo \(i)".utf8))])
            _ = try tmp.write("\(folder)/\(i).jpg", bytes)
        }
    }

    /// The fsyncs, and the syncfs calls and commits of `path`, since `recordEvents(true)`.
    func durabilityEvents(of path: String) -> [DurabilityStats.Event] {
        DurabilityStats.events.filter { event in
            switch event {
            case .fsync: return true
            case .syncfs(let p), .commit(let p): return p == path
            }
        }
    }

    /// Integer from a separate read-only connection: what is committed, not what a writer
    /// holds in its open transaction.
    static func committedCount(_ databasePath: String, _ sql: String) -> Int {
        guard let db = try? Database(path: databasePath, readOnly: true, busyTimeout: 5) else { return -1 }
        return ((try? db.scalarInt(sql)) ?? nil) ?? -1
    }

    /// Integer from a separate read-only connection to the catalog of the library folder
    /// `root`: what is committed.
    static func committedCatalogCount(_ root: String, _ sql: String) -> Int {
        guard let db = try? TestCatalog(root: root, readOnly: true) else { return -1 }
        return ((try? db.scalarInt(sql)) ?? nil) ?? -1
    }

    func testExportSyncsOncePerBatchBeforeTheStateRecordsItsFiles() throws {
        try writePhotos(130)
        let library = try makeLibrary()
        XCTAssertEqual(try runImport(library, [tmp.file("in")]).imported, 130)
        let dest = tmp.file("out")
        let statePath = dest + "/" + ExportState.fileName
        let seen = Seen()
        DurabilityStats.recordEvents(true) { event in
            guard case .syncfs(let path) = event, path == dest else { return }
            // Every exported original (and sidecar) is in place; the state holds only the
            // earlier batches' rows.
            let names = (try? FileManager.default.contentsOfDirectory(atPath: dest)) ?? []
            let originals = names.filter { $0.hasSuffix(".jpg") }.count
            seen.add(
                rows: ExportMergeHealDurabilityTests.committedCount(statePath, "SELECT count(*) FROM export_file"),
                missing: originals % 64 == 0 || originals == 130 ? [] : ["\(originals) originals"])
        }
        var options = ExportOptions(destination: dest)
        options.jobs = 2
        let summary = try Exporter(library: library, options: options).run()
        let events = durabilityEvents(of: dest)
        DurabilityStats.recordEvents(false)

        XCTAssertEqual(summary.written, 130, "\(summary.failures)")
        XCTAssertEqual(summary.failed, 0)
        // Three batches (64, 64, 2): one syncfs each, no fsync of any file or folder.
        XCTAssertEqual(events, Array(repeating: .syncfs(dest), count: 3))
        // Original + XMP sidecar per photo: 0, 128, 256 rows committed when each batch syncs.
        XCTAssertEqual(seen.committedRows, [0, 128, 256])
        XCTAssertEqual(seen.missingFiles, [])
        XCTAssertEqual(
            ExportMergeHealDurabilityTests.committedCount(statePath, "SELECT count(*) FROM export_file"), 260)
        // The bytes are the library's.
        for i in [0, 64, 129] {
            XCTAssertEqual(
                try Data(contentsOf: URL(fileURLWithPath: dest + "/\(i).jpg")),
                try Data(contentsOf: URL(fileURLWithPath: tmp.file("in/\(i).jpg"))))
        }
    }

    func testExportWithOneJobWritesTheSameFilesAsWithSeveral() throws {
        try writePhotos(9)
        let library = try makeLibrary()
        XCTAssertEqual(try runImport(library, [tmp.file("in")]).imported, 9)
        var trees: [[String: String]] = []
        for jobs in [1, 3] {
            var options = ExportOptions(destination: tmp.file("out\(jobs)"))
            options.jobs = jobs
            options.batchSize = 4
            options.thumbnails = true
            let summary = try Exporter(library: library, options: options).run()
            XCTAssertEqual(summary.written, 9, "\(summary.failures)")
            let root = tmp.file("out\(jobs)")
            var tree: [String: String] = [:]
            for name in filesUnder(root) where !name.contains(".photos-export") {
                tree[name] = sha256(ofFile: root + "/" + name)
            }
            trees.append(tree)
        }
        XCTAssertEqual(trees[0].count, 27) // original, .xmp and .thumb.jpg of each photo
        XCTAssertEqual(trees[0], trees[1])
    }

    func testDryRunExportSyncsNothing() throws {
        try writePhotos(3)
        let library = try makeLibrary()
        XCTAssertEqual(try runImport(library, [tmp.file("in")]).imported, 3)
        DurabilityStats.recordEvents(true)
        var options = ExportOptions(destination: tmp.file("out"))
        options.dryRun = true
        let summary = try Exporter(library: library, options: options).run()
        let syncs = DurabilityStats.events.filter {
            if case .commit = $0 { return false } else { return true }
        }
        DurabilityStats.recordEvents(false)
        XCTAssertEqual(summary.written, 3)
        XCTAssertEqual(syncs, [])
        XCTAssertFalse(FileManager.default.fileExists(atPath: tmp.file("out")))
    }

    func testMergeSyncsOnceBeforeItsRowsCommit() throws {
        try writePhotos(70, folder: "other-in")
        let other = try Library(root: tmp.file("other"), create: true)
        var options = ImportOptions(paths: [tmp.file("other-in")])
        options.jobs = 2
        XCTAssertEqual(
            try Importer(library: other, libraryRoot: tmp.file("other"), options: options).run().imported, 70)
        let library = try makeLibrary()
        let root = library.externalData.root
        let libraryRoot = library.root
        let seen = Seen()
        DurabilityStats.recordEvents(true) { event in
            guard case .syncfs(let path) = event, path == root else { return }
            let files = ExternalDataStore(root: root).allReferences().count
            seen.add(
                rows: ExportMergeHealDurabilityTests.committedCatalogCount(
                    libraryRoot, "SELECT count(*) FROM photo_data"),
                missing: files == 70 ? [] : ["\(files) of 70 originals"])
        }
        let report = try library.merge(from: other)
        let events = durabilityEvents(of: root)
        DurabilityStats.recordEvents(false)

        XCTAssertEqual(report.photos, 70)
        XCTAssertEqual(report.filesCopied, 70)
        // One syncfs for the whole merge (one transaction), no fsync per copied original.
        XCTAssertEqual(events, [.syncfs(root)])
        // At the sync every original is in place and none of the rows is committed yet.
        XCTAssertEqual(seen.committedRows, [0])
        XCTAssertEqual(seen.missingFiles, [])
        XCTAssertEqual(
            ExportMergeHealDurabilityTests.committedCatalogCount(libraryRoot, "SELECT count(*) FROM photo_data"), 70)
    }

    func testReimportHealSyncsOnceBeforeReportingRestoredOriginals() throws {
        try writePhotos(5)
        let library = try makeLibrary()
        XCTAssertEqual(try runImport(library, [tmp.file("in")]).imported, 5)
        let root = library.externalData.root
        let references = library.externalData.allReferences().sorted()
        XCTAssertEqual(references.count, 5)
        // Two originals lost, one damaged (same size, one byte changed).
        for ref in references.prefix(2) { XCTAssertEqual(unlink(root + "/" + ref), 0) }
        let damaged = root + "/" + references[2]
        var bytes = try Data(contentsOf: URL(fileURLWithPath: damaged))
        bytes[bytes.count / 2] ^= 0xFF
        try bytes.write(to: URL(fileURLWithPath: damaged))

        let seen = Seen()
        let restoredAtSync = Seen()
        DurabilityStats.recordEvents(true) { event in
            guard case .syncfs(let path) = event, path == root else { return }
            let missing = references.filter { !FileManager.default.fileExists(atPath: root + "/" + $0) }
            seen.add(rows: 0, missing: missing)
        }
        let importer = Importer(
            library: library, libraryRoot: tmp.file("lib"),
            options: {
                var o = ImportOptions(paths: [tmp.file("in")])
                o.jobs = 2
                return o
            }())
        importer.onRestore = { _ in
            // Reported only after the sync that made it durable.
            let syncs = DurabilityStats.events.filter { $0 == .syncfs(root) }.count
            restoredAtSync.add(rows: syncs, missing: [])
        }
        let summary = try importer.run()
        let events = durabilityEvents(of: root)
        DurabilityStats.recordEvents(false)

        XCTAssertEqual(summary.restored, 3)
        XCTAssertEqual(summary.imported, 0)
        XCTAssertEqual(summary.duplicates, 2)
        // One syncfs for the three restored originals, no fsync; nothing new to commit.
        XCTAssertEqual(events, [.syncfs(root)])
        XCTAssertEqual(seen.missingFiles, [])
        XCTAssertEqual(restoredAtSync.committedRows, [1, 1, 1])
        for i in 0..<5 {
            let sha = sha256(ofFile: tmp.file("in/\(i).jpg"))
            XCTAssertEqual(sha256(ofFile: root + "/" + ExternalDataStore.reference(for: sha)), sha, "\(i)")
        }
    }
}
