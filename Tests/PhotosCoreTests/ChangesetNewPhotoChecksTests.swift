import Foundation
import PhotosCore
import PhotosFiles
import PhotosModel
import PhotosSQLite
import PhotosTestSupport
import XCTest

/// Issue 31 B12 and B18: a photo a changeset brings in new is checked as import checks a file.
/// Its original must be carried (with the recorded byteSize, decoding as the recorded format
/// at the recorded width × height) or held here in the photo's own zone; a changeset that
/// names, by SHA-256, an original this library holds only in another zone without carrying it
/// is refused (it would give the share a private photo's bytes); so is a uniqueName that is a
/// case variant of another photo's, an attribute missing, or two values for one attribute.
/// Every refusal is `.refused` (exit 65) naming the photo, with the catalog and external data
/// as they were. A changeset that carries such an original is accepted: the new photo comes in
/// beside the private one, on the same file (issue 31 A1).
final class ChangesetNewPhotoChecksTests: SyncTestCase {
    private func edit(_ cs: String, _ sql: String) throws {
        let db = try Database(path: cs + "/changeset.sqlite")
        try db.execute("PRAGMA journal_mode = DELETE")
        try db.execute(sql)
    }

    /// Regular files under external data, by relative path.
    private func files(_ library: Library) -> [String] {
        let root = library.root + "/ExternalData"
        return ((FileManager.default.enumerator(atPath: root)?.allObjects as? [String]) ?? []).filter {
            var isDir: ObjCBool = false
            return FileManager.default.fileExists(atPath: root + "/" + $0, isDirectory: &isDir) && !isDir.boolValue
        }.sorted()
    }

    private struct Setup {
        var owner: Library
        var ann: Library
        var cs: String
        var share: String
        /// The owner's private photo, its SHA-256 and size.
        var privatePhoto: String
        var privateSHA: String
        var privateSize: Int
        /// The photo ann imported into the share, and its SHA-256.
        var newPhoto: String
        var newSHA: String
    }

    /// The owner (a private photo tagged Private, a share of another with ann, read-write);
    /// ann imports a new photo into the share and exports the share's changeset to `cs`.
    private func participantChangeset() throws -> Setup {
        let owner = try library("owner"), ann = try library("ann")
        let privatePhoto = try importPhotos(owner, count: 1, tags: ["Private"])[0]
        let shared = try importPhotos(owner, count: 1)
        let share = try owner.createShare(photos: [try owner.resolvePhoto(shared[0])], author: .default)
        let email = try Email(parsing: "ann@example.org")
        try owner.invite(email, to: share, permission: .readWrite, author: .default)
        _ = try owner.exportShare(try owner.resolveSharedZone(share.id), for: email, to: dir + "/to-ann")
        _ = try ann.acceptShare(at: dir + "/to-ann")
        var options = ImportOptions(paths: [try distinctJPEG()])
        options.jobs = 1
        options.zone = share.id
        XCTAssertEqual(try Importer(library: ann, libraryRoot: ann.root, options: options).run().imported, 1)
        let newPhoto = try XCTUnwrap(try photos(ann).first { $0.uniqueName != shared[0] })
        let cs = dir + "/from-ann"
        _ = try ann.exportShare(try ann.resolveSharedZone(share.id), for: nil, to: cs)
        let p = try owner.resolvePhoto(privatePhoto)
        return Setup(
            owner: owner, ann: ann, cs: cs, share: share.id, privatePhoto: privatePhoto, privateSHA: p.sha256,
            privateSize: p.byteSize, newPhoto: newPhoto.uniqueName, newSHA: newPhoto.sha256)
    }

    private func fill(_ sql: String, _ s: Setup) -> String {
        sql.replacingOccurrences(of: "$NEWSHA", with: s.newSHA).replacingOccurrences(of: "$NEW", with: s.newPhoto)
            .replacingOccurrences(of: "$SHA", with: s.privateSHA).replacingOccurrences(
                of: "$SIZE", with: "\(s.privateSize)"
            )
            .replacingOccurrences(of: "$PHOTO", with: s.privatePhoto)
    }

    /// Applies `cs` to `library`: refused, the message naming `photo` and containing `why`,
    /// the catalog and external data unchanged.
    private func assertRefused(
        _ library: Library, _ cs: String, photo: String, _ why: String?, file: StaticString = #filePath,
        line: UInt = #line
    ) throws {
        let dump = try LibrarySnapshot.dumpCatalog(library.root)
        let before = files(library)
        let (code, message) = status { _ = try library.applyChangeset(at: cs) }
        XCTAssertEqual(code, .refused, message, file: file, line: line)
        XCTAssertTrue(message.contains(photo), message, file: file, line: line)
        if let why { XCTAssertTrue(message.contains(why), message, file: file, line: line) }
        XCTAssertEqual(try LibrarySnapshot.dumpCatalog(library.root), dump, file: file, line: line)
        XCTAssertEqual(files(library), before, file: file, line: line)
    }

