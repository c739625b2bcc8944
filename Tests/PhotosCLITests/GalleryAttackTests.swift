import Foundation
import PhotosSQLite
import PhotosTestSupport
import XCTest

/// `photos gallery` (issue 28) used as a hostile or careless user would: a run killed with
/// SIGKILL then `--update`, a DEST of the user's own files, a hand-edited state file, a photo
/// whose original is damaged. The values asserted are the files in DEST and the exit statuses.
final class GalleryAttackTests: BinaryTestCase {
    override var label: String { "photos-gallery-attack" }
    var lib: String { dir + "/lib" }
    let fm = FileManager.default

    @discardableResult
    func photos(_ args: [String], status: Int32 = 0, file: StaticString = #filePath, line: UInt = #line) throws -> (
        status: Int32, stdout: String, stderr: String
    ) {
        let result = try run(["--library", lib] + args)
        XCTAssertEqual(result.status, status, "\(args): \(result.stderr)", file: file, line: line)
        return result
    }

    /// uniqueName of each photo by its display name.
    func names() throws -> [String: String] {
        var names: [String: String] = [:]
        for line in try photos(["list", "--json"]).stdout.split(separator: "\n") {
            let photo = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            names[try XCTUnwrap(photo["displayName"] as? String)] = try XCTUnwrap(photo["uniqueName"] as? String)
        }
        return names
    }

    func files(_ folder: String) -> [String] { ((try? fm.contentsOfDirectory(atPath: folder)) ?? []).sorted() }

    /// Every `t/`, `r/` and `o/` file the pages of `out` name.
    func named(by out: String) -> Set<String> {
        var named = Set<String>()
        for page in files(out) where page.hasSuffix(".html") {
            let html = (try? String(contentsOfFile: out + "/" + page, encoding: .utf8)) ?? ""
            for part in html.components(separatedBy: "\"").dropFirst()
            where part.hasPrefix("t/") || part.hasPrefix("r/") || part.hasPrefix("o/") {
                named.insert(part)
            }
        }
        return named
    }

    /// A run killed with SIGKILL after it wrote some photos' files, before it wrote its state;
    /// then `--update` of another selection: the files the killed run wrote of photos no longer
    /// selected are removed (they were kept forever: no state named them), and every file the
    /// pages name is there.
    func testKilledRunThenUpdateLeavesNoStaleFiles() throws {
        try photos(["import", "-q", samplesDir])
        let storm = try XCTUnwrap(try names()["storm.jpg"])
        let out = dir + "/g"
        let process = try launch(["--library", lib, "gallery", out, "--jobs", "1", "--size", "4096"])
        let deadline = Date().addingTimeInterval(60)
        while files(out + "/t").isEmpty && process.isRunning && Date() < deadline { usleep(1_000) }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        if fm.fileExists(atPath: out + "/.photos-gallery.tsv") {
            throw XCTSkip("the gallery run finished before it could be killed")
        }
        XCTAssertFalse(files(out + "/t").isEmpty, "the killed run wrote some thumbnails")
        XCTAssertTrue(fm.fileExists(atPath: out + "/.photos-gallery-journal.tsv"))

        try photos(["tag", "add", "only", storm])
        try photos(["gallery", out, "--tag", "only", "--update", "--jobs", "1", "--size", "4096"])
        XCTAssertEqual(files(out + "/t"), [storm + ".jpg"])
        XCTAssertEqual(files(out + "/r"), [storm + ".jpg"])
        XCTAssertEqual(files(out + "/o"), [storm + ".jpg"])
        XCTAssertEqual(named(by: out), ["t/\(storm).jpg", "r/\(storm).jpg", "o/\(storm).jpg"])
        XCTAssertFalse(fm.fileExists(atPath: out + "/.photos-gallery-journal.tsv"), "the journal goes with the state")
        let state = try String(contentsOfFile: out + "/.photos-gallery.tsv", encoding: .utf8)
        XCTAssertEqual(state.split(separator: "\n").count, 2, state)
    }

