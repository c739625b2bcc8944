import CSQLite
import Foundation
import PhotosModel

extension Database {
    /// Virtual-machine instructions between two calls of the progress handler.
    static let workPeriod: Int32 = 1000

    /// Bounds this connection's reads of a file from elsewhere (https://www.sqlite.org/security.html):
    /// - `SQLITE_LIMIT_LENGTH` = `maxValueBytes` (`limitValueLength`);
    /// - a progress handler that interrupts every statement once `baseWork + workPerByte ×`
    ///   (the size of the file and its `-wal`, bytes) virtual-machine instructions have run in
    ///   all: reading a file of plain tables costs well under one instruction per byte, so this
    ///   only stops what its size cannot explain;
    /// - `temp_store = MEMORY` with at most `tempPages` pages (`temp.max_page_count`, 4 KiB
    ///   each) and a 2 MiB page cache: no temporary file grows without bound.
    /// For a connection that only reads (the budget does not grow with what is written).
    /// - Throws: `SQLiteError` when a pragma fails.
    public func boundForUntrustedFile(
        maxValueBytes: Int, workPerByte: Int64 = 64, baseWork: Int64 = 20_000_000, tempPages: Int = 4096
    ) throws {
        limitValueLength(maxValueBytes)
        var size: Int64 = 0
        for suffix in ["", "-wal"] {
            var st = stat()
            if stat(path + suffix, &st) == 0 { size += Int64(st.st_size) }
        }
        let budget = workBudget ?? UnsafeMutablePointer<photos_sqlite_work_budget>.allocate(capacity: 1)
        let perByte = size.multipliedReportingOverflow(by: workPerByte)
        let instructions = baseWork.addingReportingOverflow(perByte.partialValue)
        let total = perByte.overflow || instructions.overflow ? Int64.max : instructions.partialValue
        budget.pointee.remaining = total / Int64(Database.workPeriod)
        workBudget = budget
        photos_sqlite_set_work_budget(handle, budget, Database.workPeriod)
        try execute("PRAGMA trusted_schema = OFF")
        try execute("PRAGMA temp_store = MEMORY")
        try execute("PRAGMA cache_size = -2048")
        try execute("PRAGMA temp.max_page_count = \(max(1, tempPages))")
    }

    /// `SQLITE_LIMIT_LENGTH` = `maxValueBytes` (at least 1 KiB): no string, blob or row longer
    /// is read or written (`SQLITE_TOOBIG`), whatever length its record declares.
    public func limitValueLength(_ maxValueBytes: Int) {
        sqlite3_limit(handle, SQLITE_LIMIT_LENGTH, Int32(clamping: max(1024, maxValueBytes)))
    }

