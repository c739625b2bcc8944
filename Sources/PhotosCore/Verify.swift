import Foundation
import PhotosStorage

/// One problem `photos verify` found (SPEC §2 invariants).
public struct VerifyProblem: Equatable {
    /// `missing-file`, `unreadable-file`, `size-mismatch`, `hash-mismatch`, `orphan-file`, `temporary-file`,
    /// `missing-photo-data`, `missing-thumbnail`, `integrity`, `foreign-key`, `cross-zone`.
    public var kind: String
    /// One line naming the photo, file or row.
    public var detail: String
    /// True when `--repair` fixed it.
    public var repaired: Bool = false

    public var json: JSONValue {
        .object([("kind", .string(kind)), ("detail", .string(detail)), ("repaired", .bool(repaired))])
    }
}

/// What `photos verify` checked and found.
public struct VerifyReport {
    public var photos = 0
    public var files = 0
    public var problems: [VerifyProblem] = []
    /// True when no unrepaired problem remains.
    public var isClean: Bool { problems.allSatisfy(\.repaired) }

    public var json: JSONValue {
        .object([
            ("photos", .int(photos)), ("files", .int(files)), ("problems", .int(problems.filter { !$0.repaired }.count)),
            ("repaired", .int(problems.filter(\.repaired).count)), ("clean", .bool(isClean)),
            ("details", .array(problems.map(\.json))),
        ])
    }
}