    /// DEST an existing folder of the user's own files (an index.html, a t/ of their own): the
    /// gallery refuses it (73) and writes, overwrites and removes nothing there; an empty
    /// folder is taken.
    func testFolderOfTheUsersOwnFilesIsRefused() throws {
        try photos(["import", "-q", samplesDir])
        let out = dir + "/site"
        try fm.createDirectory(atPath: out + "/t", withIntermediateDirectories: true)
        XCTAssertTrue(fm.createFile(atPath: out + "/index.html", contents: Data("mine".utf8)))
        XCTAssertTrue(fm.createFile(atPath: out + "/page-2.html", contents: Data("mine too".utf8)))
        XCTAssertTrue(fm.createFile(atPath: out + "/t/holiday.jpg", contents: Data("own".utf8)))
        for args in [["gallery", out], ["gallery", out, "--update"], ["gallery", out, "--dry-run"]] {
            let result = try photos(args, status: 73)
            XCTAssertTrue(result.stderr.contains("not a gallery"), result.stderr)
        }
        XCTAssertEqual(files(out), ["index.html", "page-2.html", "t"])
        XCTAssertEqual(files(out + "/t"), ["holiday.jpg"])
        XCTAssertEqual(fm.contents(atPath: out + "/index.html"), Data("mine".utf8))

        let empty = dir + "/empty"
        try fm.createDirectory(atPath: empty, withIntermediateDirectories: true)
        try photos(["gallery", empty, "--size", "0"])
        XCTAssertEqual(files(empty + "/t").count, 6)
        // A gallery folder is one again and again.
        try photos(["gallery", empty, "--size", "0", "--update"])
    }