    /// Runs `body`, turning the failures `boundForUntrustedFile` causes into
    /// `UntrustedDatabaseError` naming this file: `SQLITE_INTERRUPT` (the work bound), `SQLITE_TOOBIG`
    /// (a value over the length limit), `SQLITE_FULL` (the temporary store's bound).
    /// - Throws: `UntrustedDatabaseError`, or what `body` throws.
    public func readingUntrusted<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as SQLiteError where error.code == SQLITE_INTERRUPT {
            throw UntrustedDatabaseError(
                path: path, reason: "reading it takes far more work than a file of its size can need")
        } catch let error as SQLiteError where error.code == SQLITE_TOOBIG {
            let limit = sqlite3_limit(handle, SQLITE_LIMIT_LENGTH, -1)
            throw UntrustedDatabaseError(path: path, reason: "it holds a value longer than \(limit) bytes")
        } catch let error as SQLiteError where error.code == SQLITE_FULL {
            throw UntrustedDatabaseError(path: path, reason: "reading it needs more temporary space than allowed")
        }
    }

    /// One object of `sqlite_master`: its type (`table`, `index`, `view`, `trigger`) and name.
    public struct SchemaObject: Hashable, Sendable, CustomStringConvertible {
        public let type: String
        public let name: String
        public init(type: String, name: String) {
            self.type = type
            self.name = name
        }
        public var description: String { "\(type) \(name.debugDescription)" }
    }

    /// Requires the schema to be exactly `tables` — each a plain table (not virtual) whose
    /// columns (`PRAGMA table_xinfo`, hidden and generated ones included) are the names given,
    /// in order — and `indexes`, and nothing else (no view, trigger or other object), before
    /// anything else is read (issue 31 item 17).
    /// - Parameters:
    ///   - tables: table name → column names in order.
    ///   - indexes: every index name expected (SQLite's `sqlite_autoindex_T_N` of primary keys).
    /// - Throws: `UntrustedDatabaseError` naming the first difference; `SQLiteError`.
    public func requireSchema(tables: [String: [String]], indexes: Set<String>) throws {
        try readingUntrusted {
            var found: [SchemaObject: String] = [:]
            try statement("SELECT type, name, sql FROM sqlite_master").forEach { row in
                found[SchemaObject(type: row.string(0), name: row.string(1))] = row.optionalString(2) ?? ""
            }
            let expected = Set(tables.keys.map { SchemaObject(type: "table", name: $0) })
                .union(indexes.map { SchemaObject(type: "index", name: $0) })
            // Views, triggers and tables before indexes (an index comes with a renamed table).
            let extras = found.keys.filter { !expected.contains($0) }.sorted {
                ($0.type == "index" ? 1 : 0, $0.name) < ($1.type == "index" ? 1 : 0, $1.name)
            }
            if let extra = extras.first {
                throw UntrustedDatabaseError(path: path, reason: "it holds \(extra), which it may not")
            }
            if let missing = expected.subtracting(found.keys).sorted(by: { $0.name < $1.name }).first {
                throw UntrustedDatabaseError(path: path, reason: "it lacks \(missing)")
            }
            for (name, columns) in tables.sorted(by: { $0.key < $1.key }) {
                let sql = found[SchemaObject(type: "table", name: name)] ?? ""
                if Database.isVirtualTable(sql) {
                    throw UntrustedDatabaseError(path: path, reason: "its table \(name) is a virtual table")
                }
                let have = try statement("SELECT name, hidden FROM pragma_table_xinfo(?)").map([name]) {
                    ($0.string(0), $0.int(1))
                }
                guard have.map(\.0) == columns, have.allSatisfy({ $0.1 == 0 }) else {
                    throw UntrustedDatabaseError(
                        path: path,
                        reason: "its table \(name) has the columns (\(have.map(\.0).joined(separator: ", "))), "
                            + "not (\(columns.joined(separator: ", "))) or has hidden or generated columns")
                }
            }
        }
    }

    /// Requires the schema to hold only plain tables and indexes: no view, trigger or virtual
    /// table (none of which a photos library has), for a library opened from elsewhere.
    /// - Throws: `UntrustedDatabaseError` naming the first such object; `SQLiteError`.
    public func requirePlainTablesOnly() throws {
        try readingUntrusted {
            var offending: SchemaObject?
            try statement("SELECT type, name, sql FROM sqlite_master ORDER BY name").forEach { row in
                guard offending == nil else { return }
                let object = SchemaObject(type: row.string(0), name: row.string(1))
                let sql = row.optionalString(2) ?? ""
                if object.type != "table" && object.type != "index" {
                    offending = object
                } else if object.type == "table" && Database.isVirtualTable(sql) {
                    offending = SchemaObject(type: "virtual table", name: object.name)
                }
            }
            if let offending {
                throw UntrustedDatabaseError(
                    path: path, reason: "it holds \(offending), which no photos library has")
            }
        }
    }

    /// True when `sql` (a `sqlite_master` entry's) creates a virtual table.
    static func isVirtualTable(_ sql: String) -> Bool {
        let words = sql.uppercased().split(whereSeparator: { $0.isWhitespace }).prefix(3)
        return words.count >= 2 && words.dropFirst().first == "VIRTUAL"
    }
}
