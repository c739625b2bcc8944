import Foundation
import XCTest
import PhotosTestSupport
import PhotosFiles
@testable import PhotosCLI
import PhotosCore
import PhotosImaging
import PhotosSQLite

/// Issue 9 items 8 and 11: verify checks thumbnails and --repair regenerates them; verify names
/// photos by uniqueName and displayName; `verify --repair --dry-run` lists exactly what --repair
/// changes and changes nothing; re-importing the intact file heals a missing or damaged original.
final class VerifyHealCLITests: TemporaryFolderTestCase {
    override var label: String { "photos-verify-heal" }
    var lib: String { dir + "/lib" }

    func run(_ args: [String]) -> RunResult { photos(["--library", lib] + args) }

    func db() throws -> TestCatalog { try TestCatalog(root: lib) }

    /// storm (tag Sky, a rating of 5), ladybird (sidecar: Nature, Insect, rating 4), path, kite.
    func importSamples() throws {
        XCTAssertEqual(
            run(
                ["import", "-q", "--tag", "Sky"]
                    + ["storm.jpg", "ladybird.jpg", "path.jpg", "kite.png"].map { samplesDir + "/" + $0 }
            ).status, 0)
        XCTAssertEqual(run(["rate", try uniqueName("storm.jpg"), "5"]).status, 0)
    }

    func uniqueName(_ displayName: String) throws -> String {
        try XCTUnwrap(try db().scalarString("SELECT unique_name FROM photo WHERE display_name = ?", [displayName]))
    }

    func originalPath(_ displayName: String) throws -> String {
        lib + "/ExternalData/"
            + (try XCTUnwrap(
                try db().scalarString(
                    "SELECT d.file_ref FROM photo_data d JOIN photo p ON p.id = d.photo_id WHERE p.display_name = ?",
                    [displayName])))
    }

    func thumbnail(_ displayName: String) throws -> (data: [UInt8], width: Int, height: Int) {
        try XCTUnwrap(
            try db().statement(
                "SELECT t.data, t.width, t.height FROM thumbnail t JOIN photo p ON p.id = t.photo_id WHERE p.display_name = ?"
            )
            .first([displayName]) { ($0.blob(0), $0.int(1), $0.int(2)) })
    }

    func setThumbnail(_ displayName: String, _ bytes: [UInt8], width: Int? = nil, height: Int? = nil) throws {
        let db = try db()
        try db.run(
            "UPDATE thumbnail SET data = ? WHERE photo_id = (SELECT id FROM photo WHERE display_name = ?)",
            [bytes, displayName])
        if let width, let height {
            try db.run(
                "UPDATE thumbnail SET width = ?, height = ? WHERE photo_id = (SELECT id FROM photo WHERE display_name = ?)",
                [width, height, displayName])
        }
    }