    func testTheUneditedChangesetBringsThePhotoIn() throws {
        let s = try participantChangeset()
        let report = try s.owner.applyChangeset(at: s.cs)
        XCTAssertEqual(report.originalsCopied, 1)
        XCTAssertEqual(try s.owner.resolvePhoto(s.newPhoto).zone, s.share)
        try assertVerifyClean(s.owner)
    }

    /// B12, participant → owner: the owner's private original named, not carried.
    func testAPrivateOriginalNamedWithoutItsBytesIsRefused() throws {
        let s = try participantChangeset()
        try edit(
            s.cs,
            fill(
                """
                UPDATE entry SET value = '$SHA' WHERE object_id = '$NEW' AND attribute = 'sha256';
                UPDATE entry SET value = '$SIZE' WHERE object_id = '$NEW' AND attribute = 'byteSize';
                DELETE FROM original;
                """, s))
        try assertRefused(s.owner, s.cs, photo: s.newPhoto, "holds only in another zone")
        let p = try s.owner.resolvePhoto(s.privatePhoto)
        XCTAssertEqual(p.zone, "default")
        XCTAssertEqual(p.tags, ["Private"])
    }

    /// B12, owner → participant: the participant's private original named in the owner's
    /// changeset, not carried.
    func testAnOwnersChangesetNamingAParticipantsPrivateOriginalIsRefused() throws {
        let owner = try library("owner"), ann = try library("ann")
        let annPrivate = try importPhotos(ann, count: 1, tags: ["Mine"])[0]
        let shared = try importPhotos(owner, count: 2)
        let share = try owner.createShare(photos: [try owner.resolvePhoto(shared[0])], author: .default)
        let email = try Email(parsing: "ann@example.org")
        try owner.invite(email, to: share, permission: .readWrite, author: .default)
        _ = try owner.exportShare(try owner.resolveSharedZone(share.id), for: email, to: dir + "/to-ann-1")
        _ = try ann.acceptShare(at: dir + "/to-ann-1")
        _ = try owner.addToShare(share, photos: [try owner.resolvePhoto(shared[1])], author: .default)
        let cs = dir + "/to-ann-2"
        _ = try owner.exportShare(try owner.resolveSharedZone(share.id), for: email, to: cs)
        let a = try ann.resolvePhoto(annPrivate)
        try edit(
            cs,
            """
            UPDATE entry SET value = '\(a.sha256)' WHERE object_id = '\(shared[1])' AND attribute = 'sha256';
            UPDATE entry SET value = '\(a.byteSize)' WHERE object_id = '\(shared[1])' AND attribute = 'byteSize';
            DELETE FROM original;
            """)
        try assertRefused(ann, cs, photo: shared[1], "holds only in another zone")
        XCTAssertEqual(try ann.resolvePhoto(annPrivate).zone, "default")
    }

    /// A1 from the changeset's side: carrying the bytes of the owner's private original, the
    /// participant's photo comes in beside it, on the same file, and the private one is as it was.
    func testAPrivateOriginalCarriedComesInAsAPhotoOfTheShare() throws {
        let s = try participantChangeset()
        let sourceFile = s.owner.externalData.path(for: ExternalDataStore.reference(for: s.privateSHA))
        try FileManager.default.copyItem(atPath: sourceFile, toPath: s.cs + "/originals/" + s.privateSHA)
        try edit(
            s.cs,
            fill(
                """
                UPDATE entry SET value = '$SHA' WHERE object_id = '$NEW' AND attribute = 'sha256';
                UPDATE entry SET value = '$SIZE' WHERE object_id = '$NEW' AND attribute = 'byteSize';
                UPDATE original SET sha256 = '$SHA', byte_size = $SIZE, path = 'originals/$SHA';
                """, s))
        let before = try s.owner.resolvePhoto(s.privatePhoto)
        let report = try s.owner.applyChangeset(at: s.cs)
        XCTAssertEqual(report.originalsCopied, 0, "the file is here already")
        let after = try s.owner.resolvePhoto(s.privatePhoto)
        XCTAssertEqual(after.zone, "default")
        XCTAssertEqual(after.tags, before.tags)
        let new = try s.owner.resolvePhoto(s.newPhoto)
        XCTAssertEqual(new.zone, s.share)
        XCTAssertEqual(new.sha256, s.privateSHA)
        XCTAssertEqual(new.tags, [])
        try assertVerifyClean(s.owner)
    }

