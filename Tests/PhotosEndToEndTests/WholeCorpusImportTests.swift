import Foundation
import XCTest
import PhotosFiles
@testable import PhotosCore
import PhotosSQLite
import PhotosTestSupport

/// The whole-corpus import (moved from PhotosCoreTests/ImportTests.swift: it is the slowest
/// in-process test and needs ../shared/corpus).
final class WholeCorpusImportTests: ImportTestCase {
    /// Done-when of the import issue: the whole corpus imports every expect=ok file, names every
    /// rejected file, and a second run imports nothing and counts the rest as duplicates.
    /// Batches of 4 files: png-suite files with the same image data in other bytes (oi1/oi2/oi9
    /// split IDAT differently, cm7/cm9 differ in tIME, ct0/ct1 in text) are each a photo
    /// whichever batch committed first; none replaces another's original.
    func testWholeCorpusImportsOkFilesRejectsRejectFilesAndIsIdempotent() throws {
        let corpus = try requireCorpus()
        let manifest = try loadManifest(corpus)
        let library = try makeLibrary()
        let summary = try runImport(library, [corpus]) { $0.batchSize = 4 }
        XCTAssertEqual(summary.replaced, 0)
        let imported = Set(try library.catalog.statement("SELECT sha256 FROM photo_data").map { $0.string(0) })
        let failedPaths = Set(summary.failures.map { String($0.path.dropFirst(corpus.count + 1)) })
        for entry in manifest {
            switch entry.expect {
            case "ok":
                XCTAssertTrue(
                    imported.contains(entry.sha256),
                    "\(entry.path) (expect ok) was not imported: \(summary.failures.first { $0.path.hasSuffix(entry.path) }?.reason ?? "?")"
                )
            case "reject":
                if entry.format == "unknown"
                    && !["jpg", "jpeg", "png"].contains((entry.path as NSString).pathExtension.lowercased())
                {
                    continue
                }
                XCTAssertTrue(
                    failedPaths.contains(entry.path), "\(entry.path) (expect reject) was not reported as failed")
                XCTAssertFalse(imported.contains(entry.sha256), "\(entry.path) (expect reject) was imported")
            default:
                // Either result is fine, but the file must be accounted for: imported (itself or
                // as a duplicate of identical bytes) or named as a failure.
                XCTAssertTrue(imported.contains(entry.sha256) || failedPaths.contains(entry.path), entry.path)
            }
        }
        for failure in summary.failures { XCTAssertFalse(failure.reason.isEmpty, failure.path) }
        let distinctOk = Set(manifest.filter { $0.expect == "ok" }.map(\.sha256)).count
        XCTAssertGreaterThanOrEqual(summary.imported, distinctOk)
        XCTAssertGreaterThan(summary.failed, 0)
        let again = try runImport(library, [corpus])
        XCTAssertEqual(again.imported, 0)
        XCTAssertEqual(again.replaced, 0)
        XCTAssertEqual(
            try library.catalog.statement("SELECT count(*) FROM photo").map { $0.int(0) }, [summary.imported])
        XCTAssertEqual(again.duplicates, summary.imported + summary.duplicates)
        XCTAssertEqual(again.failed, summary.failed)
        XCTAssertTrue(try library.verify().isClean)
    }
}
