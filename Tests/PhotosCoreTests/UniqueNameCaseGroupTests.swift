import Foundation
import PhotosModel
import PhotosTestSupport
import XCTest

@testable import PhotosCore

/// `photosWithUniqueNamesDifferingInCase` (run by verify on a snapshot reader) gives the groups a
/// grouping of every photo by its ASCII-folded uniqueName gives, in the same order: groups with
/// and without the lower-case name, of three, and no group for a name alone.
final class UniqueNameCaseGroupTests: ImportTestCase {
    func testGroupsAreThoseOfFoldingEveryUniqueName() throws {
        let library = try importedLibrary(photos: 8, seed: 760)
        let catalog = library.catalog
        let ids = try catalog.statement("SELECT id FROM photo ORDER BY id").map { $0.int64(0) }
        let a = "aaaaaaaa-0000-4000-8000-00000000000a"
        let b = "bbbbbbbb-0000-4000-8000-00000000000b"
        let c = "cccccccc-0000-4000-8000-00000000000c"
        // Group a: the lower-case name and two mixed ones, listed by id whatever their case;
        // group b: two mixed ones, no lower-case one; c: one mixed name alone; the rest lower
        // case and alone.
        let names = [
            a.uppercased(), b.uppercased(), a, "Aaaaaaaa" + a.dropFirst(8), c.uppercased(), "bbbbbbbB" + b.dropFirst(8)
        ]
        for (id, name) in zip(ids, names) {
            try catalog.run("UPDATE photo SET unique_name = ? WHERE id = ?", [name, id])
        }
        let rows = try catalog.statement("SELECT id, unique_name, display_name FROM photo ORDER BY id").map {
            (id: $0.int64(0), name: $0.string(1), display: $0.string(2))
        }
        // Every photo folded (ASCII, as SQL lower() folds), grouped, ordered by folded name then id.
        let folded = Dictionary(grouping: rows) { $0.name.lowercased() }.filter { $0.value.count > 1 }
        let expected = folded.keys.sorted().map { key in
            folded[key, default: []].sorted { $0.id < $1.id }.map {
                PhotoName(uniqueName: $0.name, displayName: $0.display)
            }
        }
        XCTAssertEqual(expected.map(\.count), [3, 2])
        try library.store.readTransaction {
            XCTAssertEqual(try library.verifyStore.photosWithUniqueNamesDifferingInCase(), expected)
        }
        XCTAssertEqual(try library.verify(quick: true).problems.filter { $0.kind == .uniqueNameCase }.count, 2)
    }
}