    func verifyJSON(_ args: [String] = []) throws -> (status: Int32, report: [String: Any]) {
        let r = run(["--json", "verify"] + args)
        return (
            r.status,
            try XCTUnwrap(
                JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any], r.stdout + r.stderr)
        )
    }

    func details(_ report: [String: Any]) -> [[String: Any]] { report["details"] as? [[String: Any]] ?? [] }

    /// Every row of every table (`LibrarySnapshot.dumpCatalog`, either backend) and every file
    /// of the library folder except the SQLite database's own files (a checkpoint rewrites those
    /// without changing a row), with its size and SHA-256.
    func dump() throws -> [String] {
        var lines = try LibrarySnapshot.dumpCatalog(lib)
        let fm = FileManager.default
        for path in (fm.subpaths(atPath: lib) ?? []).sorted() where !path.hasPrefix("photos.sqlite") {
            var isDir: ObjCBool = false
            _ = fm.fileExists(atPath: lib + "/" + path, isDirectory: &isDir)
            if isDir.boolValue { lines.append("dir " + path); continue }
            let bytes = [UInt8](fm.contents(atPath: lib + "/" + path) ?? Data())
            lines.append("file \(path) \(bytes.count) " + (try bytes.withUnsafeBytes { try SHA256Hasher.hex(of: $0) }))
        }
        return lines
    }

    // MARK: - Item 11: thumbnails

    /// Deterministic bytes (xorshift64*), so a failure can be reproduced.
    func randomBytes(_ count: Int, seed: UInt64) -> [UInt8] {
        var x = seed
        return (0..<count).map { _ in
            x ^= x >> 12; x ^= x << 25; x ^= x >> 27
            return UInt8(truncatingIfNeeded: (x &* 0x2545F4914F6CDD1D) >> 56)
        }
    }

    /// A sound JPEG of `width` × `height` (mid grey), from the project's encoder.
    func jpeg(width: Int, height: Int) throws -> [UInt8] {
        try ImageDecoder.encodeJPEG(
            try PixelBuffer(width: width, height: height, rgb: [UInt8](repeating: 128, count: width * height * 3)),
            quality: 85)
    }

    func testEveryDamagedThumbnailIsReportedRefusedAndRegeneratedFromTheOriginal() throws {
        try importSamples()
        let original = try thumbnail("storm.jpg")
        XCTAssertEqual([original.width, original.height], [120, 80], "storm is 1440×960")
        XCTAssertNil(ThumbnailCheck.problem(original.data, width: original.width, height: original.height))
        let storm = try uniqueName("storm.jpg")
        let ladybirdThumb = try thumbnail("ladybird.jpg")
        let random = randomBytes(100_000, seed: 9)
        // The cases whose marker structure is whole (scan data damaged): full verify only, since
        // `--quick` checks the structure without decoding (VerifyQuickThumbnailStructureTests).
        let scanOnly: Set<String> = ["truncated, EOI appended"]
        let damages: [(String, [UInt8], (Int, Int)?)] = [
            ("four bytes", [0xDE, 0xAD, 0xBE, 0xEF], nil),
            ("empty", [], nil),
            ("100 KB of random bytes", random, nil),
            ("random bytes between SOI and EOI", [0xFF, 0xD8, 0xFF] + random.prefix(5000) + [0xFF, 0xD9], nil),
            ("SOI and EOI only", [0xFF, 0xD8, 0xFF, 0xD9], nil),
            ("truncated to half", Array(original.data.prefix(original.data.count / 2)), nil),
            ("truncated, EOI appended", Array(original.data.prefix(original.data.count / 2)) + [0xFF, 0xD9], nil),
            ("another photo's thumbnail (another size)", ladybirdThumb.data, nil),
            ("a sound JPEG larger than 120 pixels, recorded as such", try jpeg(width: 200, height: 150), (200, 150)),
            ("a sound JPEG declaring more than 120×120", try jpeg(width: 640, height: 480), nil)
        ]
        XCTAssertNotEqual([ladybirdThumb.width, ladybirdThumb.height], [original.width, original.height])
        for (label, bytes, recorded) in damages {
            try setThumbnail(
                "storm.jpg", bytes, width: recorded?.0 ?? original.width, height: recorded?.1 ?? original.height)
            for quick in scanOnly.contains(label) ? [[]] : [[], ["--quick"]] {
                let (status, report) = try verifyJSON(quick)
                XCTAssertEqual(status, 1, "\(label) \(quick)")
                let found = details(report).filter { $0["kind"] as? String == "damaged-thumbnail" }
                XCTAssertEqual(found.count, 1, "\(label) \(quick): \(report)")
                let detail = found.first?["detail"] as? String ?? ""
                XCTAssertTrue(detail.hasPrefix("photo \(storm) (storm.jpg): thumbnail "), "\(label): \(detail)")
            }
            let out = dir + "/out.jpg"
            let refused = run(["thumbnail", storm, "-o", out])
            XCTAssertEqual(refused.status, 65, "\(label): \(refused.stderr)")
            XCTAssertTrue(refused.stderr.contains("verify --repair"), refused.stderr)
            XCTAssertFalse(FileManager.default.fileExists(atPath: out), "\(label): nothing written")
            let exported = run([
                "export", dir + "/export-\(damages.firstIndex { $0.0 == label } ?? 0)", "--thumbnails", "--tag", "Sky"
            ])
            XCTAssertEqual(
                exported.status, 1, "\(label): export names the damaged thumbnail as a failure: \(exported.stderr)")

            let tokenBefore = try db().scalarInt("SELECT max(token) FROM history_transaction") ?? 0
            let repair = run(["verify", "--repair"])
            XCTAssertEqual(repair.status, 0, "\(label): \(repair.stdout)")
            XCTAssertTrue(
                repair.stdout.contains("repaired: damaged-thumbnail: photo \(storm) (storm.jpg)"), repair.stdout)
            // The same Thumbnailer and options as the import: the very same bytes come back.
            let again = try thumbnail("storm.jpg")
            XCTAssertEqual([again.width, again.height], [120, 80], label)
            XCTAssertEqual(again.data, original.data, label)
            let decoded = try again.data.withUnsafeBytes {
                try ImageDecoder.decode($0, format: .jpeg, targetEdge: 120, maxPixels: 1 << 20)
            }
            XCTAssertEqual([decoded.storedWidth, decoded.storedHeight, decoded.warnings.count], [120, 80, 0])
            let changes = try db().statement(
                "SELECT t.author, t.context, c.entity, c.type, c.updated FROM history_change c JOIN history_transaction t ON t.token = c.token WHERE t.token > ?"
            )
            .map([tokenBefore]) { (0..<5).map($0.string) }
            XCTAssertEqual(
                changes, [["verify", "verify --repair", "Thumbnail", "update", #"["data","width","height"]"#]], label)
            XCTAssertEqual(run(["thumbnail", storm, "-o", out]).status, 0)
            XCTAssertEqual([UInt8](FileManager.default.contents(atPath: out) ?? Data()), original.data)
            try? FileManager.default.removeItem(atPath: out)
        }
    }

    func testAMissingThumbnailIsMadeAgainAndOneWhoseOriginalIsGoneGoesWithThePhoto() throws {
        try importSamples()
        let original = try thumbnail("path.jpg")
        try db().run("DELETE FROM thumbnail WHERE photo_id = (SELECT id FROM photo WHERE display_name = 'path.jpg')")
        XCTAssertEqual(try verifyJSON(["--quick"]).status, 1)
        XCTAssertEqual(run(["verify", "--repair"]).status, 0)
        XCTAssertEqual(try thumbnail("path.jpg").data, original.data)
        XCTAssertEqual(
            try db().scalarString(
                "SELECT c.type FROM history_change c WHERE c.entity = 'Thumbnail' ORDER BY c.id DESC LIMIT 1"), "insert"
        )

        // A thumbnail that cannot be made again (its original is damaged) stays a problem.
        try setThumbnail("kite.png", [1, 2, 3, 4])
        let kite = try originalPath("kite.png")
        var bytes = [UInt8](FileManager.default.contents(atPath: kite) ?? Data())
        bytes[bytes.count / 2] ^= 0x55
        XCTAssertTrue(FileManager.default.createFile(atPath: kite, contents: Data(bytes)))
        let (status, report) = try verifyJSON(["--repair"])
        XCTAssertEqual(status, 1)
        XCTAssertEqual(
            details(report).map { $0["kind"] as? String ?? "" }.sorted(), ["damaged-thumbnail", "hash-mismatch"])
        XCTAssertEqual(details(report).filter { $0["repaired"] as? Bool == true }.count, 0)
    }

    /// The rest of the kind "verify checks every invariant the library relies on": a sound
    /// thumbnail of the wrong size for its photo, a file reference that is not the content
    /// address, tag names and uuids that find-or-create and dedupe-tags could not match.
    func testOtherInvariantsTheLibraryReliesOn() throws {
        try importSamples()
        let storm = try uniqueName("storm.jpg"), path = try uniqueName("path.jpg")
        let ladybirdThumb = try thumbnail("ladybird.jpg")
        // ladybird's sound thumbnail, with its own recorded size, on storm.
        try setThumbnail("storm.jpg", ladybirdThumb.data, width: ladybirdThumb.width, height: ladybirdThumb.height)
        let db = try db()
        try db.run(
            "UPDATE photo_data SET file_ref = 'zz/' || sha256 WHERE photo_id = (SELECT id FROM photo WHERE unique_name = ?)",
            [path])
        try db.run(
            "INSERT INTO tag (uuid, name, zone_id) VALUES ('5e2c1a4f-0000-4000-8000-000000000001', 'Cafe\u{301}', 'default')"
        )
        try db.run(
            "INSERT INTO tag (uuid, name, zone_id) VALUES ('5e2c1a4f-0000-4000-8000-000000000002', ' Sky', 'default')")
        try db.run(
            "INSERT INTO tag (uuid, name, zone_id) VALUES ('5E2C1A4F-0000-4000-8000-000000000003', 'Upper', 'default')")
        try db.run("INSERT INTO tag (uuid, name, zone_id) VALUES ('not-a-uuid', 'Odd', 'default')")
        let (status, report) = try verifyJSON(["--quick"])
        XCTAssertEqual(status, 1)
        let found = details(report).map { ($0["kind"] as? String ?? "") + ": " + ($0["detail"] as? String ?? "") }
            .sorted()
        XCTAssertEqual(found.filter { $0.hasPrefix("bad-tag-name") }.count, 2, "\(found)")
        XCTAssertEqual(found.filter { $0.hasPrefix("bad-tag-uuid") }.count, 2, "\(found)")
        XCTAssertTrue(
            found.contains(
                "damaged-thumbnail: photo \(storm) (storm.jpg): thumbnail is \(ladybirdThumb.width)×\(ladybirdThumb.height) pixels, but a 1600×1067 photo's thumbnail is 120×80"
            ), "\(found)")
        let sha = try XCTUnwrap(try db.scalarString("SELECT sha256 FROM photo_data WHERE file_ref LIKE 'zz/%'"))
        XCTAssertTrue(
            found.contains(
                "bad-file-reference: photo \(path) (path.jpg): original is recorded as zz/\(sha), but its SHA-256 \(sha) says \(sha.prefix(2))/\(sha)"
            ), "\(found)")
        XCTAssertEqual(found.count, 6, "the misaddressed original is neither missing nor an orphan: \(found)")
        // The thumbnail is made again, the reference pointed back at the file and the tag names
        // normalized (#31 A9); the uuids are reported, not guessed at.
        let (_, repaired) = try verifyJSON(["--repair", "--quick"])
        XCTAssertEqual(
            details(repaired).filter { $0["repaired"] as? Bool == true }.map { $0["kind"] as? String ?? "" }.sorted(),
            ["bad-file-reference", "bad-tag-name", "bad-tag-name", "damaged-thumbnail"])
        XCTAssertEqual(
            try db.scalarString("SELECT name FROM tag WHERE uuid = '5e2c1a4f-0000-4000-8000-000000000001'")
                .map { Array($0.unicodeScalars) }, Array("Caf\u{E9}".unicodeScalars))
        XCTAssertEqual(
            try db.scalarString("SELECT file_ref FROM photo_data WHERE sha256 = ?", [sha]), "\(sha.prefix(2))/\(sha)")
        XCTAssertTrue(
            FileManager.default.fileExists(atPath: lib + "/ExternalData/\(sha.prefix(2))/\(sha)"),
            "the original was not taken for an orphan")
        XCTAssertEqual(try db.scalarInt("SELECT count(*) FROM photo"), 4, "no photo deleted")
        XCTAssertEqual([try thumbnail("storm.jpg").width, try thumbnail("storm.jpg").height], [120, 80])
        XCTAssertEqual(run(["thumbnail", storm, "-o", dir + "/t.jpg"]).status, 0)
    }

    // MARK: - Item 8: dry run, names

    func testRepairDryRunListsExactlyWhatRepairChangesAndChangesNothing() throws {
        try importSamples()
        let ladybird = try uniqueName("ladybird.jpg")
        XCTAssertEqual(unlink(try originalPath("ladybird.jpg")), 0) // missing original
        try setThumbnail("storm.jpg", [0xDE, 0xAD, 0xBE, 0xEF]) // damaged thumbnail
        try db().run("DELETE FROM thumbnail WHERE photo_id = (SELECT id FROM photo WHERE display_name = 'path.jpg')")
        try FileManager.default.createDirectory(atPath: lib + "/ExternalData/ab", withIntermediateDirectories: true)
        // an orphan
        XCTAssertTrue(
            FileManager.default.createFile(
                atPath: lib + "/ExternalData/ab/ab" + String(repeating: "0", count: 62), contents: Data([1, 2, 3])))
        XCTAssertTrue(
            FileManager.default.createFile(atPath: lib + "/ExternalData/ab/.tmp-leftover", contents: Data([9])))

        let before = try dump()
        let dry = run(["verify", "--repair", "--dry-run"])
        XCTAssertEqual(dry.status, 1, dry.stdout)
        XCTAssertEqual(try dump(), before, "a dry run changes no row and no file")
        let (dryStatus, dryReport) = try verifyJSON(["--repair", "--dry-run"])
        XCTAssertEqual(dryStatus, 1)
        XCTAssertEqual(dryReport["dryRun"] as? Bool, true)
        XCTAssertEqual(try dump(), before)
        let planned = Set(details(dryReport).compactMap { $0["repair"] as? String })
        XCTAssertEqual(planned.count, 5, "\(planned)")
        XCTAssertTrue(
            planned.contains(
                "delete photo \(ladybird) (ladybird.jpg) with its 1 rating and 3 tag links; re-importing the intact original restores it instead"
            ), "\(planned)")
        let wouldLines = Set(
            dry.stdout.split(separator: "\n").filter { $0.hasPrefix("  would repair: ") }.map {
                String($0.dropFirst("  would repair: ".count))
            })
        XCTAssertEqual(wouldLines, planned)
        XCTAssertTrue(
            dry.stdout.contains("problem: missing-file: photo \(ladybird) (ladybird.jpg): original "), dry.stdout)

        let (status, report) = try verifyJSON(["--repair"])
        XCTAssertEqual(status, 0, "\(report)")
        let made = Set(
            details(report).filter { $0["repaired"] as? Bool == true }.compactMap { $0["repair"] as? String })
        XCTAssertEqual(made, planned, "--repair made exactly the repairs the dry run listed")
        XCTAssertEqual(try verifyJSON().status, 0)
    }

    // MARK: - Item 8: heal on re-import

    func testReimportRestoresAMissingTruncatedOrAlteredOriginalKeepingThePhoto() throws {
        try importSamples()
        let storm = try uniqueName("storm.jpg")
        XCTAssertEqual(run(["share", "create", storm, "--title", "Trip"]).status, 0)
        let share = try XCTUnwrap(try db().scalarString("SELECT id FROM share"))
        let file = try originalPath("storm.jpg")
        let intact = [UInt8](FileManager.default.contents(atPath: samplesDir + "/storm.jpg") ?? Data())
        let rows = { [self] in
            try self.dump().filter {
                !$0.hasPrefix("file ") && !$0.hasPrefix("history_") && !$0.hasPrefix("sqlite_sequence")
            }
        }
        let rowsBefore = try rows()
        let damages: [(String, () throws -> Void, String)] = [
            ("missing", { XCTAssertEqual(unlink(file), 0) }, "it was missing"),
            (
                "truncated", { _ = FileManager.default.createFile(atPath: file, contents: Data(intact.prefix(1000))) },
                "it had 1000 bytes instead of \(intact.count)"
            ),
            (
                "same size, one byte changed",
                {
                    var b = intact; b[b.count / 2] ^= 0x01
                    _ = FileManager.default.createFile(atPath: file, contents: Data(b))
                }, "its bytes no longer matched its SHA-256"
            ),
            (
                "empty", { _ = FileManager.default.createFile(atPath: file, contents: Data()) },
                "it had 0 bytes instead of \(intact.count)"
            )
        ]
        for (label, damage, reason) in damages {
            try damage()
            XCTAssertEqual(try verifyJSON().status, 1, label)
            // A dry run says what it would restore and writes nothing.
            let filesBefore = try dump()
            let dry = run(["--json", "import", "--dry-run", samplesDir + "/storm.jpg"])
            XCTAssertTrue(dry.stdout.contains(#""restored":1"#), dry.stdout)
            XCTAssertEqual(try dump(), filesBefore, label)

            let healed = run(["import", samplesDir + "/storm.jpg"])
            XCTAssertEqual(healed.status, 0, label)
            XCTAssertTrue(
                healed.stdout.hasPrefix("Imported 0 photos, 0 duplicates, 1 original restored, 0 skipped, 0 failed;"),
                healed.stdout)
            XCTAssertTrue(
                healed.stderr.contains("restored the original of photo \(storm) (storm.jpg): \(reason)"), healed.stderr)
            XCTAssertEqual([UInt8](FileManager.default.contents(atPath: file) ?? Data()), intact, label)
            XCTAssertEqual(try rows(), rowsBefore, "\(label): same photo, tags, ratings and share")
            XCTAssertEqual(try db().scalarString("SELECT zone_id FROM photo WHERE unique_name = ?", [storm]), share)
            XCTAssertEqual(try verifyJSON().status, 0, label)
        }
        // An intact original is a plain duplicate: not rewritten.
        var st = stat()
        XCTAssertEqual(stat(file, &st), 0)
        let inode = st.st_ino
        let json = run(["--json", "import", samplesDir + "/storm.jpg", samplesDir + "/path.jpg"])
        XCTAssertTrue(
            json.stdout.hasPrefix(#"{"imported":0,"paired":0,"joined":0,"duplicates":2,"restored":0,"#), json.stdout)
        XCTAssertEqual(stat(file, &st), 0)
        XCTAssertEqual(st.st_ino, inode, "an intact original is left alone")
    }

    /// Merging a peer that has the photo heals a missing or truncated original the same way.
    func testMergeFromAPeerRestoresMissingAndTruncatedOriginals() throws {
        try importSamples()
        let peer = dir + "/peer"
        XCTAssertEqual(
            photos(["--library", peer, "import", "-q", samplesDir + "/storm.jpg", samplesDir + "/path.jpg"]).status, 0)
        let storm = try originalPath("storm.jpg"), path = try originalPath("path.jpg")
        let intact = [
            try Data(contentsOf: URL(fileURLWithPath: samplesDir + "/storm.jpg")),
            try Data(contentsOf: URL(fileURLWithPath: samplesDir + "/path.jpg"))
        ]
        XCTAssertEqual(unlink(storm), 0)
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: intact[1].prefix(100)))
        let rowsBefore = try dump().filter { !$0.hasPrefix("file ") }
        let merged = run(["--json", "merge", "--from", peer])
        let json = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(merged.stdout.utf8)) as? [String: Any], merged.stderr)
        XCTAssertEqual(json["originalsRestored"] as? Int, 2)
        XCTAssertEqual(json["photos"] as? Int, 0)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: storm)), intact[0])
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), intact[1])
        XCTAssertEqual(try dump().filter { !$0.hasPrefix("file ") }, rowsBefore, "no row changed")
        XCTAssertEqual(try verifyJSON().status, 0)
    }

    /// A damaged thumbnail of another library does not come in with a merge: it is made again
    /// from the original, as the import makes it.
    func testMergeRemakesADamagedThumbnailOfThePeer() throws {
        try importSamples()
        let good = try thumbnail("storm.jpg"), goodPath = try thumbnail("path.jpg")
        let peer = dir + "/peer"
        XCTAssertEqual(
            photos(["--library", peer, "import", "-q", samplesDir + "/storm.jpg", samplesDir + "/path.jpg"]).status, 0)
        let peerDB = try TestCatalog(root: peer)
        try peerDB.run(
            "UPDATE thumbnail SET data = ? WHERE photo_id = (SELECT id FROM photo WHERE display_name = 'storm.jpg')",
            [[UInt8]([0xDE, 0xAD, 0xBE, 0xEF])])
        try peerDB.run(
            "UPDATE thumbnail SET width = 7 WHERE photo_id = (SELECT id FROM photo WHERE display_name = 'path.jpg')")
        let target = dir + "/target"
        XCTAssertEqual(photos(["--library", target, "init"]).status, 0)
        XCTAssertEqual(photos(["--library", target, "merge", "--from", peer]).status, 0)
        let t = try TestCatalog(root: target, readOnly: true)
        let merged = try t.statement(
            "SELECT p.display_name, th.data, th.width, th.height FROM thumbnail th JOIN photo p ON p.id = th.photo_id ORDER BY p.display_name"
        )
        .map { ($0.string(0), $0.blob(1), $0.int(2), $0.int(3)) }
        XCTAssertEqual(merged.map(\.0), ["path.jpg", "storm.jpg"])
        XCTAssertEqual(merged[0].1, goodPath.data)
        XCTAssertEqual([merged[0].2, merged[0].3], [goodPath.width, goodPath.height])
        XCTAssertEqual(merged[1].1, good.data)
        XCTAssertEqual([merged[1].2, merged[1].3], [120, 80])
        XCTAssertEqual(photos(["--library", target, "verify"]).status, 0)
    }

    func testTwoCopiesInOneRunRestoreOnceAndJSONNamesTheRestoration() throws {
        try importSamples()
        let path = try uniqueName("path.jpg")
        XCTAssertEqual(unlink(try originalPath("path.jpg")), 0)
        let copy = dir + "/copy of path.jpg"
        try FileManager.default.copyItem(atPath: samplesDir + "/path.jpg", toPath: copy)
        let r = run(["--json", "import", "--jobs", "2", samplesDir + "/path.jpg", copy])
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(json["restored"] as? Int, 1)
        XCTAssertEqual(json["duplicates"] as? Int, 1)
        let restoration = try XCTUnwrap((json["restorations"] as? [[String: Any]])?.first)
        XCTAssertEqual(restoration["uniqueName"] as? String, path)
        XCTAssertEqual(restoration["displayName"] as? String, "path.jpg")
        XCTAssertEqual(restoration["reason"] as? String, "it was missing")
        XCTAssertEqual(try verifyJSON().status, 0)
    }
}
