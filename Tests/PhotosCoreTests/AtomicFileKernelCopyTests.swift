import Foundation
import PhotosFiles
import PhotosTestSupport
import XCTest

/// `AtomicFile.Sink.copy`: copy_file_range(2) and the pread/write path it falls back to give
/// the same bytes, stop at the count asked for, and report a source that ends early.
final class AtomicFileKernelCopyTests: TemporaryFolderTestCase {
    override var label: String { "photos-kernel-copy" }

    func copy(_ source: String, to target: String, byteCount: Int, kernel: Bool) throws -> Int {
        let input = open(source, O_RDONLY | O_CLOEXEC)
        XCTAssertGreaterThanOrEqual(input, 0)
        defer { close(input) }
        // A moved file offset must not matter: the copy starts at the beginning.
        _ = lseek(input, 5, SEEK_SET)
        var copied = 0
        try AtomicFile.write(to: target) { sink in
            copied = try sink.copy(from: input, byteCount: byteCount, source: source, kernelCopy: kernel)
        }
        return copied
    }

    func testBothPathsCopyTheBytesAskedFor() throws {
        // 3 MiB + 17 bytes: more than one 1 MiB piece of the read/write path.
        let count = 3 << 20 + 17
        let bytes = Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 13) })
        let source = dir + "/source"
        try bytes.write(to: URL(fileURLWithPath: source))
        for kernel in [true, false] {
            let whole = dir + "/whole-\(kernel)"
            XCTAssertEqual(try copy(source, to: whole, byteCount: count, kernel: kernel), count)
            XCTAssertEqual(FileManager.default.contents(atPath: whole), bytes, "kernel \(kernel)")
            let prefix = dir + "/prefix-\(kernel)"
            XCTAssertEqual(try copy(source, to: prefix, byteCount: 1000, kernel: kernel), 1000)
            XCTAssertEqual(FileManager.default.contents(atPath: prefix), bytes.prefix(1000), "kernel \(kernel)")
            let short = dir + "/short-\(kernel)"
            XCTAssertEqual(try copy(source, to: short, byteCount: count + 4096, kernel: kernel), count)
            XCTAssertEqual(FileManager.default.contents(atPath: short), bytes, "kernel \(kernel)")
            let empty = dir + "/empty-\(kernel)"
            XCTAssertEqual(try copy(source, to: empty, byteCount: 0, kernel: kernel), 0)
            XCTAssertEqual(FileManager.default.contents(atPath: empty), Data(), "kernel \(kernel)")
        }
    }
}

/// `AtomicFile.copy` (issue 31 item 2) makes a file of its own, and `write(reportingCreation:)`
/// says whether it created the file (issue 31 item 16).
final class AtomicFileCopyAndCreationTests: TemporaryFolderTestCase {
    override var label: String { "photos-atomic-copy" }

    func testACopyIsAnotherInodeWithTheSameBytesAndOneLink() throws {
        let bytes = Data((0..<(2 << 20) + 5).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let source = dir + "/source", copy = dir + "/copy"
        try bytes.write(to: URL(fileURLWithPath: source))
        let made = try AtomicFile.copy(from: source, to: copy)
        var a = stat(), b = stat()
        XCTAssertEqual(stat(source, &a), 0)
        XCTAssertEqual(stat(copy, &b), 0)
        XCTAssertNotEqual(a.st_ino, b.st_ino)
        XCTAssertEqual(a.st_nlink, 1)
        XCTAssertEqual(b.st_nlink, 1)
        XCTAssertEqual(made.stat.st_ino, b.st_ino)
        XCTAssertEqual(FileManager.default.contents(atPath: copy), bytes)
        // A write into the source (damage in place) leaves the copy as it was.
        let handle = try XCTUnwrap(FileHandle(forWritingAtPath: source))
        handle.seek(toFileOffset: 100)
        handle.write(Data(repeating: 0, count: 10))
        handle.closeFile()
        XCTAssertEqual(FileManager.default.contents(atPath: copy), bytes)
        // Over an existing file: replaced.
        try Data("old".utf8).write(to: URL(fileURLWithPath: dir + "/other"))
        try AtomicFile.copy(from: copy, to: dir + "/other")
        XCTAssertEqual(FileManager.default.contents(atPath: dir + "/other"), bytes)
        XCTAssertThrowsError(try AtomicFile.copy(from: dir + "/none", to: dir + "/x")) { error in
            XCTAssertEqual((error as? FileError)?.kind, .noInput)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/x"))
    }

    func testCreationIsReportedOnlyWhenNoFileWasThere() throws {
        let path = dir + "/file"
        let first = try AtomicFile.write(to: path, reportingCreation: true) {
            try $0.write(UnsafeRawBufferPointer(start: nil, count: 0))
        }
        XCTAssertTrue(first.created)
        let second = try AtomicFile.write(to: path, reportingCreation: true) { sink in
            try Array("again".utf8).withUnsafeBytes { try sink.write($0) }
        }
        XCTAssertFalse(second.created, "a file was there: replaced, not created")
        XCTAssertNotEqual(first.stat.st_ino, second.stat.st_ino)
        var st = stat()
        XCTAssertEqual(stat(path, &st), 0)
        XCTAssertEqual(st.st_ino, second.stat.st_ino)
        XCTAssertEqual(st.st_nlink, 1, "the temporary name is gone")
        XCTAssertEqual(FileManager.default.contents(atPath: path), Data("again".utf8))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir), ["file"])
    }
}