extension Library {
    /// Checks the SPEC §2 invariants: every PhotoData file exists with its recorded size and
    /// SHA-256 (hashing skipped when `quick`), no file in external data lacks a row (orphan),
    /// `PRAGMA integrity_check` and `foreign_key_check` are clean, no tag link crosses zones.
    ///
    /// The checks, hashing included, run in one read transaction (a WAL snapshot), so imports
    /// and other writers go on meanwhile. With `repair`, orphan and leftover temporary files are
    /// removed and photos whose original is gone are deleted (with history, author `author`);
    /// the orphan removal re-reads the rows under the write lock and the exclusive import lock,
    /// so an import's written-but-uncommitted original is never taken for an orphan.
    /// - Throws: `PhotosError` 75 when busy, `SQLiteError`.
    public func verify(quick: Bool = false, repair: Bool = false, author: HistoryAuthor = .default) throws -> VerifyReport {
        var report = VerifyReport()
        var missing: [String] = []
        var orphans: [String] = []
        try db.transaction(.deferred) {
            report.problems += try self.checkDatabase()
            let rows = try Statement.prepare(self.db, "SELECT p.unique_name, d.sha256, d.byte_size, d.file_ref FROM photo_data d JOIN photo p ON p.id = d.photo_id ORDER BY d.id")
                .map { ($0.string(0), $0.string(1), $0.int(2), $0.string(3)) }
            report.photos = try self.db.scalarInt("SELECT count(*) FROM photo") ?? 0
            var referenced = Set<String>()
            for (name, sha, size, ref) in rows {
                referenced.insert(ref)
                let path = self.externalData.path(for: ref)
                var st = stat()
                guard stat(path, &st) == 0 else {
                    report.problems.append(VerifyProblem(kind: "missing-file", detail: "photo \(name): original \(ref) is missing"))
                    missing.append(name)
                    continue
                }
                if Int(st.st_size) != size {
                    report.problems.append(VerifyProblem(kind: "size-mismatch", detail: "photo \(name): original \(ref) has \(st.st_size) bytes, recorded \(size)"))
                    continue
                }
                if !quick {
                    do {
                        let actual = try SHA256Hasher.hex(ofFileAt: path).hex
                        if actual != sha {
                            report.problems.append(VerifyProblem(kind: "hash-mismatch", detail: "photo \(name): original \(ref) has SHA-256 \(actual), recorded \(sha)"))
                        }
                    } catch {
                        report.problems.append(VerifyProblem(kind: "unreadable-file", detail: "photo \(name): original \(ref) cannot be read: \(error)"))
                    }
                }
            }
            for name in try self.db.statement("SELECT p.unique_name FROM photo p WHERE NOT EXISTS (SELECT 1 FROM photo_data d WHERE d.photo_id = p.id)").map({ $0.string(0) }) {
                report.problems.append(VerifyProblem(kind: "missing-photo-data", detail: "photo \(name) has no PhotoData row"))
            }
            for name in try self.db.statement("SELECT p.unique_name FROM photo p WHERE NOT EXISTS (SELECT 1 FROM thumbnail t WHERE t.photo_id = p.id)").map({ $0.string(0) }) {
                report.problems.append(VerifyProblem(kind: "missing-thumbnail", detail: "photo \(name) has no thumbnail"))
            }
            let files = self.externalData.allReferences()
            report.files = files.count
            for ref in files where !referenced.contains(ref) {
                let temporary = (ref as NSString).lastPathComponent.hasPrefix(ExternalDataStore.temporaryPrefix)
                report.problems.append(VerifyProblem(kind: temporary ? "temporary-file" : "orphan-file",
                                                     detail: "\(Library.externalDataName)/\(ref) is not referenced by any photo"))
                orphans.append(ref)
            }
        }
        guard repair else { return report }

        if !orphans.isEmpty {
            // A running import's written-but-uncommitted originals look like orphans: remove
            // orphans only while no import holds the import lock, and only those still
            // unreferenced under the write lock.
            let importLock = lockImports(exclusive: true)
            defer { if let importLock { close(importLock) } }
            var removed = Set<String>()
            if importLock != nil {
                try write {
                    for ref in orphans where !isReferenced(fileReference: ref) {
                        if unlink(externalData.path(for: ref)) == 0 { removed.insert(ref) }
                    }
                }
            }
            for i in report.problems.indices where ["orphan-file", "temporary-file"].contains(report.problems[i].kind) {
                if removed.contains(where: { report.problems[i].detail == "\(Library.externalDataName)/\($0) is not referenced by any photo" }) {
                    report.problems[i].repaired = true
                } else if importLock == nil {
                    report.problems[i].detail += " (left in place: an import is running and may still commit it; repair again later)"
                }
            }
        }
        if !missing.isEmpty {
            // Delete only photos whose original is still missing now.
            let gone = try missing.compactMap { try? resolvePhoto($0) }.filter { photo in
                var st = stat()
                return stat(externalData.path(for: photo.fileReference), &st) != 0
            }
            try deletePhotos(gone, author: author, context: .verifyRepair)
            for i in report.problems.indices where report.problems[i].kind == "missing-file" {
                if gone.contains(where: { report.problems[i].detail.hasPrefix("photo \($0.uniqueName):") }) {
                    report.problems[i].repaired = true
                }
            }
        }
        return report
    }

    private func checkDatabase() throws -> [VerifyProblem] {
        var problems: [VerifyProblem] = []
        for line in try db.statement("PRAGMA integrity_check").map({ $0.string(0) }) where line != "ok" {
            problems.append(VerifyProblem(kind: "integrity", detail: line))
        }
        for (table, rowid, parent) in try db.statement("PRAGMA foreign_key_check").map({ ($0.string(0), $0.int64(1), $0.string(2)) }) {
            problems.append(VerifyProblem(kind: "foreign-key", detail: "\(table) row \(rowid) references a missing \(parent)"))
        }
        let crossing = try db.statement("""
            SELECT p.unique_name, p.zone_id, t.name, t.uuid, t.zone_id FROM photo_tag pt
            JOIN photo p ON p.id = pt.photo_id JOIN tag t ON t.id = pt.tag_id
            WHERE p.zone_id <> t.zone_id
            """).map { ($0.string(0), $0.string(1), $0.string(2), $0.string(3), $0.string(4)) }
        for (photo, pzone, tag, uuid, tzone) in crossing {
            problems.append(VerifyProblem(kind: "cross-zone", detail: "photo \(photo) in zone \(pzone) has tag '\(tag)' (\(uuid)) of zone \(tzone)"))
        }
        return problems
    }
}
