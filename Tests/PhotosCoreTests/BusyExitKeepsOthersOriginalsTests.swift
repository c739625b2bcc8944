import Foundation
import PhotosCore
import PhotosFiles
import PhotosTestSupport
import XCTest

/// Issue 31 item 16: two imports of the same file; the one that exits busy (75) must not remove
/// the original the other has written (or found) and is about to commit. Made deterministic in
/// one process with two connections: importer A has written the original and waits (its
/// `onProgress`, before its commit) until importer B holds the write lock with its row written
/// (`onBatchWritten`, before B's commit); A's commit then finds the lock held (`--wait 0`),
/// gives up and cleans up while B's transaction is still open; B commits after. On SQLite and
/// on PostgreSQL (`PHOTOS_TEST_DATABASE_URL`).
final class BusyExitKeepsOthersOriginalsTests: ImportTestCase {
    /// Waits for `semaphore` at most 30 s; false (and a failure) when it was not signalled.
    private func wait(_ semaphore: DispatchSemaphore, _ what: String) -> Bool {
        if semaphore.wait(timeout: .now() + 30) == .timedOut {
            XCTFail("timed out waiting for \(what)")
            return false
        }
        return true
    }

    func testTheImportThatExitsBusyLeavesTheOriginalTheOtherCommits() throws {
        let input = try tmp.copy(samplesDir + "/storm.jpg", as: "in/storm.jpg")
        let root = tmp.file("lib")
        _ = try makeLibrary()
        let a = try Library(root: root, create: false, busyTimeout: 0)
        nonisolated(unsafe) let b = try Library(root: root, create: false, busyTimeout: 30)
        let aPrepared = DispatchSemaphore(value: 0), bInTransaction = DispatchSemaphore(value: 0)
        let aDone = DispatchSemaphore(value: 0), bDone = DispatchSemaphore(value: 0)

        var configured = ImportOptions(paths: [input])
        configured.jobs = 1
        nonisolated(unsafe) let options = configured
        nonisolated(unsafe) var bSummary: ImportSummary?
        nonisolated(unsafe) var bError: Error?
        let other = Thread {
            defer { bDone.signal() }
            guard aPrepared.wait(timeout: .now() + 30) == .success else { return }
            let importer = Importer(library: b, libraryRoot: root, options: options)
            importer.onBatchWritten = {
                bInTransaction.signal()
                // Until A has given up and cleaned up (an earlier version removed the file
                // here, while this transaction was open), or 1 s (A's clean-up now waits for
                // this lock, and then sees this commit).
                _ = aDone.wait(timeout: .now() + 1)
            }
            do { bSummary = try importer.run() } catch { bError = error }
        }
        other.start()

        let importer = Importer(library: a, libraryRoot: root, options: options)
        var waited = false
        importer.onProgress = { _, _ in
            guard !waited else { return }
            waited = true
            aPrepared.signal()
            _ = self.wait(bInTransaction, "importer B's open transaction")
        }
        XCTAssertThrowsError(try importer.run()) { error in
            XCTAssertEqual((error as? LibraryError)?.isBusy, true, "\(error)")
        }
        aDone.signal()
        XCTAssertTrue(wait(bDone, "importer B"))
        XCTAssertNil(bError)
        XCTAssertEqual(bSummary?.imported, 1)

        // B's photo has its original, whole; verify finds nothing wrong.
        let sha = sha256(ofFile: input)
        let stored = root + "/ExternalData/" + ExternalDataStore.reference(for: sha)
        XCTAssertEqual(FileManager.default.contents(atPath: stored), FileManager.default.contents(atPath: input))
        let check = try Library(root: root, create: false)
        XCTAssertEqual(try check.catalog.scalar("SELECT count(*) FROM photo_data WHERE sha256 = ?", [sha]), "1")
        let report = try check.verify()
        XCTAssertTrue(report.isClean, "\(report.problems)")
    }

    /// Without another import running, a busy exit still removes what it wrote (nothing left
    /// for `verify --repair`): here the write lock is held by a non-import writer; and with
    /// another import running (holding the shared import lock), a file this import created
    /// and that is still its own is removed too.
    func testABusyExitWithNoOtherImportRemovesItsOwnOriginals() throws {
        try assertBusyExitRemovesItsOwnOriginal(whileAnotherImportRuns: false)
    }

