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
