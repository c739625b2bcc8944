import Foundation
import PhotosFiles
import PhotosModel
import PhotosTestSupport
import XCTest

@testable import PhotosCore

/// Each step of `VerifyRun` on its own, against a small imported library: what it reports, in
/// which order, and what it hands to the next step.
final class VerifyStepTests: ImportTestCase {
    /// The photos' rows in id order: uniqueName, SHA-256, file reference and displayName.
    private func originals(_ library: Library) throws -> [(name: String, sha: String, ref: String, display: String)] {
        try library.catalog.statement(
            """
            SELECT p.unique_name, d.sha256, d.file_ref, p.display_name
            FROM photo_data d JOIN photo p ON p.id = d.photo_id ORDER BY d.id
            """
        ).map { ($0.string(0), $0.string(1), $0.string(2), $0.string(3)) }
    }

    func testOriginalsCheckReportsEachRowInRowOrderAndWhatTheNextStepsNeed() throws {
        let library = try importedLibrary(photos: 4, seed: 910)
        let rows = try originals(library)
        let root = library.externalData.root
        // Row 0's file is gone, row 1's is cut short, row 2's has other bytes of the same size.
        XCTAssertEqual(unlink(root + "/" + rows[0].ref), 0)
        XCTAssertEqual(truncate(root + "/" + rows[1].ref, 10), 0)
        let size = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: root + "/" + rows[2].ref)[.size] as? Int)
        XCTAssertTrue(FileManager.default.createFile(atPath: root + "/" + rows[2].ref, contents: Data(count: size)))
        for quick in [false, true] {
            var calls: [(Int, Int)] = []
            var check = VerifyOriginalsCheck(
                quick: quick, jobs: 2, total: 4, externalData: library.externalData,
                progress: { done, total, _ in calls.append((done, total)) })
            try library.store.readTransaction { try check.run(library.verifyStore) }
            let expected: [VerifyProblem.Kind] =
                quick ? [.missingFile, .sizeMismatch] : [.missingFile, .sizeMismatch, .hashMismatch]
            XCTAssertEqual(check.problems.map(\.kind), expected, "quick \(quick)")
            XCTAssertEqual(check.problems.map(\.subject.photoUniqueName), rows.prefix(expected.count).map(\.name))
            XCTAssertEqual(
                check.problems[0].repair,
                .deletePhoto(
                    uniqueName: rows[0].name, displayName: rows[0].display, ratings: 0, tags: 0,
                    zone: ZoneID.default.rawValue))
            XCTAssertEqual(check.missingOriginal, Set(rows.prefix(expected.count).map(\.name)))
            XCTAssertEqual(calls.last?.0, 4)
            XCTAssertEqual(calls.last?.1, 4)
            // Every sound reference's shard is marked used, and only those.
            let shards = Set(rows.map { Library.shardIndex(ofHex: $0.sha) })
            XCTAssertEqual(Set(check.usedShards.indices.filter { check.usedShards[$0] }), shards)
            XCTAssertTrue(check.unusual.folders.isEmpty)
        }
    }

    func testOriginalsCheckHandsOnAReferenceThatIsNoContentAddress() throws {
        let library = try importedLibrary(photos: 2, seed: 920)
        let rows = try originals(library)
        try library.catalog.run("UPDATE photo_data SET file_ref = 'zz/elsewhere' WHERE sha256 = ?", [rows[1].sha])
        var check = VerifyOriginalsCheck(
            quick: true, jobs: 1, total: 2, externalData: library.externalData, progress: nil)
        try library.store.readTransaction { try check.run(library.verifyStore) }
        XCTAssertEqual(check.problems.map(\.kind), [.badFileReference])
        // Its file is at its content address: the repair points the row there.
        XCTAssertEqual(
            check.problems[0].repair,
            .fixFileReference(
                uniqueName: rows[1].name, displayName: rows[1].display, from: "zz/elsewhere", to: rows[1].ref))
        XCTAssertEqual(check.unusual.folders, ["zz", Substring(rows[1].ref.prefix(2))])
        XCTAssertTrue(check.missingOriginal.isEmpty)
    }

    func testExternalDataCheckNamesTheUnreferencedFilesAndKeepsThemWhileAPhotoLacksItsRow() throws {
        let library = try importedLibrary(photos: 2, seed: 930)
        let rows = try originals(library)
        let root = library.externalData.root
        let shard = String(rows[0].ref.prefix(2))
        let orphan = shard + "/" + String(repeating: "0", count: 64)
        let temporary = shard + "/" + ExternalDataStore.temporaryPrefix + "1"
        for file in [orphan, temporary] {
            XCTAssertTrue(FileManager.default.createFile(atPath: root + "/" + file, contents: Data([1])))
        }
        var used = [Bool](repeating: false, count: 256)
        for row in rows { used[Library.shardIndex(ofHex: row.sha)] = true }
        for withoutData in [[], ["photo x (x.jpg)"]] {
            let check = VerifyExternalDataCheck(
                externalData: library.externalData, unusual: VerifyReferences(), usedShards: used,
                withoutData: withoutData)
            XCTAssertEqual(check.folderProblems(), [])
            let (files, orphans) = try library.store.readTransaction { try check.orphans(library.verifyStore) }
            XCTAssertEqual(files, 4)
            XCTAssertEqual(orphans.map(\.subject), [.file(reference: temporary), .file(reference: orphan)])
            XCTAssertEqual(orphans.map(\.kind), [.temporaryFile, .orphanFile])
            // A leftover temporary file is never an original: removed either way.
            XCTAssertEqual(orphans[0].repair, .removeFile(reference: temporary))
            XCTAssertEqual(orphans[1].repair, withoutData.isEmpty ? .removeFile(reference: orphan) : nil)
        }
        // The external data folder gone: one problem naming it.
        XCTAssertEqual(rename(root, root + ".moved"), 0)
        let check = VerifyExternalDataCheck(
            externalData: library.externalData, unusual: VerifyReferences(), usedShards: used, withoutData: [])
        XCTAssertEqual(check.folderProblems().map(\.subject), [.folder(root)])
        XCTAssertEqual(rename(root + ".moved", root), 0)
    }

    func testThumbnailsCheckReportsMissingThenDamagedWithTheirRepairs() throws {
        let library = try importedLibrary(photos: 3, seed: 940)
        let rows = try originals(library)
        let names = rows.map(\.name)
        try library.catalog.run(
            "DELETE FROM thumbnail WHERE photo_id = (SELECT id FROM photo WHERE unique_name = ?)", [names[2]])
        try library.catalog.run(
            "UPDATE thumbnail SET width = width + 1 WHERE photo_id = (SELECT id FROM photo WHERE unique_name = ?)",
            [names[0]])
        for quick in [false, true] {
            let (problems, checked) = try VerifyThumbnailsCheck(quick: quick, jobs: 2).run(on: library.verifyStore)
            XCTAssertEqual(checked, 2, "quick \(quick)")
            XCTAssertEqual(problems.map(\.kind), [.missingThumbnail, .damagedThumbnail])
            XCTAssertEqual(problems.map(\.subject.photoUniqueName), [names[2], names[0]])
            XCTAssertEqual(
                problems.map(\.repair),
                [
                    .regenerateThumbnail(uniqueName: names[2], displayName: rows[2].display),
                    .regenerateThumbnail(uniqueName: names[0], displayName: rows[0].display)
                ])
        }
    }

    func testStorageCheckIsCleanOnAnImportedLibrary() throws {
        let library = try importedLibrary(photos: 2, seed: 950)
        for thorough in [false, true] {
            XCTAssertEqual(try VerifyStorageCheck(thorough: thorough).run(on: library.verifyStore), [])
        }
    }

    func testCatalogRowsCheckReportsTagsInTheirOrder() throws {
        let library = try importedLibrary(photos: 1, seed: 960)
        XCTAssertEqual(try VerifyCatalogRowsCheck().run(on: library.verifyStore), [])
        let upper = "00000000-0000-4000-8000-00000000000A"
        try library.catalog.run("INSERT INTO tag (uuid, name, zone_id) VALUES (?, ' Beach', 'default')", [upper])
        let problems = try VerifyCatalogRowsCheck().run(on: library.verifyStore)
        XCTAssertEqual(problems.map(\.kind), [.badTagName, .badTagUUID])
        XCTAssertEqual(
            problems[0].repair, .normalizeTagName(uuid: upper, name: " Beach", normalized: "Beach", zone: "default"))
        XCTAssertNil(problems[1].repair)
        XCTAssertEqual(try VerifyCatalogRowsCheck().tags(library.verifyStore), problems)
        XCTAssertEqual(try VerifyCatalogRowsCheck().displayNames(library.verifyStore), [])
    }
}