    func testABusyExitBesideAnotherImportRemovesTheOriginalsOnlyItCreated() throws {
        try assertBusyExitRemovesItsOwnOriginal(whileAnotherImportRuns: true)
    }

    private func assertBusyExitRemovesItsOwnOriginal(whileAnotherImportRuns: Bool) throws {
        let input = try tmp.copy(samplesDir + "/kite.png", as: "in/kite.png")
        let root = tmp.file("lib")
        _ = try makeLibrary()
        let a = try Library(root: root, create: false, busyTimeout: 0)
        nonisolated(unsafe) let holder = try Library(root: root, create: false, busyTimeout: 30)
        let held = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        var options = ImportOptions(paths: [input])
        options.jobs = 1
        let importer = Importer(library: a, libraryRoot: root, options: options)
        var started = false
        importer.onProgress = { _, _ in
            guard !started else { return }
            started = true
            Thread {
                defer { done.signal() }
                let importLock = whileAnotherImportRuns ? holder.lockImports(exclusive: false) : nil
                defer { if let importLock { close(importLock) } }
                try? holder.write {
                    held.signal()
                    // Released after 1 s, while the import cleans up (it waits for the lock).
                    _ = release.wait(timeout: .now() + 1)
                }
                // The other import goes on running (its shared import lock) until this one is done.
                _ = release.wait(timeout: .now() + 30)
            }.start()
            _ = self.wait(held, "the write lock held by another writer")
        }
        XCTAssertThrowsError(try importer.run()) { error in
            XCTAssertEqual((error as? LibraryError)?.isBusy, true, "\(error)")
        }
        release.signal() // both waits of the other writer
        release.signal()
        XCTAssertTrue(wait(done, "the other writer"))
        let stored = root + "/ExternalData/" + ExternalDataStore.reference(for: sha256(ofFile: input))
        XCTAssertFalse(FileManager.default.fileExists(atPath: stored), "its own uncommitted original is removed")
        XCTAssertTrue(try Library(root: root, create: false).verify().isClean)
    }

    /// The same kind seen from an apply: it finds an original in place (another writer's,
    /// uncommitted) and does not copy it; that writer gives up and removes the file it created
    /// before the apply's transaction; the apply checks its originals again under the write
    /// lock and copies it, so its photo has its original.
    func testAnApplyThatFoundAnotherWritersUncommittedOriginalStillCommitsItsOwn() throws {
        let input = try tmp.copy(samplesDir + "/storm.jpg", as: "in/storm.jpg")
        let source = try Library(root: tmp.file("source"), create: true)
        _ = try runImport(source, [input])
        let changeset = tmp.file("storm.changeset")
        _ = try source.exportChangeset(to: changeset, since: 0)

        let root = tmp.file("lib")
        let target = try makeLibrary()
        let other = try Library(root: root, create: false, busyTimeout: 0)
        // The other writer's uncommitted original, created by it (no file was there).
        let bytes = try XCTUnwrap(FileManager.default.contents(atPath: input))
        let reference = ExternalDataStore.reference(for: sha256(ofFile: input))
        let written = try XCTUnwrap(
            try bytes.withUnsafeBytes { try other.externalData.writeOriginal($0, reference: reference) })
        XCTAssertTrue(written.created)
        var cleaned = false
        let report = try target.applyChangeset(
            at: changeset,
            progress: { _, _, _ in
                // After the apply found the file in place, before its transaction: the other
                // writer gives up (the apply holds the shared import lock: only its own file).
                guard !cleaned else { return }
                cleaned = true
                var lock: Int32? = nil
                let (removed, _) = other.removeUncommittedFiles(
                    [UncommittedOriginal(reference: reference, written: written)], importLock: &lock)
                XCTAssertEqual(removed, 1)
            })
        XCTAssertTrue(cleaned)
        XCTAssertEqual(report.inserted, 1)
        XCTAssertEqual(FileManager.default.contents(atPath: root + "/ExternalData/" + reference), bytes)
        XCTAssertTrue(try target.verify().isClean)
    }
}
