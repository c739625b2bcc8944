import Foundation
import PhotosTestSupport
import XCTest

/// Issue 31 item 20: a file is read only when it could be an image — a 3 GiB sparse `.jpg`
/// of 4 KB on disk took 3.2 GB of memory before it was refused. Now a file larger than any
/// image of `--max-pixels` can be, or sparse, is refused before a byte is read (named on
/// standard error, exit 1 as for every file that fails), and the import's peak resident set,
/// measured in the child process (VmHWM), stays small.
final class SparseFileMemoryBoundTests: BinaryTestCase {
    override var label: String { "photos-sparse" }

    /// The peak resident set a refused sparse file may cost, KB: the binary alone (its
    /// libraries, one catalog connection) is about 30 MB.
    static let limitKB = 100 * 1024

    /// A file of `size` bytes whose first bytes are `head` (the start of a real image) and the
    /// rest a hole (ftruncate(2)): a few KB on disk.
    func sparseFile(_ name: String, head: [UInt8], size: Int64) throws -> String {
        try FileManager.default.createDirectory(atPath: dir + "/in", withIntermediateDirectories: true)
        let path = dir + "/in/" + name
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(head)))
        XCTAssertEqual(truncate(path, off_t(size)), 0)
        var st = stat()
        XCTAssertEqual(stat(path, &st), 0)
        if Int64(st.st_blocks) * 512 > 1 << 20 {
            throw XCTSkip("this file system does not keep holes (\(st.st_blocks) blocks)")
        }
        return path
    }

    private func sample(_ name: String, prefix: Int = 4096) throws -> [UInt8] {
        let bytes = try XCTUnwrap(FileManager.default.contents(atPath: samplesDir + "/" + name))
        return Array(bytes.prefix(prefix))
    }

    /// The example: 3 GiB, over the 922 MiB any image of 100 million pixels can be.
    func testASparse3GiBJPEGIsRefusedBeforeItIsRead() throws {
        let path = try sparseFile("huge.jpg", head: try sample("storm.jpg"), size: 3 << 30)
        let result = try runMeasured(["--library", dir + "/lib", "import", path])
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains(path), result.stderr)
        XCTAssertTrue(
            result.stderr.contains(
                "3221225472 bytes, more than the 967108864 bytes an image accepted here can have at --max-pixels 100000000"
            ), result.stderr)
        XCTAssertGreaterThan(result.maxRSSKB, 0, "VmHWM was read")
        XCTAssertLessThan(result.maxRSSKB, Self.limitKB, "peak RSS \(result.maxRSSKB) KB")
        print("peak RSS of the import of a sparse 3 GiB .jpg: \(result.maxRSSKB / 1024) MB")
        XCTAssertEqual(filesUnder(dir + "/lib/ExternalData"), [])
    }

    /// Under the size bound but sparse (500 MB of holes): refused as sparse, unread.
    func testASparseFileUnderTheSizeBoundIsRefusedAsSparse() throws {
        let path = try sparseFile("holes.png", head: try sample("kite.png"), size: 500_000_000)
        let result = try runMeasured(["--library", dir + "/lib", "import", path])
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains(path), result.stderr)
        XCTAssertTrue(result.stderr.contains("a sparse file:"), result.stderr)
        XCTAssertLessThan(result.maxRSSKB, Self.limitKB, "peak RSS \(result.maxRSSKB) KB")
        XCTAssertEqual(filesUnder(dir + "/lib/ExternalData"), [])
    }

    /// The bound follows --max-pixels: at 1,000,000 pixels a 100 MB file (9 MB + 64 MiB at
    /// most) is refused for its size.
    func testTheSizeBoundFollowsMaxPixels() throws {
        let path = try sparseFile("big.jpg", head: try sample("storm.jpg"), size: 100_000_000)
        let result = try runMeasured(["--library", dir + "/lib", "import", "--max-pixels", "1000000", path])
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertTrue(
            result.stderr.contains(
                "100000000 bytes, more than the 76108864 bytes an image accepted here can have at --max-pixels 1000000"),
            result.stderr)
        XCTAssertLessThan(result.maxRSSKB, Self.limitKB, "peak RSS \(result.maxRSSKB) KB")
    }

    /// A sound image next to the refused one still imports.
    func testASoundImageBesideASparseOneImports() throws {
        _ = try sparseFile("huge.jpg", head: try sample("storm.jpg"), size: 3 << 30)
        try FileManager.default.copyItem(atPath: samplesDir + "/storm.jpg", toPath: dir + "/in/storm.jpg")
        let result = try run(["--library", dir + "/lib", "import", dir + "/in"])
        XCTAssertEqual(result.status, 1, result.stderr)
        let list = try run(["--library", dir + "/lib", "list", "--json"])
        XCTAssertEqual(list.stdout.split(separator: "\n").count, 1, list.stdout)
    }
}
