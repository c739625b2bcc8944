import Foundation
import XCTest
import PhotosTestSupport
@testable import PhotosCLI
import PhotosCore
import PhotosSQLite

/// Issue 9 item 9 (variant): `delete` and `purge` commit the rows, then remove the originals
/// under the write lock. With `--wait 0`, another writer taking the lock between the two left
/// the originals as orphans (exit 0, nothing said). The removal now waits for the lock up to
/// `Library.cleanupWait` seconds whatever `--wait` says.
final class RemovalAfterCommitWaitsTests: TemporaryFolderTestCase {
    override var label: String { "photos-i9-cleanup" }
    var lib: String { dir + "/lib" }

    func testRemovalAfterCommitWaitsForAnotherWriter() throws {
        XCTAssertEqual(photos(["--library", lib, "import", "-q", samplesDir + "/storm.jpg"]).status, 0)
        let library = try Library(root: lib, create: false, busyTimeout: 0)
        let ref = try XCTUnwrap(try library.catalog.scalarString("SELECT file_ref FROM photo_data"))
        // The rows go (as a committed delete leaves them), then another writer holds the lock.
        try library.catalog.run("DELETE FROM photo")
        // nonisolated(unsafe): safe because after taking the writer lock this thread never
        // touches `holder` again; only the timer's closure does: one thread at a time.
        nonisolated(unsafe) let holder = try TestCatalog(root: lib)
        try holder.beginWriteTransaction()
        let released = expectation(description: "holder released")
        DispatchQueue.global().asyncAfter(deadline: .now() + 1) {
            try? holder.rollback()
            released.fulfill()
        }
        let removed = library.removeUnreferencedFiles([ref])
        wait(for: [released], timeout: 5)
        XCTAssertEqual(removed, 1)
        XCTAssertFalse(FileManager.default.fileExists(atPath: lib + "/ExternalData/" + ref), "left as an orphan")
        XCTAssertEqual(photos(["--library", lib, "verify"]).status, 0)
    }
}