    func testAUniqueNameThatIsAnotherPhotosInLowerCaseIsRefused() throws {
        let s = try participantChangeset()
        let lower = s.privatePhoto.lowercased()
        try edit(
            s.cs,
            fill(
                """
                UPDATE entry SET object_id = '\(lower)' WHERE object_id = '$NEW';
                UPDATE thumbnail SET photo = '\(lower)' WHERE photo = '$NEW';
                """, s))
        try assertRefused(s.owner, s.cs, photo: lower, "differs only in case from photo \(s.privatePhoto)")
    }

    func testAUniqueNameOfMixedCaseIsRefused() throws {
        let s = try participantChangeset()
        // One letter (A–F) in lower case, the rest as imported (upper case).
        let letter = try XCTUnwrap(s.newPhoto.firstIndex { $0.isLetter })
        var mixed = s.newPhoto
        mixed.replaceSubrange(letter...letter, with: s.newPhoto[letter].lowercased())
        try edit(
            s.cs,
            fill(
                """
                UPDATE entry SET object_id = '\(mixed)' WHERE object_id = '$NEW';
                UPDATE thumbnail SET photo = '\(mixed)' WHERE photo = '$NEW';
                """, s))
        try assertRefused(s.owner, s.cs, photo: mixed, "mixed case")
    }

    func testAMillionPixelsWideAndHighIsRefused() throws {
        let s = try participantChangeset()
        try edit(
            s.cs,
            fill("UPDATE entry SET value = '1000000' WHERE object_id = '$NEW' AND attribute IN ('width', 'height')", s))
        try assertRefused(s.owner, s.cs, photo: s.newPhoto, "is recorded as 1000000×1000000 pixels")
    }

    func testAnOriginalMissingFromTheChangesetIsRefused() throws {
        let s = try participantChangeset()
        try edit(s.cs, "DELETE FROM original")
        try assertRefused(s.owner, s.cs, photo: s.newPhoto, "neither in the changeset nor in this library")
    }

    func testAByteSizeOtherThanTheOriginalsIsRefused() throws {
        let s = try participantChangeset()
        try edit(
            s.cs,
            fill(
                "UPDATE entry SET value = CAST(value AS INTEGER) + 1 WHERE object_id = '$NEW' AND attribute = 'byteSize'",
                s))
        try assertRefused(s.owner, s.cs, photo: s.newPhoto, "records byteSize")
        // A byteSize of 2^40 is refused before any original is looked at (ChangesetOriginalSizeTests).
    }

    func testAShellScriptAsAJPEGIsRefused() throws {
        let s = try participantChangeset()
        let script = Array("#!/bin/sh\necho owned\n".utf8)
        let sha = try script.withUnsafeBytes { try SHA256Hasher.hex(of: $0) }
        try Data(script).write(to: URL(fileURLWithPath: s.cs + "/originals/" + sha))
        try edit(
            s.cs,
            fill(
                """
                UPDATE entry SET value = '\(sha)' WHERE object_id = '$NEW' AND attribute = 'sha256';
                UPDATE entry SET value = '\(script.count)' WHERE object_id = '$NEW' AND attribute = 'byteSize';
                UPDATE original SET sha256 = '\(sha)', byte_size = \(script.count), path = 'originals/\(sha)';
                """, s))
        try assertRefused(s.owner, s.cs, photo: s.newPhoto, "does not decode as an image")
    }

