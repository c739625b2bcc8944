import Foundation
import PhotosModel

/// Verify's storage step, the first part of the catalog's checks: the store's own check
/// (`storageProblems`: SQLite's quick_check reads the whole file), dangling foreign keys, then
/// tag links across zones (SPEC §2 invariants 3 and 4).
struct VerifyStorageCheck {
    /// Whether the store's thorough check runs (`integrity_check`), not its quick one.
    var thorough: Bool

    /// The problems, in that order.
    /// - Throws: the store's error.
    func run(on store: any VerifyStore) throws -> [VerifyProblem] {
        let thorough = thorough
        var problems = try store.storageProblems(thorough: thorough).map(Library.integrityProblem)
        for dangling in try store.danglingReferences() {
            problems.append(
                VerifyProblem(
                    kind: .foreignKey, subject: .row(table: dangling.table, rowID: dangling.rowID),
                    detail: "\(dangling.table) row \(dangling.rowID) references a missing \(dangling.parent)"))
        }
        for link in try store.crossZoneTagLinks() {
            let (photo, display, pzone) = (link.photo.uniqueName, link.photo.displayName, link.photoZone)
            problems.append(
                VerifyProblem(
                    kind: .crossZone, subject: .photo(link.photo),
                    detail:
                        "\(Library.describePhoto(photo, display)) in zone \(pzone) has tag '\(link.tagName)' (\(link.tagUUID)) of zone \(link.tagZone)",
                    repair: .relinkTag(
                        uniqueName: photo, displayName: display, tagUUID: link.tagUUID,
                        tagName: link.tagName.precomposedStringWithCanonicalMapping, zone: pzone)))
        }
        return problems
    }
}

extension Library {
    /// A problem the store's own check reported (one line of it).
    static func integrityProblem(_ line: String) -> VerifyProblem {
        VerifyProblem(kind: .integrity, subject: .database, detail: line)
    }

    /// `VerifyStorageCheck` on `store`.
    /// - Throws: the store's error.
    static func checkStorage(_ store: any VerifyStore, thorough: Bool) throws -> [VerifyProblem] {
        try VerifyStorageCheck(thorough: thorough).run(on: store)
    }
}
