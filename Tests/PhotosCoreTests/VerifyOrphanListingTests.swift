import Foundation
import PhotosFiles
import PhotosTestSupport
import XCTest

@testable import PhotosCore

/// `verify` lists external data without a String per file and keeps the references as 32-byte
/// addresses (`VerifyReferences`): the orphans it reports are exactly the files of
/// `ExternalDataStore.allReferences()` that no reference names, in that order, whatever form
/// their names have.
final class VerifyOrphanListingTests: ImportTestCase {
    func testOrphansAreTheUnreferencedFilesOfAllReferencesInItsOrder() throws {
        let library = try importedLibrary(photos: 3, seed: 740)
        let root = library.externalData.root
        let catalog = library.catalog
        let rows = try catalog.statement("SELECT id, file_ref FROM photo_data ORDER BY id").map {
            (id: $0.int64(0), ref: $0.string(1))
        }
        // Photo 0 is recorded under a reference that is no content address, with its file there.
        XCTAssertEqual(mkdir(root + "/zz", 0o755), 0)
        XCTAssertEqual(rename(root + "/" + rows[0].ref, root + "/zz/kept"), 0)
        try catalog.run("UPDATE photo_data SET file_ref = 'zz/kept' WHERE id = ?", [rows[0].id])
        let hexAB = "ab" + String(repeating: "0", count: 62)
        let files = [
            "ab/" + hexAB, // a content address no row has
            "cd/" + hexAB, // a content-address name in another shard
            "ab/" + hexAB.uppercased(), // upper-case digits
            "ab/" + hexAB + "0", // 65 digits
            "ab/\(ExternalDataStore.temporaryPrefix)12345", // a leftover temporary file
            "zz/name with spaces é",
            "zz/kept2",
            "stray.txt" // a top-level file
        ]
        for file in files {
            let folder = (root + "/" + file as NSString).deletingLastPathComponent
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            XCTAssertTrue(FileManager.default.createFile(atPath: root + "/" + file, contents: Data([7])), file)
        }
        // What a set of the reference strings makes of allReferences (verify's former way).
        let referenced = Set(["zz/kept", rows[0].ref, rows[1].ref, rows[2].ref])
        let expected = library.externalData.allReferences().filter { !referenced.contains($0) }
        XCTAssertEqual(Set(expected), Set(files))
        for quick in [true, false] {
            let report = try library.verify(quick: quick)
            let listed = report.problems.filter { $0.kind == .orphanFile || $0.kind == .temporaryFile }
            XCTAssertEqual(
                listed.map(\.detail),
                expected.map { "\(Library.externalDataName)/\($0) is not referenced by any photo" },
                "quick \(quick)")
            XCTAssertEqual(
                listed.map(\.kind),
                expected.map { $0.contains(ExternalDataStore.temporaryPrefix) ? .temporaryFile : .orphanFile })
            XCTAssertEqual(report.files, library.externalData.allReferences().count)
            // Photo 0's file at zz/kept is referenced: its repair points the row at its address.
            XCTAssertEqual(report.problems.filter { $0.kind == .badFileReference }.count, 1)
        }
    }

    func testReferenceSetMatchesAStringSet() {
        let hex = "0f" + String(repeating: "a1", count: 31)
        var set = VerifyReferences()
        set.insert("0f/" + hex)
        set.insert("zz/other")
        set.insert("top")
        set.sortForLookups()
        func contains(_ shard: String, _ name: String) -> Bool {
            Array(name.utf8).withUnsafeBufferPointer { set.contains(shard: shard, name: $0) }
        }
        XCTAssertTrue(contains("0f", hex))
        XCTAssertFalse(contains("0e", hex))
        XCTAssertFalse(contains("0f", hex.uppercased()))
        XCTAssertFalse(contains("0f", "0f" + String(repeating: "a1", count: 30) + "a2"))
        XCTAssertTrue(contains("zz", "other"))
        XCTAssertFalse(contains("zz", "othe"))
        XCTAssertTrue(set.contains(topLevel: "top"))
        XCTAssertFalse(set.contains(topLevel: "0f"))
        XCTAssertEqual(set.folders, ["0f", "zz", ""])
    }
}
