import Foundation
import XCTest
import PhotosTestSupport
import PhotosFiles
@testable import PhotosCore
import PhotosSQLite

final class ImportTests: ImportTestCase {
    func testImportsSamplesWithUprightThumbnailsRowsFilesAndHistory() throws {
        let library = try makeLibrary()
        let summary = try runImport(library, [samplesDir])
        XCTAssertEqual(summary.imported, 6)
        XCTAssertEqual(summary.failed, 0, "\(summary.failures)")
        // README.md, make-samples.sh and the cron samples are skipped; the .xmp sidecar is not counted.
        let others = (FileManager.default.enumerator(atPath: samplesDir)?.allObjects as? [String] ?? []).filter {
            name in
            var isDir: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: samplesDir + "/" + name, isDirectory: &isDir)
            return !isDir.boolValue && !["jpg", "png", "xmp"].contains((name as NSString).pathExtension)
        }
        XCTAssertGreaterThanOrEqual(others.count, 2)
        XCTAssertEqual(summary.skipped, others.count)
        let expectedBytes = try [
            "colorful-cups-progressive.jpg", "dune-orientation6.jpg", "kite.png", "ladybird.jpg", "path.jpg",
            "storm.jpg"
        ]
        .reduce(0) {
            $0 + ((try FileManager.default.attributesOfItem(atPath: samplesDir + "/" + $1)[.size] as? Int) ?? 0)
        }
        XCTAssertEqual(summary.bytes, Int64(expectedBytes))

        var photos: [String: PhotoRecord] = [:]
        try library.forEachPhoto(matching: PhotoFilter()) { photos[$0.displayName] = $0 }
        XCTAssertEqual(photos.count, 6)
        // Stored 1000×1600 with EXIF Orientation 6: upright 1600×1000, thumbnail 120×75.
        let dune = try XCTUnwrap(photos["dune-orientation6.jpg"])
        XCTAssertEqual([dune.width, dune.height, dune.orientation.rawValue], [1600, 1000, 6])
        XCTAssertEqual([dune.thumbnailWidth, dune.thumbnailHeight], [120, 75])
        // EXIF DateTimeOriginal without OffsetTimeOriginal: local wall-clock time, no zone (issue 9 item 6).
        XCTAssertEqual(dune.captureDate, "2007-08-06T10:29:13")
        XCTAssertEqual(dune.captureSource, "exif")
        let kite = try XCTUnwrap(photos["kite.png"])
        XCTAssertEqual([kite.width, kite.height, kite.thumbnailWidth, kite.thumbnailHeight], [1024, 640, 120, 75])
        XCTAssertEqual(kite.format, .png)
        // No EXIF date: the file's modification time, with the source recorded.
        XCTAssertEqual(kite.captureSource, "file-mtime")
        XCTAssertNotNil(kite.captureDate)
        // Sidecar: keywords and rating.
        let ladybird = try XCTUnwrap(photos["ladybird.jpg"])
        XCTAssertEqual(ladybird.tags, ["Insect", "Nature"])
        XCTAssertEqual(ladybird.ratings, [4])
        XCTAssertEqual(ladybird.rating, 4)

        // Originals are byte-identical copies named by SHA-256.
        for photo in photos.values {
            let stored = library.externalData.path(for: photo.fileReference)
            XCTAssertTrue(
                FileManager.default.contentsEqual(atPath: stored, andPath: samplesDir + "/" + photo.displayName))
            XCTAssertEqual(photo.fileReference, String(photo.sha256.prefix(2)) + "/" + photo.sha256)
        }
        // Thumbnails are JPEG.
        let thumb = try library.thumbnailData(of: dune)
        XCTAssertEqual(Array(thumb.prefix(3)), [0xFF, 0xD8, 0xFF])