    /// A JPEG of a few hundred bytes whose frame header says 10000 × 10000 (100 megapixels),
    /// recorded so, with a thumbnail of its own: refused, as import refuses it (its decode
    /// would need far more memory than the bytes given bear out).
    func testAFewHundredBytesClaimingAHundredMegapixelsAreRefused() throws {
        let s = try participantChangeset()
        let sample = [UInt8](try XCTUnwrap(FileManager.default.contents(atPath: samplesDir + "/storm.jpg")))
        var tiny: [UInt8] = [0xFF, 0xD8]
        var i = 2
        while i + 4 <= sample.count {
            let marker = sample[i + 1]
            let length = Int(sample[i + 2]) << 8 | Int(sample[i + 3])
            var segment = Array(sample[i..<(i + 2 + length)])
            if marker == 0xC0 {
                // SOF0: P, Y (2 bytes), X (2 bytes) after the length.
                segment[5] = 0x27; segment[6] = 0x10; segment[7] = 0x27; segment[8] = 0x10
            }
            if [0xDB, 0xC0, 0xC4, 0xDD, 0xDA].contains(marker) { tiny += segment }
            if marker == 0xDA {
                tiny += sample[(i + 2 + length)..<(i + 2 + length + 64)]
                break
            }
            i += 2 + length
        }
        tiny += [0xFF, 0xD9]
        XCTAssertLessThan(tiny.count, 1200)
        let sha = try tiny.withUnsafeBytes { try SHA256Hasher.hex(of: $0) }
        try Data(tiny).write(to: URL(fileURLWithPath: s.cs + "/originals/" + sha))
        try edit(
            s.cs,
            fill(
                """
                UPDATE entry SET value = '\(sha)' WHERE object_id = '$NEW' AND attribute = 'sha256';
                UPDATE entry SET value = '\(tiny.count)' WHERE object_id = '$NEW' AND attribute = 'byteSize';
                UPDATE entry SET value = '10000' WHERE object_id = '$NEW' AND attribute IN ('width', 'height');
                UPDATE original SET sha256 = '\(sha)', byte_size = \(tiny.count), path = 'originals/\(sha)';
                UPDATE thumbnail SET data = x'ffd8ffd9' WHERE photo = '$NEW';
                """, s))
        try assertRefused(s.owner, s.cs, photo: s.newPhoto, "does not decode as an image")
    }

    func testAFormatOtherThanTheOriginalsIsRefused() throws {
        let s = try participantChangeset()
        try edit(s.cs, fill("UPDATE entry SET value = 'png' WHERE object_id = '$NEW' AND attribute = 'format'", s))
        try assertRefused(s.owner, s.cs, photo: s.newPhoto, "is recorded as png, but its original decodes as jpeg")
    }

    func testAPhotoWithoutAnAttributeIsRefused() throws {
        let s = try participantChangeset()
        try edit(s.cs, fill("DELETE FROM entry WHERE object_id = '$NEW' AND attribute = 'width'", s))
        try assertRefused(s.owner, s.cs, photo: s.newPhoto, "has no width")
    }

    /// Two entries for one attribute (a table without its primary key): refused — by the check
    /// of the changeset file's schema (issue 31 item 17), before any entry is read: `entry`
    /// must have its primary key (entity, object_id, attribute), so no attribute has two values.
    func testTwoValuesForOneAttributeAreRefused() throws {
        let s = try participantChangeset()
        try edit(
            s.cs,
            fill(
                """
                CREATE TABLE entry2 AS SELECT * FROM entry; DROP TABLE entry; ALTER TABLE entry2 RENAME TO entry;
                INSERT INTO entry SELECT entity, object_id, attribute, 'Other name.jpg', stamp_time, stamp_library, zone_id
                  FROM entry WHERE object_id = '$NEW' AND attribute = 'displayName';
                """, s))
        try assertRefused(s.owner, s.cs, photo: "changeset.sqlite", "lacks index \"sqlite_autoindex_entry_1\"")
    }

    /// A broken thumbnail does not come in: the photo's is made from its original here.
    func testABrokenThumbnailIsMadeAgainFromTheOriginal() throws {
        let s = try participantChangeset()
        try edit(s.cs, fill("UPDATE thumbnail SET data = x'ffd8ffe000' WHERE photo = '$NEW'", s))
        _ = try s.owner.applyChangeset(at: s.cs)
        try assertVerifyClean(s.owner)
    }

    /// A whole-library changeset of another own library naming, without carrying it, an
    /// original this library holds only in a share: refused as well.
    func testAWholeLibraryChangesetNamingAnOriginalOfAnotherZoneIsRefused() throws {
        let a = try library("a"), b = try library("b")
        let inShare = try importPhotos(a, count: 1)[0]
        _ = try a.createShare(photos: [try a.resolvePhoto(inShare)], author: .default)
        let other = try importPhotos(b, count: 1)[0]
        let cs = try export(b)
        let held = try a.resolvePhoto(inShare)
        try edit(
            cs,
            """
            UPDATE entry SET value = '\(held.sha256)' WHERE object_id = '\(other)' AND attribute = 'sha256';
            UPDATE entry SET value = '\(held.byteSize)' WHERE object_id = '\(other)' AND attribute = 'byteSize';
            DELETE FROM original;
            """)
        try assertRefused(a, cs, photo: other, "holds only in another zone")
    }
}
