import Foundation
import PhotosTestSupport
import XCTest

@testable import PhotosFiles

/// `FileScanner.stream`: files handed out in batches as the folders are walked, in the order
/// `scanReporting` lists them, remembering folders (and only the files that can be reached
/// twice) instead of every file.
final class StreamingScanTests: TemporaryFolderTestCase {
    override var label: String { "photos-stream-scan" }

    func touch(_ relative: String) throws {
        let path = dir + "/" + relative
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data([1])))
    }

    func drain(_ walk: FileScanner.Walk) -> [String] {
        var out: [String] = []
        while let f = walk.next() { out.append(f) }
        return out
    }

    /// A tree larger than one batch is walked a batch ahead of the taker: the first file comes
    /// before the walk has found them all, and the order is the full scan's.
    func testALargeTreeIsHandedOutBatchByBatchInScanOrder() throws {
        let count = FileScanner.Walk.batchSize + 50
        for i in 0..<count { try touch(String(format: "t/d%02d/f%05d", i % 10, i)) }
        let walk = try FileScanner().stream([dir + "/t"])
        XCTAssertFalse(walk.isFinished)
        let first = walk.next()
        XCTAssertEqual(walk.found, FileScanner.Walk.batchSize, "one batch found ahead, not the tree")
        XCTAssertFalse(walk.isFinished)
        let all = [first].compactMap { $0 } + drain(walk)
        XCTAssertTrue(walk.isFinished)
        XCTAssertEqual(walk.found, count)
        XCTAssertEqual(all, try FileScanner().scan([dir + "/t"]))
        XCTAssertEqual(all.count, count)
        XCTAssertEqual(all, all.sorted(), "names in order, folder by folder (zero-padded names sort as paths)")
        let remembered = walk.remembered
        XCTAssertEqual(remembered.folders, 11, "t and its ten folders")
        XCTAssertEqual(remembered.files, 0, "files reached once by their own name are not remembered")
    }

    /// A small tree is walked whole at the first file: its total is known from the start.
    func testASmallTreeIsKnownWholeAtTheFirstFile() throws {
        for i in 0..<20 { try touch("s/f\(i)") }
        let walk = try FileScanner().stream([dir + "/s"])
        XCTAssertNotNil(walk.next())
        XCTAssertTrue(walk.isFinished)
        XCTAssertEqual(walk.found, 20)
    }

    /// Hard links, a symbolic link to a file (met before the file), a symbolic link loop and a
    /// path given twice: each file once, each folder once; only the aliased files remembered.
    func testFilesReachableTwiceAreListedOnce() throws {
        try touch("a/b/photo")
        try touch("a/c/plain")
        XCTAssertEqual(link(dir + "/a/b/photo", dir + "/a/c/hard"), 0)
        try FileManager.default.createSymbolicLink(atPath: dir + "/a/0link", withDestinationPath: dir + "/a/c/plain")
        try FileManager.default.createSymbolicLink(atPath: dir + "/a/c/loop", withDestinationPath: dir + "/a")
        let walk = try FileScanner().stream([dir + "/a", dir + "/a/c/plain"])
        let files = drain(walk)
        XCTAssertEqual(files, [dir + "/a/0link", dir + "/a/b/photo"])
        XCTAssertEqual(walk.takeProblems(), [])
        let remembered = walk.remembered
        XCTAssertEqual(remembered.folders, 3, "a, a/b, a/c")
        XCTAssertEqual(remembered.files, 2, "the hard-linked file and the symbolic link's target")
    }

    /// A file given as an argument and also inside a folder given is listed once, whichever comes first.
    func testAFileGivenAndInsideAGivenFolderIsListedOnce() throws {
        try touch("g/x")
        try touch("g/y")
        XCTAssertEqual(drain(try FileScanner().stream([dir + "/g", dir + "/g/y"])), [dir + "/g/x", dir + "/g/y"])
        XCTAssertEqual(drain(try FileScanner().stream([dir + "/g/y", dir + "/g"])), [dir + "/g/y", dir + "/g/x"])
        XCTAssertEqual(drain(try FileScanner().stream([dir + "/g/y", dir + "/g/y"])), [dir + "/g/y"])
    }

    /// A path that does not exist is refused before any file is handed out, even after good ones.
    func testAMissingPathIsRefusedBeforeTheWalk() throws {
        try touch("ok/f")
        XCTAssertThrowsError(try FileScanner().stream([dir + "/ok", dir + "/missing"])) {
            XCTAssertTrue("\($0)".contains(dir + "/missing"), "\($0)")
        }
    }

    /// Problems (a FIFO, an unreadable folder) are taken as they are found, once each.
    func testProblemsAreTakenOnceInWalkOrder() throws {
        try touch("p/a")
        XCTAssertEqual(mkfifo(dir + "/p/fifo", 0o600), 0)
        let walk = try FileScanner().stream([dir + "/p"])
        XCTAssertEqual(drain(walk), [dir + "/p/a"])
        XCTAssertEqual(walk.takeProblems().map(\.path), [dir + "/p/fifo"])
        XCTAssertEqual(walk.takeProblems(), [])
    }

    /// A file says whether its folder has a sidecar-like name (`.xmp`, `.XMP`, `.json`, hidden
    /// ones included), so the importer opens no sidecar in a folder that has none; a file given
    /// as an argument always says it may have one.
    func testSidecarsArePossibleOnlyWhereTheFolderHasSidecarNames() throws {
        try touch("w/plain/a.jpg")
        try touch("w/xmp/b.jpg")
        try touch("w/xmp/b.XMP")
        try touch("w/json/c.jpg")
        try touch("w/json/c.jpg.json")
        try touch("w/hidden/d.jpg")
        try touch("w/hidden/.d.xmp")
        let walk = try FileScanner().stream([dir + "/w", dir + "/w/plain/a.jpg"])
        var flags: [String: Bool] = [:]
        var order: [String] = []
        while let (path, possible) = walk.nextFile() {
            let name = String(path.dropFirst(dir.count + 3))
            flags[name] = possible
            order.append(name)
        }
        XCTAssertEqual(
            order, ["hidden/d.jpg", "json/c.jpg", "json/c.jpg.json", "plain/a.jpg", "xmp/b.XMP", "xmp/b.jpg"])
        XCTAssertEqual(flags["plain/a.jpg"], false)
        XCTAssertEqual(flags["xmp/b.jpg"], true)
        XCTAssertEqual(flags["json/c.jpg"], true)
        XCTAssertEqual(flags["hidden/d.jpg"], true, "a hidden sidecar-like name counts")
        let argument = try FileScanner().stream([dir + "/w/plain/a.jpg"])
        XCTAssertEqual(argument.nextFile()?.sidecarsPossible, true)
    }
}