        // History: import transactions (one per committed batch) with 6 Photo inserts, 4 Tag inserts
        // (Nature, Insect from ladybird's sidecar; Close-up, Colors embedded in colorful-cups), 2 Rating inserts.
        XCTAssertEqual(
            try library.catalog.scalarInt(
                "SELECT count(*) FROM history_transaction WHERE author <> 'photos' OR context <> 'import'"), 0)
        XCTAssertGreaterThanOrEqual(try library.catalog.scalarInt("SELECT count(*) FROM history_transaction") ?? 0, 1)
        XCTAssertEqual(
            try library.catalog.scalarInt(
                "SELECT count(*) FROM history_change WHERE entity = 'Photo' AND type = 'insert'"),
            6)
        XCTAssertEqual(
            try library.catalog.scalarInt(
                "SELECT count(*) FROM history_change WHERE entity = 'Tag' AND type = 'insert'"), 4)
        XCTAssertEqual(
            try library.catalog.scalarInt(
                "SELECT count(*) FROM history_change WHERE entity = 'Rating' AND type = 'insert'"),
            2)

        let again = try runImport(library, [samplesDir])
        XCTAssertEqual([again.imported, again.duplicates, again.failed], [0, 6, 0])
        XCTAssertTrue(try library.verify().isClean)
    }

    func testTagsAreFoundOrCreatedOnceAndNFCNormalized() throws {
        let library = try makeLibrary()
        _ = try runImport(library, [samplesDir + "/storm.jpg", samplesDir + "/path.jpg"]) {
            $0.tags = ["Cafe\u{301}", "  Trip "]
        }
        _ = try runImport(library, [samplesDir + "/kite.png"]) { $0.tags = ["Caf\u{E9}"] }
        let tags = try library.catalog.statement("SELECT name, zone_id FROM tag ORDER BY name").map {
            [$0.string(0), $0.string(1)]
        }
        XCTAssertEqual(tags, [["Caf\u{E9}", "default"], ["Trip", "default"]])
        XCTAssertEqual(
            try library.catalog.scalarInt(
                "SELECT count(*) FROM photo_tag pt JOIN tag t ON t.id = pt.tag_id WHERE t.name = ?", ["Caf\u{E9}"]), 3)
        XCTAssertThrowsError(try runImport(library, [samplesDir + "/ladybird.jpg"]) { $0.tags = ["bad\u{7}name"] }) {
            XCTAssertEqual($0 as? ValueError, .tagNameControlCharacters(shown: #""bad\u0007name""#))
        }
        XCTAssertThrowsError(try runImport(library, [samplesDir + "/ladybird.jpg"]) { $0.tags = ["   "] })
        XCTAssertEqual(
            try library.catalog.scalarInt("SELECT count(*) FROM photo"), 3, "a refused --tag imports nothing")
    }

    func testTypeComesFromBytesNotTheName() throws {
        let library = try makeLibrary()
        _ = try tmp.write("in/notes.txt", Array("hello".utf8))
        _ = try tmp.write("in/fake.jpg", Array("GIF8 not really".utf8))
        _ = try tmp.write("in/empty.PNG", [])
        _ = try tmp.copy(samplesDir + "/storm.jpg", as: "in/storm.dat") // a JPEG with another extension
        _ = try tmp.copy(samplesDir + "/kite.png", as: "in/.hidden/kite.png")
        _ = try tmp.copy(samplesDir + "/path.jpg", as: "in/.dotfile.jpg")
        let summary = try runImport(library, [tmp.file("in")])
        XCTAssertEqual(summary.imported, 1)
        XCTAssertEqual(summary.skipped, 1)
        XCTAssertEqual(summary.failed, 2)
        let reasons = Dictionary(
            uniqueKeysWithValues: summary.failures.map { (($0.path as NSString).lastPathComponent, $0.reason) })
        XCTAssertEqual(
            reasons["fake.jpg"],
            "not a JPEG, PNG, HEIF, AVIF, WebP, TIFF, GIF, JPEG XL or camera RAW file (its name says .jpg, its bytes start with 0x47 0x49 0x46 0x38)"
        )
        XCTAssertEqual(
            reasons["empty.PNG"],
            "empty file (0 bytes), not a JPEG, PNG, HEIF, AVIF, WebP, TIFF, GIF, JPEG XL or camera RAW")
        XCTAssertEqual(summary.failures.first?.path.hasPrefix(tmp.file("in")), true, "failures carry the full path")

        let hidden = try runImport(library, [tmp.file("in")]) { $0.includeHidden = true }
        XCTAssertEqual(hidden.imported, 2, "hidden folder and file are read with --hidden")
    }

    func testSymlinkLoopsAreWalkedOnce() throws {
        let library = try makeLibrary()
        _ = try tmp.copy(samplesDir + "/storm.jpg", as: "tree/a/storm.jpg")
        try FileManager.default.createSymbolicLink(
            atPath: tmp.file("tree/a/loop"), withDestinationPath: tmp.file("tree"))
        try FileManager.default.createSymbolicLink(atPath: tmp.file("tree/self"), withDestinationPath: ".")
        let files = try FileScanner().scan([tmp.file("tree")])
        XCTAssertEqual(files, [tmp.file("tree/a/storm.jpg")])
        let summary = try runImport(library, [tmp.file("tree")])
        XCTAssertEqual([summary.imported, summary.duplicates], [1, 0])
    }

    func testBusyLibraryRefusesBeforeWritingAnyOriginal() throws {
        _ = try makeLibrary()
        let library = try Library(root: tmp.file("lib"), create: false, busyTimeout: 0.2)
        let holder = try TestCatalog(root: library.root)
        try holder.beginWriteTransaction()
        XCTAssertThrowsError(try runImport(library, [samplesDir]) { $0.batchSize = 1 }) {
            XCTAssertEqual(($0 as? LibraryError)?.isBusy, true)
            XCTAssertTrue("\($0)".contains("library \(self.tmp.file("lib")) is busy"), "\($0)")
        }
        try holder.rollback()
        XCTAssertEqual(library.externalData.allReferences(), [], "no original was written, so no orphan is left")
        XCTAssertEqual(try runImport(library, [samplesDir]).imported, 6, "the same import then completes")
    }

    func testFIFOsBadNamesAndDanglingLinksAreCountedNeverDroppedOrBlocking() throws {
        let library = try makeLibrary()
        _ = try tmp.copy(samplesDir + "/storm.jpg", as: "in/good.jpg")
        XCTAssertEqual(mkfifo(tmp.file("in/fifo.jpg"), 0o644), 0)
        XCTAssertEqual(mkfifo(tmp.file("in/fifo.txt"), 0o644), 0)
        try FileManager.default.createSymbolicLink(
            atPath: tmp.file("in/dangling.png"), withDestinationPath: tmp.file("nowhere"))
        // A name that is not UTF-8 (bytes 0xFF 0xFE), which a Swift String path cannot name.
        let badName: [UInt8] = Array(tmp.file("in/bad").utf8) + [0xFF, 0xFE] + Array(".jpg".utf8) + [0]
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: samplesDir + "/path.jpg")))
        let fd = badName.withUnsafeBufferPointer {
            $0.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_WRONLY | O_CREAT, 0o644) }
        }
        XCTAssertGreaterThanOrEqual(fd, 0)
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)

        let summary = try runImport(library, [tmp.file("in")])
        XCTAssertEqual([summary.imported, summary.skipped, summary.failed], [1, 1, 3], "\(summary.failures)")
        let reasons = Dictionary(
            uniqueKeysWithValues: summary.failures.map { (($0.path as NSString).lastPathComponent, $0.reason) })
        XCTAssertEqual(reasons["fifo.jpg"], "not a regular file (a FIFO)")
        XCTAssertEqual(reasons["dangling.png"], "cannot read: No such file or directory")
        XCTAssertEqual(reasons["bad\u{FFFD}\u{FFFD}.jpg"], "file name is not valid UTF-8; rename it to import it")

        let explicit = try runImport(library, [tmp.file("in/fifo.jpg")])
        XCTAssertEqual(
            [explicit.imported, explicit.failed], [0, 1], "a FIFO given by name is a failure, not a silent no-op")
        // A path that became a FIFO after the scan is refused by the read itself, without blocking.
        XCTAssertThrowsError(try ImageFile.read(path: tmp.file("in/fifo.jpg"), maxBytes: Int.max)) {
            XCTAssertEqual(($0 as? FileError)?.message, tmp.file("in/fifo.jpg") + ": not a regular file (a FIFO)")
            XCTAssertEqual(($0 as? FileError)?.reason, "not a regular file (a FIFO)")
            XCTAssertEqual(($0 as? FileError)?.kind, .noInput)
        }
    }

    func testRepairLeavesARunningImportsUncommittedOriginalsAlone() throws {
        let library = try makeLibrary()
        _ = try tmp.write("lib/ExternalData/ab/ab" + String(repeating: "0", count: 62), [1, 2, 3])
        // An import holds the shared lock for its whole run (here: taken as the importer does).
        let importing = try XCTUnwrap(library.lockImports(exclusive: false))
        let during = try library.verify(repair: true)
        XCTAssertEqual(during.problems.map(\.kind), ["orphan-file"])
        XCTAssertFalse(during.isClean, "not removed while an import may still commit it")
        XCTAssertTrue(during.problems[0].detail.contains("an import is running"), during.problems[0].detail)
        XCTAssertEqual(library.externalData.allReferences().count, 1)
        close(importing)
        let after = try library.verify(repair: true)
        XCTAssertTrue(after.isClean)
        XCTAssertEqual(library.externalData.allReferences(), [])
        // A whole import with a repair between its batches keeps every file.
        var options = ImportOptions(paths: [samplesDir])
        options.jobs = 1
        options.batchSize = 1
        let importer = Importer(library: library, libraryRoot: tmp.file("lib"), options: options)
        let repairer = try Library(root: tmp.file("lib"), create: false)
        importer.onProgress = { _, _ in _ = try? repairer.verify(quick: true, repair: true) }
        let summary = try importer.run()
        XCTAssertEqual([summary.imported, summary.failed], [6, 0], "\(summary.failures)")
    }

    func testMissingPathIsNoInput() throws {
        XCTAssertThrowsError(try runImport(try makeLibrary(), [tmp.file("nope")])) {
            XCTAssertEqual(($0 as? FileError)?.kind, .noInput)
            XCTAssertTrue("\($0)".contains(self.tmp.file("nope")))
        }
    }

    func testIdenticalFilesInOneRunImportOnce() throws {
        let library = try makeLibrary()
        _ = try tmp.copy(samplesDir + "/storm.jpg", as: "in/a.jpg")
        _ = try tmp.copy(samplesDir + "/storm.jpg", as: "in/b.jpg")
        _ = try tmp.copy(samplesDir + "/storm.jpg", as: "in/c.jpg")
        let summary = try runImport(library, [tmp.file("in")])
        XCTAssertEqual([summary.imported, summary.duplicates], [1, 2])
        XCTAssertEqual(try library.catalog.scalarInt("SELECT count(*) FROM photo_data"), 1)
    }

    func testDryRunWritesNothing() throws {
        let summary = try runImport(nil, [samplesDir]) { $0.dryRun = true }
        XCTAssertEqual(summary.imported, 6)
        XCTAssertFalse(FileManager.default.fileExists(atPath: tmp.file("lib")))
        let library = try makeLibrary()
        let again = try runImport(library, [samplesDir]) { $0.dryRun = true }
        XCTAssertEqual(again.imported, 6)
        XCTAssertEqual(try library.catalog.scalarInt("SELECT count(*) FROM photo"), 0)
        XCTAssertEqual(library.externalData.allReferences(), [])
    }

    func testPixelLimitRefusesBeforeDecoding() throws {
        let library = try makeLibrary()
        let summary = try runImport(library, [samplesDir + "/storm.jpg"]) { $0.thumbnail.maxPixels = 1_000_000 }
        XCTAssertEqual(summary.failed, 1)
        guard summary.failures.count == 1 else { return }
        XCTAssertTrue(summary.failures[0].reason.contains("1600×1067"), summary.failures[0].reason)
        XCTAssertTrue(summary.failures[0].reason.contains("1000000"), summary.failures[0].reason)
        XCTAssertEqual(library.externalData.allReferences(), [], "nothing written for a refused file")
    }

    /// A file still being copied when cron runs is rejected, and imported whole on the next run.
    func testTruncatedFileIsRejectedThenImportedWholeLater() throws {
        let library = try makeLibrary()
        for name in ["storm.jpg", "colorful-cups-progressive.jpg", "kite.png"] {
            let whole = try XCTUnwrap(FileManager.default.contents(atPath: samplesDir + "/" + name))
            let path = try tmp.write("drop/" + name, Array(whole.prefix(whole.count / 2)))
            let first = try runImport(library, [path])
            XCTAssertEqual([first.imported, first.failed], [0, 1], name)
            XCTAssertFalse(first.failures.first?.reason.isEmpty ?? true)
            _ = FileManager.default.createFile(atPath: path, contents: whole)
            let second = try runImport(library, [path])
            XCTAssertEqual([second.imported, second.failed], [1, 0], name)
        }
        XCTAssertEqual(try library.catalog.scalarInt("SELECT count(*) FROM photo"), 3)
        XCTAssertTrue(try library.verify().isClean)
    }

    func testDeleteCascadesRecordsTombstonesAndRemovesTheOriginal() throws {
        let library = try makeLibrary()
        _ = try runImport(library, [samplesDir + "/ladybird.jpg", samplesDir + "/storm.jpg"]) { $0.tags = ["Keep"] }
        let ladybird = try XCTUnwrap(
            try library.catalog.scalarString("SELECT unique_name FROM photo WHERE display_name = 'ladybird.jpg'"))
        let photo = try library.resolvePhoto(String(ladybird.prefix(8)).lowercased())
        let file = library.externalData.path(for: photo.fileReference)
        XCTAssertTrue(FileManager.default.fileExists(atPath: file))
        try library.deletePhotos([photo], author: "tester")
        XCTAssertFalse(FileManager.default.fileExists(atPath: file))
        XCTAssertEqual(try library.catalog.scalarInt("SELECT count(*) FROM photo"), 1)
        XCTAssertEqual(try library.catalog.scalarInt("SELECT count(*) FROM photo_data"), 1)
        XCTAssertEqual(try library.catalog.scalarInt("SELECT count(*) FROM thumbnail"), 1)
        XCTAssertEqual(try library.catalog.scalarInt("SELECT count(*) FROM rating"), 0)
        XCTAssertEqual(try library.catalog.scalarInt("SELECT count(*) FROM tag"), 3, "tags stay: Keep, Nature, Insect")
        XCTAssertEqual(try library.catalog.scalarInt("SELECT count(*) FROM photo_tag"), 1)
        let tombstone = try library.catalog.scalarString(
            "SELECT c.tombstone FROM history_change c JOIN history_transaction t ON t.token = c.token WHERE c.entity = 'Photo' AND c.type = 'delete' AND t.author = 'tester' AND t.context = 'delete'"
        )
        XCTAssertEqual(tombstone, "{\"uniqueName\":\"\(photo.uniqueName)\",\"sha256\":\"\(photo.sha256)\"}")
        XCTAssertTrue(try library.verify().isClean)
    }

    func testPrefixResolution() throws {
        let library = try makeLibrary()
        _ = try runImport(library, [samplesDir])
        let names = try library.catalog.statement("SELECT unique_name FROM photo ORDER BY unique_name").map {
            $0.string(0)
        }
        XCTAssertEqual(try library.resolvePhoto(names[0]).uniqueName, names[0])
        XCTAssertEqual(try library.resolvePhoto(names[0].lowercased()).uniqueName, names[0])
        XCTAssertThrowsError(try library.resolvePhoto("abc")) {
            XCTAssertEqual($0 as? LibraryError, .prefixTooShort(.photo, argument: "abc", minimum: 4))
        }
        XCTAssertThrowsError(try library.resolvePhoto("zzzz-not-there")) {
            XCTAssertEqual($0 as? LibraryError, .notFound(.photo("zzzz-not-there")))
        }
        // Force an ambiguity: two names sharing a 4-character prefix.
        try library.catalog.run(
            "UPDATE photo SET unique_name = 'ABCD' || substr(unique_name, 5) WHERE unique_name IN (?, ?)",
            [names[0], names[1]])
        XCTAssertThrowsError(try library.resolvePhoto("abcd")) { error in
            guard case let .ambiguous(kind, argument, candidates)? = error as? LibraryError else {
                return XCTFail("\(error)")
            }
            XCTAssertEqual(kind, .photo)
            XCTAssertEqual(argument, "abcd")
            XCTAssertEqual(candidates.count, 2)
            XCTAssertTrue(candidates.contains { $0.hasPrefix("ABCD" + names[0].dropFirst(4) + " (") }, "\(candidates)")
        }
    }

    func testVerifyFindsOrphansMissingFilesAndRepairs() throws {
        let library = try makeLibrary()
        _ = try runImport(library, [samplesDir + "/storm.jpg", samplesDir + "/path.jpg"])
        XCTAssertTrue(try library.verify().isClean)
        let orphan = library.externalData.path(for: "ab/" + String(repeating: "ab", count: 32))
        try FileManager.default.createDirectory(
            atPath: (orphan as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: orphan, contents: Data([1, 2, 3]))
        let temp = library.externalData.path(for: "ab/.tmp-leftover")
        _ = FileManager.default.createFile(atPath: temp, contents: Data([1]))
        let storm = try library.resolvePhoto(
            try XCTUnwrap(
                library.catalog.scalarString("SELECT unique_name FROM photo WHERE display_name = 'storm.jpg'"))
        )
        let stormFile = library.externalData.path(for: storm.fileReference)
        // Corrupt path.jpg's copy: same size, other bytes.
        let pathPhoto = try library.resolvePhoto(
            try XCTUnwrap(library.catalog.scalarString("SELECT unique_name FROM photo WHERE display_name = 'path.jpg'"))
        )
        var bytes = try XCTUnwrap(
            FileManager.default.contents(atPath: library.externalData.path(for: pathPhoto.fileReference)))
        bytes[bytes.count / 2] ^= 0xFF
        _ = FileManager.default.createFile(
            atPath: library.externalData.path(for: pathPhoto.fileReference), contents: bytes)
        try FileManager.default.removeItem(atPath: stormFile)

        let report = try library.verify()
        XCTAssertEqual(
            report.problems.map(\.kind).sorted(), ["hash-mismatch", "missing-file", "orphan-file", "temporary-file"])
        XCTAssertFalse(report.isClean)
        XCTAssertEqual(
            try library.verify(quick: true).problems.map(\.kind).sorted(),
            ["missing-file", "orphan-file", "temporary-file"])

        let repaired = try library.verify(repair: true)
        XCTAssertEqual(
            repaired.problems.filter(\.repaired).map(\.kind).sorted(), ["missing-file", "orphan-file", "temporary-file"]
        )
        XCTAssertFalse(FileManager.default.fileExists(atPath: orphan))
        XCTAssertFalse(FileManager.default.fileExists(atPath: temp))
        XCTAssertEqual(
            try library.catalog.scalarInt("SELECT count(*) FROM photo"), 1,
            "the photo whose original was gone is deleted")
        // The hash mismatch is reported, never "repaired" by deleting the user's data.
        XCTAssertEqual(try library.verify().problems.map(\.kind), ["hash-mismatch"])
    }

    func testCrossZoneLinkIsReported() throws {
        let library = try makeLibrary()
        _ = try runImport(library, [samplesDir + "/storm.jpg"]) { $0.tags = ["Sky"] }
        try library.catalog.execute("INSERT INTO zone (id, name, scope) VALUES ('z1', 'z1', 'private')")
        try library.catalog.execute("UPDATE tag SET zone_id = 'z1'")
        XCTAssertEqual(try library.verify().problems.map(\.kind), ["cross-zone"])
    }
}