    /// A hand-edited (hostile) state file naming files outside DEST (`..`, absolute paths) and a
    /// symbolic link in t/ to a file outside: `--update` removes none of the files outside, and
    /// of the link only the link.
    func testHostileStateRemovesNothingOutsideDest() throws {
        try photos(["import", "-q", samplesDir])
        let out = dir + "/g"
        try photos(["gallery", out, "--size", "0", "--originals", "none"])
        let victim = dir + "/victim.jpg"
        XCTAssertTrue(fm.createFile(atPath: victim, contents: Data("keep me".utf8)))
        try fm.createSymbolicLink(atPath: out + "/t/link.jpg", withDestinationPath: victim)
        let statePath = out + "/.photos-gallery.tsv"
        var state = try String(contentsOfFile: statePath, encoding: .utf8)
        state += "gone\tk\t../victim.jpg t/../../victim.jpg \(victim) t/link.jpg ../../victim.jpg\n"
        state += "../victim.jpg\tk\tt/../../victim.jpg\n"
        state += "link\tk\tt//link.jpg o/../../victim.jpg\n"
        try state.write(toFile: statePath, atomically: true, encoding: .utf8)
        let result = try photos(["gallery", out, "--size", "0", "--originals", "none", "--update", "--json"])
        let summary = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], result.stdout)
        XCTAssertEqual(summary["removed"] as? Int, 1, "t/link.jpg, the link")
        XCTAssertEqual(fm.contents(atPath: victim), Data("keep me".utf8))
        XCTAssertEqual(files(out + "/t").count, 6)
        XCTAssertFalse(files(out + "/t").contains("link.jpg"))
    }

    /// The state file is untrusted input: one that is a link to /dev/zero (endless bytes) or a
    /// sparse file of 1 GiB is not read (only a regular file of at most 256 MiB is, its size
    /// checked first), so the run treats the state as empty, writes every photo again and
    /// replaces the state with its own regular file; memory and work stay bounded.
    func testAStateFileThatIsADeviceOrHugeIsNotRead() throws {
        try photos(["import", "-q", samplesDir])
        let out = dir + "/g"
        try photos(["gallery", out, "--size", "0", "--originals", "none"])
        let statePath = out + "/.photos-gallery.tsv"
        for hostile in ["device", "sparse"] {
            try fm.removeItem(atPath: statePath)
            if hostile == "device" {
                try fm.createSymbolicLink(atPath: statePath, withDestinationPath: "/dev/zero")
            } else {
                XCTAssertTrue(fm.createFile(atPath: statePath, contents: nil))
                let handle = try XCTUnwrap(FileHandle(forWritingAtPath: statePath))
                try handle.truncate(atOffset: 1 << 30)
                try handle.close()
            }
            let result = try photos(["gallery", out, "--size", "0", "--originals", "none", "--update", "--json"])
            let summary = try XCTUnwrap(
                JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], result.stdout)
            XCTAssertEqual(summary["photos"] as? Int, 6, "\(hostile): \(result.stdout)")
            let attributes = try fm.attributesOfItem(atPath: statePath)
            XCTAssertEqual(attributes[.type] as? FileAttributeType, .typeRegular, hostile)
            XCTAssertLessThan(try XCTUnwrap(attributes[.size] as? Int), 1 << 20, hostile)
            XCTAssertEqual(files(out + "/t").count, 6, hostile)
        }
    }

    /// A photo whose original was damaged after a gallery without renditions: the next run with
    /// renditions makes its rendition, then fails copying the original (SHA-256): exit 1, the
    /// five others are written and shown, it is left out of the pages; its rendition, written
    /// before the failure, is recorded, so that once the photo is deleted `--update` removes it
    /// (it was kept forever).
    func testDamagedOriginalFailsAloneAndLeavesNothingBehind() throws {
        try photos(["import", "-q", samplesDir])
        let storm = try XCTUnwrap(try names()["storm.jpg"])
        let out = dir + "/g"
        try photos(["gallery", out, "--size", "0"])
        let sample = try XCTUnwrap(fm.contents(atPath: samplesDir + "/storm.jpg"))
        let enumerator = try XCTUnwrap(fm.enumerator(atPath: lib))
        var original: String?
        while let path = enumerator.nextObject() as? String {
            if fm.contents(atPath: lib + "/" + path) == sample { original = lib + "/" + path }
        }
        let path = try XCTUnwrap(original, "the library's copy of storm.jpg")
        // Trailing bytes: still a decodable JPEG, no longer the recorded SHA-256.
        try (sample + Data(repeating: 0x55, count: 100)).write(to: URL(fileURLWithPath: path))

        let failed = try photos(["gallery", out, "--size", "256", "--update"], status: 1)
        XCTAssertTrue(failed.stderr.contains(storm), failed.stderr)
        XCTAssertEqual(files(out + "/r").count, 6, "the rendition of storm.jpg was written before its original failed")
        XCTAssertEqual(named(by: out).filter { $0.hasPrefix("r/") }.count, 5)
        XCTAssertFalse(named(by: out).contains("t/\(storm).jpg"))

        try photos(["delete", "--yes", "-q", storm])
        try photos(["gallery", out, "--size", "256", "--update"])
        XCTAssertEqual(files(out + "/r").count, 5)
        XCTAssertFalse(files(out + "/r").contains(storm + ".jpg"))
        XCTAssertFalse(files(out + "/t").contains(storm + ".jpg"))
        XCTAssertEqual(files(out + "/o").count, 5)
    }

    /// A thumbnail rebuilt at the same size and byte length (a decoder fix, `thumbnails
    /// --rebuild`) is written again by `--update` (faults after issue 28: the state's key held
    /// only the thumbnail's width and height, so the gallery kept the old one). The stored
    /// thumbnail is changed in place here, one byte of its entropy-coded data, on SQLite.
    func testUpdateRewritesAThumbnailRebuiltAtTheSameSize() throws {
        try XCTSkipIf(
            ProcessInfo.processInfo.environment[TestDatabase.variable] != nil,
            "edits the SQLite catalog's thumbnail row; the PostgreSQL run has no such file")
        try photos(["import", "-q", samplesDir + "/storm.jpg"])
        let storm = try XCTUnwrap(try names()["storm.jpg"])
        let out = dir + "/g"
        try photos(["gallery", out, "--size", "0"])
        let before = try XCTUnwrap(fm.contents(atPath: out + "/t/\(storm).jpg"))
        let db = try Database(path: lib + "/photos.sqlite")
        let length = try XCTUnwrap(try db.scalarInt("SELECT length(data) FROM thumbnail"))
        XCTAssertEqual(length, before.count)
        // The byte 20 before the end (EOI): inside the scan, the structure unchanged.
        let at = length - 20
        let old = before[before.startIndex + at]
        let new: UInt8 = old == 0x00 ? 0x01 : (old == 0xFF ? 0xFE : old ^ 0x01)
        try db.run(
            "UPDATE thumbnail SET data = substr(data, 1, ?) || ? || substr(data, ?)",
            [Int64(at), [new] as [UInt8], Int64(at + 2)])
        db.close()
        try photos(["gallery", out, "--size", "0", "--update"])
        let after = try XCTUnwrap(fm.contents(atPath: out + "/t/\(storm).jpg"))
        XCTAssertEqual(after.count, before.count)
        XCTAssertEqual(after[after.startIndex + at], new, "the rebuilt thumbnail was written")
        // Unchanged since: --update writes nothing.
        let again = try photos(["--json", "gallery", out, "--size", "0", "--update"])
        XCTAssertTrue(again.stdout.contains("\"written\":0"), again.stdout)
    }
}
