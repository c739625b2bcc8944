import Foundation
import PhotosCore
import PhotosFiles
import PhotosModel
import PhotosSQLite
import PhotosTestSupport
import XCTest

/// Issue 31 item 20: a 500 KB changeset with a sparse 3 GiB original stored 3.1 GB of zeros as
/// a photo. An original whose size no image here can have (over `maxFileBytes` of the default
/// `--max-pixels`), or that is sparse, is refused with 65 before it is hashed or copied, and
/// originals are copied in bounded chunks, placed only with the SHA-256 recorded.
final class ChangesetOriginalSizeTests: SyncTestCase {
    /// A changeset of one photo whose original file is replaced by `size` bytes (its first
    /// 4 KiB kept, the rest a hole) and recorded so; applied to a new library, it is refused
    /// with `expected`, nothing written.
    private func assertRefused(
        _ name: String, size: Int64, _ expected: String, file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let a = try library("A-" + name), b = try library("B-" + name)
        try importPhotos(a, count: 1)
        let cs = try export(a)
        let originals = try FileManager.default.contentsOfDirectory(atPath: cs + "/originals")
        XCTAssertEqual(originals.count, 1, file: file, line: line)
        let original = cs + "/originals/" + originals[0]
        XCTAssertEqual(truncate(original, 4096), 0, file: file, line: line)
        XCTAssertEqual(truncate(original, off_t(size)), 0, file: file, line: line)
        var st = stat()
        XCTAssertEqual(stat(original, &st), 0)
        if Int64(st.st_blocks) * 512 > 1 << 20 { throw XCTSkip("this file system does not keep holes") }
        let db = try Database(path: cs + "/changeset.sqlite")
        try db.execute("PRAGMA journal_mode = DELETE")
        try db.execute("UPDATE original SET byte_size = \(size)")
        db.close()
        let dump = try LibrarySnapshot.dumpCatalog(b.root)
        let started = Date()
        let (code, message) = status { _ = try b.applyChangeset(at: cs) }
        XCTAssertEqual(code, .refused, message, file: file, line: line)
        XCTAssertTrue(message.contains("changeset \(cs) refused: original"), message, file: file, line: line)
        XCTAssertTrue(message.contains(expected), message, file: file, line: line)
        XCTAssertLessThan(Date().timeIntervalSince(started), 5, "not read", file: file, line: line)
        XCTAssertEqual(try LibrarySnapshot.dumpCatalog(b.root), dump, file: file, line: line)
        XCTAssertEqual(filesUnder(b.root + "/ExternalData"), [], file: file, line: line)
    }

    /// The example: a sparse 3 GiB original.
    func testASparse3GiBOriginalIsRefusedBeforeItIsCopied() throws {
        try assertRefused("3gib", size: 3 << 30, "3221225472 bytes, more than the 967108864")
    }

    /// Under the size bound but sparse.
    func testASparseOriginalUnderTheBoundIsRefused() throws {
        try assertRefused("sparse", size: 200_000_000, "a sparse file: ")
    }

    /// A photo entry whose byteSize is beyond the bound (2^40 in the issue) is refused, not
    /// silently dropped.
    func testAByteSizeBeyondTheBoundIsRefused() throws {
        let a = try library("A-bytes"), b = try library("B-bytes")
        try importPhotos(a, count: 1)
        let cs = try export(a)
        let db = try Database(path: cs + "/changeset.sqlite")
        try db.execute("PRAGMA journal_mode = DELETE")
        try db.execute("UPDATE entry SET value = '\(1 << 40)' WHERE attribute = 'byteSize'")
        db.close()
        let (code, message) = status { _ = try b.applyChangeset(at: cs) }
        XCTAssertEqual(code, .refused, message)
        XCTAssertTrue(message.contains("byteSize is not a whole number in 0...967108864"), message)
        XCTAssertEqual(try photos(b).count, 0)
    }

    /// The streamed copy puts nothing in place when the bytes are not the SHA-256 expected,
    /// and names the source and the destination when writing fails.
    func testAStreamedCopyWithAnotherSHA256PlacesNothing() throws {
        let source = dir + "/source.bin"
        let bytes = [UInt8](repeating: 7, count: 3 * ImageFile.chunk + 5)
        XCTAssertTrue(FileManager.default.createFile(atPath: source, contents: Data(bytes)))
        let store = ExternalDataStore(root: dir + "/store")
        try FileManager.default.createDirectory(atPath: dir + "/store", withIntermediateDirectories: true)
        let right = sha256(ofFile: source)
        let wrong = String(repeating: "0", count: 64)
        XCTAssertThrowsError(
            try store.copy(
                fromFileAt: source, reference: ExternalDataStore.reference(for: wrong), expectedSHA256: wrong,
                maxBytes: Int.max)
        ) { error in
            XCTAssertEqual((error as? FileError)?.kind, .unacceptable)
        }
        XCTAssertEqual(filesUnder(dir + "/store", hidden: true), [])
        let copied = try store.copy(
            fromFileAt: source, reference: ExternalDataStore.reference(for: right), expectedSHA256: right,
            maxBytes: Int.max)
        XCTAssertEqual(copied?.bytes, bytes.count)
        XCTAssertEqual(copied?.written.created, true)
        XCTAssertEqual(sha256(ofFile: store.path(for: ExternalDataStore.reference(for: right))), right)
    }

    /// `merge --from` another library whose original is sparse (holes where its bytes were,
    /// the size it records): refused before it is read, naming the file; nothing copied.
    func testMergeFromALibraryWithASparseOriginalIsRefused() throws {
        let a = try library("A-merge"), b = try library("B-merge")
        try importPhotos(a, count: 1)
        let stored = filesUnder(a.root + "/ExternalData")
        XCTAssertEqual(stored.count, 1)
        let original = a.root + "/ExternalData/" + stored[0]
        var st = stat()
        XCTAssertEqual(stat(original, &st), 0)
        let size = st.st_size
        // Sparse, the same size: the first 4 KiB kept, the rest never written.
        XCTAssertEqual(truncate(original, 4096), 0)
        XCTAssertEqual(truncate(original, size + (4 << 20)), 0)
        XCTAssertEqual(stat(original, &st), 0)
        if Int64(st.st_blocks) * 512 > 1 << 20 { throw XCTSkip("this file system does not keep holes") }
        XCTAssertThrowsError(try b.merge(from: a)) { error in
            XCTAssertEqual((error as? FileError)?.kind, .unacceptable, "\(error)")
            XCTAssertTrue("\(error)".contains(original + ": a sparse file:"), "\(error)")
        }
        XCTAssertEqual(filesUnder(b.root + "/ExternalData"), [])
        XCTAssertEqual(try photos(b).count, 0)
    }

    /// A file of several MiB that is not sparse is read whole: the hole walk (lseek) leaves the
    /// offset where reading starts.
    func testALargeFileThatIsNotSparseIsReadWhole() throws {
        let path = dir + "/large.bin"
        let bytes = (0..<(3 << 20) + 17).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
        let file = try ImageFile.read(path: path, maxBytes: Int.max)
        XCTAssertEqual(file.bytes.count, bytes.count)
        XCTAssertEqual(file.bytes, bytes)
        XCTAssertEqual(file.sha256, sha256(ofFile: path))
        let (fd, st) = try ImageFile.openRegularFile(path: path)
        defer { close(fd) }
        XCTAssertNil(ImageFile.sizeProblem(fd: fd, status: st, maxBytes: Int.max))
        XCTAssertEqual(lseek(fd, 0, SEEK_CUR), 0)
    }
}
