import Foundation
#if canImport(FoundationXML)
    import FoundationXML
#endif
import XCTest
import PhotosTestSupport
import PhotosFiles
@testable import PhotosCLI
import PhotosCore
import PhotosSQLite

final class ExportTests: TemporaryFolderTestCase {
    override var label: String { "photos-export" }
    var lib: String { dir + "/lib" }

    /// `photos --library LIB ARGS…`, asserting the exit status.
    @discardableResult
    func run(
        _ args: [String], library: String? = nil, status: Int32 = 0, file: StaticString = #filePath, line: UInt = #line
    ) -> RunResult {
        let result = photos(["--library", library ?? lib] + args)
        XCTAssertEqual(result.status, status, "\(args): \(result.stderr)", file: file, line: line)
        return result
    }

    /// The JSON object an export printed.
    func summary(_ result: RunResult) throws -> [String: Any] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], result.stdout)
    }

    /// Every photo of a library as `list --json` gives it.
    func listPhotos(_ library: String) throws -> [[String: Any]] {
        try run(["list", "--json"], library: library).stdout.split(separator: "\n").map {
            try XCTUnwrap(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }

    /// The set of (sha256, tags, rating) a round trip must keep.
    func fingerprint(_ library: String) throws -> Set<String> {
        Set(
            try listPhotos(library).map { p in
                let tags = ((p["tags"] as? [String]) ?? []).sorted().joined(separator: "|")
                return "\(p["sha256"] as? String ?? "") [\(tags)] \((p["rating"] as? Int).map(String.init) ?? "-")"
            })
    }

    func testExportedOriginalsAreByteIdenticalAndHelpIsThere() throws {
        run(["import", "-q", samplesDir])
        let out = dir + "/out"
        let result = run(["export", out, "--json"])
        let s = try summary(result)
        XCTAssertEqual(Set(s.keys), ["written", "updated", "skipped", "failed", "bytes", "seconds"])
        XCTAssertEqual(s["written"] as? Int, 6)
        XCTAssertEqual(s["failed"] as? Int, 0)
        let listed = try listPhotos(lib)
        XCTAssertEqual(listed.count, 6)
        for p in listed {
            let name = try XCTUnwrap(p["displayName"] as? String)
            XCTAssertEqual(sha256(ofFile: out + "/" + name), p["sha256"] as? String, name)
            XCTAssertTrue(FileManager.default.fileExists(atPath: out + "/" + name + ".xmp"), name)
        }
        XCTAssertEqual(filesUnder(out).count, 12, "6 originals and 6 sidecars: \(filesUnder(out))")
        XCTAssertEqual(filesUnder(out, hidden: true).filter { $0.contains(Exporter.temporaryPrefix) }, [])

        let help = photos(["export", "--help"])
        XCTAssertEqual(help.status, 0)
        XCTAssertEqual(help.stdout, photos(["help", "export"]).stdout)
        XCTAssertTrue(help.stdout.contains("USAGE: photos export [<options>] <dest>"), help.stdout)
        for option in [
            "--tag", "--share", "--min-rating", "--since", "--until", "--name", "--template", "--thumbnails",
            "--sidecar", "--update",
            "--cleanup", "--dry-run"
        ] {
            XCTAssertTrue(help.stdout.contains(option), option)
        }
        XCTAssertTrue(photos(["--help"]).stdout.contains("  export "))
        XCTAssertEqual(photos(["--library", lib, "export", out, "--sidecar", "yaml"]).status, 64)
        XCTAssertEqual(photos(["--library", lib, "export", out, "--template", "{nope}"]).status, 64)
        XCTAssertEqual(photos(["--library", lib, "export", out, "--min-rating", "6"]).status, 64)
        XCTAssertEqual(photos(["--library", lib, "export", out, "--share", "no-such-share"]).status, 66)
    }

    func testFiltersThumbnailsTemplateAndDryRun() throws {
        run(["import", "-q", samplesDir])
        let out = dir + "/out"
        let dry = try summary(run(["export", out, "--dry-run", "--json"]))
        XCTAssertEqual(dry["written"] as? Int, 6)
        XCTAssertEqual(dry["dryRun"] as? Bool, true)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out), "a dry run creates nothing")

        let rated = try summary(
            run([
                "export", out, "--min-rating", "4", "--tag", "Nature", "--thumbnails",
                "--template", "{capture:%Y}/{uniqueName}", "--json"
            ]))
        XCTAssertEqual(rated["written"] as? Int, 1)
        let ladybird = try XCTUnwrap(try listPhotos(lib).first { $0["displayName"] as? String == "ladybird.jpg" })
        let unique = try XCTUnwrap(ladybird["uniqueName"] as? String)
        let year = String((ladybird["importedAt"] as? String ?? "").prefix(4))
        XCTAssertEqual(
            filesUnder(out), ["\(year)/\(unique).jpg", "\(year)/\(unique).jpg.xmp", "\(year)/\(unique).thumb.jpg"])
        let thumb = try XCTUnwrap(FileManager.default.contents(atPath: "\(out)/\(year)/\(unique).thumb.jpg"))
        XCTAssertEqual(Array(thumb.prefix(2)), [0xFF, 0xD8])
        // Only colorful-cups-progressive.jpg, rated 5 in its embedded (digiKam) XMP.
        XCTAssertEqual(try summary(run(["export", dir + "/five", "--min-rating", "5", "--json"]))["written"] as? Int, 1)
        XCTAssertEqual(
            try summary(run(["export", dir + "/since", "--since", "2008-01-01", "--until", "2014-12-31", "--json"]))[
                "written"] as? Int, 2)
        run(["export", dir + "/zone", "--share", "default", "--json"], status: 66) // default is a zone, not a share
    }

    func testCollidingAndUnsafeNamesStayInsideAndStable() throws {
        let a = dir + "/in/a", b = dir + "/in/b"
        try FileManager.default.createDirectory(atPath: a, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: b, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: samplesDir + "/storm.jpg", toPath: a + "/IMG_0001.JPG")
        try FileManager.default.copyItem(atPath: samplesDir + "/path.jpg", toPath: b + "/IMG_0001.JPG")
        run(["import", "-q", dir + "/in"])
        let photos = try listPhotos(lib).sorted {
            ($0["uniqueName"] as? String ?? "") < ($1["uniqueName"] as? String ?? "")
        }
        XCTAssertEqual(photos.count, 2)
        let out = dir + "/out"
        for round in 0..<2 {
            let s = try summary(run(["export", out, "--json"]))
            XCTAssertEqual(s["written"] as? Int, round == 0 ? 2 : 0)
            XCTAssertEqual(s["skipped"] as? Int, round == 0 ? 0 : 2)
            XCTAssertEqual(
                filesUnder(out), ["IMG_0001 (1).JPG", "IMG_0001 (1).JPG.xmp", "IMG_0001.JPG", "IMG_0001.JPG.xmp"])
            XCTAssertEqual(
                sha256(ofFile: out + "/IMG_0001.JPG"), photos[0]["sha256"] as? String,
                "the smaller uniqueName gets the plain name")
            XCTAssertEqual(sha256(ofFile: out + "/IMG_0001 (1).JPG"), photos[1]["sha256"] as? String)
        }
        // The same names with --update, and into a fresh folder.
        XCTAssertEqual(try summary(run(["export", out, "--update", "--json"]))["skipped"] as? Int, 2)
        run(["export", dir + "/fresh", "-q"])
        XCTAssertEqual(sha256(ofFile: dir + "/fresh/IMG_0001 (1).JPG"), photos[1]["sha256"] as? String)

        // Hostile display names (set behind the tool's back) land inside DEST, under safe names.
        let db = try TestCatalog(root: lib)
        try db.run(
            "UPDATE photo SET display_name = ? WHERE unique_name = ?",
            ["../../etc/passwd", photos[0]["uniqueName"] as? String ?? ""])
        try db.run(
            "UPDATE photo SET display_name = ? WHERE unique_name = ?",
            ["evil\nname\u{1}.jpg", photos[1]["uniqueName"] as? String ?? ""])
        let unsafe = dir + "/deep/unsafe"
        run(["export", unsafe, "-q"])
        XCTAssertEqual(filesUnder(unsafe), ["etc/passwd", "etc/passwd.xmp", "evil_name_.jpg", "evil_name_.jpg.xmp"])
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: dir + "/deep"), ["unsafe"], "nothing beside DEST")
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/etc"))
        try db.run(
            "UPDATE photo SET display_name = ? WHERE unique_name = ?",
            ["/../..", photos[0]["uniqueName"] as? String ?? ""])
        run(["export", dir + "/empty", "-q"])
        XCTAssertTrue(
            filesUnder(dir + "/empty").contains("\(photos[0]["uniqueName"] as? String ?? "").jpg"),
            "\(filesUnder(dir + "/empty"))")

        // A symbolic link inside DEST that points outside is not followed.
        try db.run(
            "UPDATE photo SET display_name = ? WHERE unique_name = ?",
            ["../../etc/passwd", photos[0]["uniqueName"] as? String ?? ""])
        let linked = dir + "/linked"
        try FileManager.default.createDirectory(atPath: linked, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: dir + "/outside", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: linked + "/etc", withDestinationPath: dir + "/outside")
        let escaped = run(["export", linked, "--sidecar", "none"], status: 1)
        XCTAssertTrue(escaped.stderr.contains("resolves outside the export folder"), escaped.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir + "/outside"), [])
    }

    func testUpdateSkipsUnchangedRewritesChangedSidecarAndCleansUp() throws {
        run(["import", "-q", samplesDir])
        let out = dir + "/out"
        XCTAssertEqual(try summary(run(["export", out, "--update", "--json"]))["written"] as? Int, 6)
        // By inode: a rewritten file is a new file renamed into place (its mtime is the capture time either way).
        let before = Dictionary(
            uniqueKeysWithValues: filesUnder(out).map {
                ($0, try? FileManager.default.attributesOfItem(atPath: out + "/" + $0)[.systemFileNumber] as? UInt64)
            })
        let second = try summary(run(["export", out, "--update", "--json"]))
        XCTAssertEqual(second["written"] as? Int, 0)
        XCTAssertEqual(second["updated"] as? Int, 0)
        XCTAssertEqual(second["skipped"] as? Int, 6)
        XCTAssertEqual(second["bytes"] as? Int, 0)

        // A new tag on one photo: only its sidecar is rewritten.
        let db = try TestCatalog(root: lib)
        try db.run(
            "INSERT INTO tag (uuid, name, zone_id) VALUES (?, 'Sky & Sea', 'default')", [UUID().uuidString.lowercased()]
        )
        try db.run(
            "INSERT INTO photo_tag (photo_id, tag_id) SELECT id, ? FROM photo WHERE display_name = 'storm.jpg'",
            [db.lastInsertRowID])
        Thread.sleep(forTimeInterval: 0.01)
        let third = try summary(run(["export", out, "--update", "--json"]))
        XCTAssertEqual(third["written"] as? Int, 0)
        XCTAssertEqual(third["updated"] as? Int, 1)
        XCTAssertEqual(third["skipped"] as? Int, 5)
        for (file, date) in before {
            let now = try FileManager.default.attributesOfItem(atPath: out + "/" + file)[.systemFileNumber] as? UInt64
            if file == "storm.jpg.xmp" { XCTAssertNotEqual(now, date, file) } else { XCTAssertEqual(now, date, file) }
        }
        let sidecar = try XMPSidecar.parse(
            try XCTUnwrap(FileManager.default.contents(atPath: out + "/storm.jpg.xmp")), path: "storm.jpg.xmp")
        XCTAssertEqual(sidecar.subjects, ["Sky & Sea"])

        // A rating changes the sidecar too (and is written rounded: mean of 2 and 3 is 2.5 → 3).
        try db.run(
            "INSERT INTO rating (uuid, photo_id, value) SELECT ?, id, 2 FROM photo WHERE display_name = 'kite.png'",
            [UUID().uuidString.lowercased()])
        try db.run(
            "INSERT INTO rating (uuid, photo_id, value) SELECT ?, id, 3 FROM photo WHERE display_name = 'kite.png'",
            [UUID().uuidString.lowercased()])
        XCTAssertEqual(try summary(run(["export", out, "--update", "--json"]))["updated"] as? Int, 1)
        XCTAssertTrue(
            String(decoding: FileManager.default.contents(atPath: out + "/kite.png.xmp") ?? Data(), as: UTF8.self)
                .contains("xmp:Rating=\"3\""))

        // A damaged state file is set aside and rebuilt from the files: nothing is rewritten.
        try Data("this is not a database".utf8).write(to: URL(fileURLWithPath: out + "/" + ExportState.fileName))
        let rebuilt = run(["export", out, "--update", "--json"])
        XCTAssertEqual(try summary(rebuilt)["skipped"] as? Int, 6, rebuilt.stderr)
        XCTAssertTrue(rebuilt.stderr.contains("export state was unreadable"), rebuilt.stderr)
        try FileManager.default.removeItem(atPath: out + "/" + ExportState.fileName)
        XCTAssertEqual(
            try summary(run(["export", out, "--update", "--json"]))["skipped"] as? Int, 6, "missing state: rebuilt too")

        // --cleanup: a deleted photo and a filtered-out one go, with their sidecars.
        let storm = try XCTUnwrap(
            try listPhotos(lib).first { $0["displayName"] as? String == "storm.jpg" }?["uniqueName"] as? String)
        run(["delete", storm])
        let kept = try summary(run(["export", out, "--update", "--json"]))
        XCTAssertNil(kept["removed"])
        XCTAssertTrue(
            FileManager.default.fileExists(atPath: out + "/storm.jpg"), "without --cleanup nothing is removed")
        let cleaned = try summary(run(["export", out, "--update", "--cleanup", "--tag", "Nature", "--json"]))
        XCTAssertEqual(
            cleaned["removed"] as? Int, 10, "5 photos (one deleted, four filtered out), each with its sidecar")
        XCTAssertEqual(filesUnder(out), ["ladybird.jpg", "ladybird.jpg.xmp"])

        // Without --update a file of the same name but other bytes is never overwritten.
        let other = dir + "/other"
        try FileManager.default.createDirectory(atPath: other, withIntermediateDirectories: true)
        try Data("mine".utf8).write(to: URL(fileURLWithPath: other + "/ladybird.jpg"))
        run(["export", other, "--tag", "Nature", "-q"])
        XCTAssertEqual(
            String(decoding: FileManager.default.contents(atPath: other + "/ladybird.jpg") ?? Data(), as: UTF8.self),
            "mine")
        XCTAssertEqual(filesUnder(other), ["ladybird (1).jpg", "ladybird (1).jpg.xmp", "ladybird.jpg"])
    }

    func testRoundTripThroughImportKeepsPhotosTagsAndRatings() throws {
        run(["import", "-q", samplesDir])
        let db = try TestCatalog(root: lib)
        try db.run(
            "INSERT INTO tag (uuid, name, zone_id) VALUES (?, ?, 'default')",
            [UUID().uuidString.lowercased(), "Café & <Friends> \"quoted\""])
        try db.run(
            "INSERT INTO photo_tag (photo_id, tag_id) SELECT id, ? FROM photo WHERE display_name IN ('kite.png', 'path.jpg')",
            [db.lastInsertRowID])
        try db.run(
            "INSERT INTO rating (uuid, photo_id, value) SELECT ?, id, 5 FROM photo WHERE display_name = 'ladybird.jpg'",
            [UUID().uuidString.lowercased()])
        try db.run(
            "INSERT INTO rating (uuid, photo_id, value) SELECT ?, id, 1 FROM photo WHERE display_name = 'path.jpg'",
            [UUID().uuidString.lowercased()])
        let expected = try fingerprint(lib)
        XCTAssertTrue(expected.contains { $0.hasSuffix("[Insect|Nature] 5") }, "ratings 4 and 5 show as 5: \(expected)")

        for format in ["xmp", "json"] {
            let out = dir + "/out-\(format)"
            run(["export", out, "--sidecar", format, "-q", "--template", "{capture:%Y}/{name}"])
            if format == "xmp" {
                for file in filesUnder(out) where file.hasSuffix(".xmp") {
                    let parser = XMLParser(data: try XCTUnwrap(FileManager.default.contents(atPath: out + "/" + file)))
                    XCTAssertTrue(parser.parse(), "\(file) is well-formed XML")
                }
                try checkWithExiftool(out)
            }
            let second = dir + "/lib-\(format)"
            let imported = try summary(run(["import", out, "--json"], library: second))
            XCTAssertEqual(imported["imported"] as? Int, 6)
            XCTAssertEqual(imported["skipped"] as? Int, 0, "sidecars and the state file are not counted")
            XCTAssertEqual(try fingerprint(second), expected, format)
        }
    }

    func checkWithExiftool(_ out: String) throws {
        let which = Process()
        which.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        which.arguments = ["which", "exiftool"]
        which.standardOutput = FileHandle.nullDevice
        which.standardError = FileHandle.nullDevice
        try which.run()
        which.waitUntilExit()
        guard which.terminationStatus == 0 else { return } // exiftool not installed: the XMLParser check stands
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["exiftool", "-j", "-r", "-ext", "xmp", "-XMP-dc:Subject", "-XMP-xmp:Rating", out]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let items = try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [[String: Any]])
        XCTAssertEqual(items.count, 6)
        let ladybird = try XCTUnwrap(
            items.first { ($0["SourceFile"] as? String)?.hasSuffix("ladybird.jpg.xmp") == true })
        XCTAssertEqual(ladybird["Rating"] as? Int, 5)
        XCTAssertEqual(Set(ladybird["Subject"] as? [String] ?? []), ["Insect", "Nature"])
        let kite = try XCTUnwrap(items.first { ($0["SourceFile"] as? String)?.hasSuffix("kite.png.xmp") == true })
        let subject = (kite["Subject"] as? [String]) ?? (kite["Subject"] as? String).map { [$0] } ?? []
        XCTAssertEqual(subject, ["Café & <Friends> \"quoted\""])
    }

    func testDamagedOriginalFailsThatPhotoAndTheExportGoesOn() throws {
        run(["import", "-q", samplesDir])
        let storm = try XCTUnwrap(try listPhotos(lib).first { $0["displayName"] as? String == "storm.jpg" })
        let sha = try XCTUnwrap(storm["sha256"] as? String)
        let original = lib + "/ExternalData/" + String(sha.prefix(2)) + "/" + sha
        var bytes = try XCTUnwrap(FileManager.default.contents(atPath: original))
        bytes[bytes.count / 2] ^= 0xFF
        try bytes.write(to: URL(fileURLWithPath: original))
        let out = dir + "/out"
        let result = run(["export", out, "--check-hashes", "--json"], status: 1)
        XCTAssertTrue(
            result.stderr.contains("\(storm["uniqueName"] as? String ?? "") (storm.jpg): error: SHA-256 mismatch"),
            result.stderr)
        let s = try summary(result)
        XCTAssertEqual(s["written"] as? Int, 5)
        XCTAssertEqual(s["failed"] as? Int, 1)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out + "/storm.jpg"), "a damaged original is not exported")
        XCTAssertEqual(filesUnder(out, hidden: true).filter { $0.contains(Exporter.temporaryPrefix) }, [])
    }

    func testDestinationThatCannotBeCreatedExits73() throws {
        run(["import", "-q", samplesDir + "/kite.png"])
        let blocker = dir + "/blocker"
        _ = FileManager.default.createFile(atPath: blocker, contents: Data("x".utf8))
        let result = run(["export", blocker + "/sub"], status: 73)
        XCTAssertTrue(result.stderr.contains("cannot create export folder"), result.stderr)
        XCTAssertEqual(run(["export", blocker], status: 73).stdout, "")
    }

    /// A template that walks through a symbolic link in DEST must not create folders at the
    /// link's target either: each folder is checked before the next one is made inside it.
    func testTemplateThroughASymlinkCreatesNoFolderOutsideDest() throws {
        run(["import", "-q", samplesDir + "/kite.png"])
        let dest = dir + "/dest", outside = dir + "/outside"
        try FileManager.default.createDirectory(atPath: dest, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: dest + "/link", withDestinationPath: outside)
        let result = run(["export", dest, "--template", "link/sub/deeper/{name}"], status: 1)
        XCTAssertTrue(result.stderr.contains("resolves outside the export folder"), result.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: outside), [], "no folder made outside DEST")
    }

    /// DEST inside the library folder would put files where `verify --repair` deletes them as
    /// orphans (or beside the database): refused with 73, and nothing is created there.
    func testDestinationInsideTheLibraryIsRefused() throws {
        run(["import", "-q", samplesDir + "/kite.png"])
        for dest in [lib + "/ExternalData", lib + "/ExternalData/new/sub", lib, lib + "/../lib/x"] {
            let result = run(["export", dest], status: 73)
            XCTAssertTrue(result.stderr.contains("inside the library"), result.stderr)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: lib + "/ExternalData/new"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: lib + "/x"))
        // A template that leads from a DEST beside the library into it is refused per photo.
        let into = run(["export", dir, "--template", "lib/ExternalData/{name}"], status: 1)
        XCTAssertTrue(into.stderr.contains("inside the library"), into.stderr)
        XCTAssertEqual(run(["verify"]).status, 0)
    }
}
