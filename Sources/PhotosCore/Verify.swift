import Foundation
import PhotosStorage

/// One problem `photos verify` found (SPEC §2 invariants).
public struct VerifyProblem: Equatable {
    /// `missing-file`, `size-mismatch`, `hash-mismatch`, `orphan-file`, `temporary-file`,
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
    /// With `repair`, orphan and leftover temporary files are removed, and photos whose
    /// original is gone are deleted (with history, author `author`). The check and the repair
    /// hold the write lock, so an import's commit cannot interleave with the orphan scan.
    /// - Throws: `PhotosError` 75 when busy, `SQLiteError`.
    public func verify(quick: Bool = false, repair: Bool = false, author: String = "verify") throws -> VerifyReport {
        var report = VerifyReport()
        var missing: [PhotoRecord] = []
        func body() throws {
            report.problems += try self.checkDatabase()
            let rows = try self.db.statement("SELECT p.id, p.unique_name, d.sha256, d.byte_size, d.file_ref FROM photo_data d JOIN photo p ON p.id = d.photo_id ORDER BY d.id")
                .map { ($0.int64(0), $0.string(1), $0.string(2), $0.int(3), $0.string(4)) }
            report.photos = try self.db.scalarInt("SELECT count(*) FROM photo") ?? 0
            var referenced = Set<String>()
            for (_, name, sha, size, ref) in rows {
                referenced.insert(ref)
                let path = self.externalData.path(for: ref)
                var st = stat()
                guard stat(path, &st) == 0 else {
                    report.problems.append(VerifyProblem(kind: "missing-file", detail: "photo \(name): original \(ref) is missing"))
                    if repair, let rec = try? self.resolvePhoto(name) { missing.append(rec) }
                    continue
                }
                if Int(st.st_size) != size {
                    report.problems.append(VerifyProblem(kind: "size-mismatch", detail: "photo \(name): original \(ref) has \(st.st_size) bytes, recorded \(size)"))
                    continue
                }
                if !quick {
                    do {
                        let file = try ImageFile.read(path: path)
                        if file.sha256 != sha {
                            report.problems.append(VerifyProblem(kind: "hash-mismatch", detail: "photo \(name): original \(ref) has SHA-256 \(file.sha256), recorded \(sha)"))
                        }
                    } catch {
                        report.problems.append(VerifyProblem(kind: "missing-file", detail: "photo \(name): original \(ref) cannot be read: \(error)"))
                    }
                }
            }
            for (name) in try self.db.statement("SELECT p.unique_name FROM photo p WHERE NOT EXISTS (SELECT 1 FROM photo_data d WHERE d.photo_id = p.id)").map({ $0.string(0) }) {
                report.problems.append(VerifyProblem(kind: "missing-photo-data", detail: "photo \(name) has no PhotoData row"))
            }
            for (name) in try self.db.statement("SELECT p.unique_name FROM photo p WHERE NOT EXISTS (SELECT 1 FROM thumbnail t WHERE t.photo_id = p.id)").map({ $0.string(0) }) {
                report.problems.append(VerifyProblem(kind: "missing-thumbnail", detail: "photo \(name) has no thumbnail"))
            }
            let files = self.externalData.allReferences()
            report.files = files.count
            // A running import's written-but-uncommitted originals look like orphans: remove
            // orphans only while no import holds the import lock.
            let importLock = repair && files.contains(where: { !referenced.contains($0) }) ? self.lockImports(exclusive: true) : nil
            defer { if let importLock { close(importLock) } }
            for ref in files where !referenced.contains(ref) {
                let temporary = (ref as NSString).lastPathComponent.hasPrefix(ExternalDataStore.temporaryPrefix)
                var problem = VerifyProblem(kind: temporary ? "temporary-file" : "orphan-file",
                                            detail: "\(Library.externalDataName)/\(ref) is not referenced by any photo")
                if repair {
                    if importLock != nil {
                        problem.repaired = unlink(self.externalData.path(for: ref)) == 0
                    } else {
                        problem.detail += " (left in place: an import is running and may still commit it; repair again later)"
                    }
                }
                report.problems.append(problem)
            }
        }
        if repair { try write(body) } else { try db.transaction(.deferred, body) }
        if repair && !missing.isEmpty {
            try deletePhotos(missing, author: author, context: "verify --repair")
            for i in report.problems.indices where report.problems[i].kind == "missing-file" {
                if missing.contains(where: { report.problems[i].detail.hasPrefix("photo \($0.uniqueName):") }) {
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
