import CPq
import Foundation

/// A value bound to a statement parameter.
public enum PGValue: Equatable, Sendable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    /// BYTEA, sent in binary format.
    case bytes([UInt8])
}

/// Types that bind themselves to a statement parameter.
public protocol PGBindable {
    /// The parameter value for this Swift value.
    var pgValue: PGValue { get }
}

extension Int: PGBindable { public var pgValue: PGValue { .integer(Int64(self)) } }
extension Int64: PGBindable { public var pgValue: PGValue { .integer(self) } }
extension Int32: PGBindable { public var pgValue: PGValue { .integer(Int64(self)) } }
extension Double: PGBindable { public var pgValue: PGValue { .real(self) } }
extension String: PGBindable { public var pgValue: PGValue { .text(self) } }
extension Bool: PGBindable { public var pgValue: PGValue { .integer(self ? 1 : 0) } }
extension Array: PGBindable where Element == UInt8 { public var pgValue: PGValue { .bytes(self) } }
extension PGValue: PGBindable { public var pgValue: PGValue { self } }
extension Optional: PGBindable where Wrapped: PGBindable {
    public var pgValue: PGValue { self?.pgValue ?? .null }
}

/// One statement of a connection, prepared on the server (`PQprepare`) the first time it runs
/// with a given list of parameter types (`int8`, `float8`, `text`, `bytea`; a NULL is `unknown`).
/// `run`, `first` and `map` receive their result whole (`PQexecPrepared`: libpq keeps every row
/// in memory, libpq docs §34.3.2); `forEach` and `streamedMap` read a SELECT through a
/// server-side cursor in pages of `PostgresDatabase.pageRows` rows (PostgreSQL docs `DECLARE`,
/// `FETCH`), so a scan of the whole catalog holds one page of it, and a row handler may still run
/// other statements on the connection between pages.
public final class PGStatement {
    unowned let database: PostgresDatabase
    /// The SQL as sent: `$1…$n` placeholders.
    public let sql: String
    /// Server-side names by parameter type list.
    private var names: [[Oid]: String] = [:]
    /// True: sent unprepared (`PQexecParams`) every time, so the server plans each execution
    /// with its parameter values and the table's current size; false: prepared once, and after
    /// five executions the server may keep one generic plan for good (PostgreSQL docs `PREPARE`,
    /// "Notes"; `PostgresDatabase.planningEachExecution(_:)`).
    let plansEachExecution: Bool

    init(database: PostgresDatabase, sql: String, plansEachExecution: Bool = false) {
        self.database = database
        self.sql = sql
        self.plansEachExecution = plansEachExecution
    }

    /// `sql` with each `?` outside single- and double-quoted text numbered `$1`, `$2`, … in
    /// order (the SQL of this module has no comments and no `?` operator of `jsonb`).
    static func numberPlaceholders(_ sql: String) -> String {
        var out = ""
        out.reserveCapacity(sql.utf8.count + 8)
        var n = 0
        var quote: Character?
        for c in sql {
            if let q = quote {
                out.append(c)
                if c == q { quote = nil }
            } else if c == "'" || c == "\"" {
                quote = c
                out.append(c)
            } else if c == "?" {
                n += 1
                out += "$\(n)"
            } else {
                out.append(c)
            }
        }
        return out
    }

    /// Object ids of the parameter types (PostgreSQL's `pg_type`).
    private static func oid(_ value: PGValue) -> Oid {
        switch value {
        case .null: return 0
        case .integer: return 20 // int8
        case .real: return 701 // float8
        case .text: return 25 // text
        case .bytes: return 17 // bytea
        }
    }

    /// Executes with `values` and returns the result (freed by `PGResult`): the statement
    /// prepared once per parameter types, or `text` (when given) parsed for this one
    /// execution (`PQexecParams`; a `DECLARE` with its cursor's name).
    private func execute(_ values: [PGBindable], sql given: String? = nil) throws -> PGResult {
        // A fetch sent ahead is received first: libpq runs one command at a time.
        database.settlePendingFetch()
        let text = given ?? (plansEachExecution ? sql : nil)
        let params = values.map(\.pgValue)
        let types = params.map(PGStatement.oid)
        let conn = database.connection
        let name: String
        if text != nil {
            name = ""
        } else if let known = names[types] {
            name = known
        } else {
            name = database.statementName()
            let prepared = PQprepare(conn, name, sql, Int32(types.count), types)
            defer { PQclear(prepared) }
            guard let prepared, PQresultStatus(prepared) == PGRES_COMMAND_OK else {
                throw database.error(prepared, sql: sql)
            }
            names[types] = name
        }
        // Text parameters as NUL-terminated copies, BYTEA as binary bytes.
        var buffers: [UnsafeMutablePointer<CChar>?] = []
        var lengths: [Int32] = []
        var formats: [Int32] = []
        defer { for b in buffers { free(b) } }
        for value in params {
            switch value {
            case .null:
                buffers.append(nil)
                lengths.append(0)
                formats.append(0)
            case .integer(let v): buffers.append(strdup(String(v))); lengths.append(0); formats.append(0)
            case .real(let v): buffers.append(strdup("\(v)")); lengths.append(0); formats.append(0)
            case .text(let v): buffers.append(strdup(v)); lengths.append(0); formats.append(0)
            case .bytes(let v):
                let p = malloc(max(1, v.count))?.assumingMemoryBound(to: CChar.self)
                if let p {
                    v.withUnsafeBytes { source in
                        if let from = source.baseAddress {
                            UnsafeMutableRawPointer(p).copyMemory(from: from, byteCount: v.count)
                        }
                    }
                }
                buffers.append(p)
                lengths.append(Int32(v.count))
                formats.append(1)
            }
        }
        let raw: OpaquePointer? = buffers.withUnsafeBufferPointer { b in
            let call = { (values: UnsafePointer<UnsafePointer<CChar>?>?) -> OpaquePointer? in
                if let text { return PQexecParams(conn, text, Int32(params.count), types, values, lengths, formats, 0) }
                return PQexecPrepared(conn, name, Int32(params.count), values, lengths, formats, 0)
            }
            guard let base = b.baseAddress else { return call(nil) }
            return base.withMemoryRebound(to: UnsafePointer<CChar>?.self, capacity: b.count) { call($0) }
        }
        let status = raw.map(PQresultStatus) ?? PGRES_FATAL_ERROR
        guard let raw, status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK else {
            let error = database.error(raw, sql: text ?? sql)
            PQclear(raw)
            throw error
        }
        database.noteChanges(raw)
        return PGResult(raw)
    }

    /// Runs the statement with `values`.
    /// - Throws: `PostgresError`.
    public func run(_ values: [PGBindable] = []) throws {
        _ = try execute(values)
    }

    /// Runs the statement (a SELECT) with `values` and calls `body` for each row, in order,
    /// fetching `PostgresDatabase.pageRows` rows at a time from a server-side cursor: memory
    /// holds one page, whatever the number of rows. Inside a transaction the cursor lives until
    /// the scan ends; outside one it is `WITH HOLD` (the server keeps the rows, not this
    /// process). Like a whole result, the cursor reads the snapshot of its start: rows `body`
    /// writes are not seen by the scan (PostgreSQL docs `DECLARE`, "insensitive").
    /// - Throws: `PostgresError`, or what `body` throws (the cursor is closed either way).
    public func forEach(_ values: [PGBindable] = [], _ body: (PGRow) throws -> Void) throws {
        try forEach(values, prefetching: false, body)
    }

    /// As `forEach(_:_:)`; with `prefetching`, the next page is asked for before `body` sees
    /// the rows of the current one (`PostgresDatabase.sendFetch`, libpq's asynchronous
    /// commands), so that the server reads page n + 1 while this process works on page n
    /// instead of each waiting for the other. `body` may still use the connection: a
    /// statement it runs first receives the page on its way.
    /// - Throws: `PostgresError`, or what `body` throws (the cursor is closed either way).
    public func forEach(_ values: [PGBindable], prefetching: Bool, _ body: (PGRow) throws -> Void) throws {
        let cursor = database.cursorName()
        let hold = database.isInTransaction ? "" : " WITH HOLD"
        _ = try execute(values, sql: "DECLARE \(cursor) NO SCROLL CURSOR\(hold) FOR \(sql)")
        let fetch = "FETCH FORWARD \(PostgresDatabase.pageRows) FROM \(cursor)"
        var open = true
        var ahead = false
        defer {
            if ahead { database.discardFetch(fetch) }
            if open { try? database.execute("CLOSE \(cursor)") }
        }
        var page = try database.fetch(fetch)
        while true {
            let more = page.rowCount >= PostgresDatabase.pageRows
            if prefetching && more {
                try database.sendFetch(fetch)
                ahead = true
            }
            for index in 0..<page.rowCount { try body(PGRow(result: page, index: Int32(index))) }
            guard more else { break }
            if ahead {
                ahead = false
                page = try database.receiveFetch(fetch)
            } else {
                page = try database.fetch(fetch)
            }
        }
        open = false
        try database.execute("CLOSE \(cursor)")
    }

    /// Every row mapped by `body`, read in pages as `forEach` does: for results that grow with
    /// the catalog, so that memory holds the mapped values and one page of libpq's, not both
    /// whole.
    /// - Throws: `PostgresError`, or what `body` throws.
    public func streamedMap<T>(_ values: [PGBindable] = [], _ body: (PGRow) throws -> T) throws -> [T] {
        var rows: [T] = []
        try forEach(values) { rows.append(try body($0)) }
        return rows
    }

    /// The first row mapped by `body`, or nil when there is none.
    /// - Throws: `PostgresError`, or what `body` throws.
    public func first<T>(_ values: [PGBindable] = [], _ body: (PGRow) throws -> T) throws -> T? {
        let result = try execute(values)
        guard result.rowCount > 0 else { return nil }
        return try body(PGRow(result: result, index: 0))
    }

    /// Every row mapped by `body`.
    /// - Throws: `PostgresError`, or what `body` throws.
    public func map<T>(_ values: [PGBindable] = [], _ body: (PGRow) throws -> T) throws -> [T] {
        let result = try execute(values)
        var rows: [T] = []
        rows.reserveCapacity(result.rowCount)
        for index in 0..<result.rowCount { rows.append(try body(PGRow(result: result, index: Int32(index)))) }
        return rows
    }

    /// `map([], body)`.
    public func map<T>(_ body: (PGRow) throws -> T) throws -> [T] { try map([], body) }
    /// `first([], body)`.
    public func first<T>(_ body: (PGRow) throws -> T) throws -> T? { try first([], body) }
    /// `forEach([], body)`.
    public func forEach(_ body: (PGRow) throws -> Void) throws { try forEach([], body) }
}

/// A `PGresult`, cleared when released.
final class PGResult {
    let handle: OpaquePointer
    let rowCount: Int
    init(_ handle: OpaquePointer) {
        self.handle = handle
        rowCount = Int(PQntuples(handle))
    }
    deinit { PQclear(handle) }
}

/// One row of a result (text format); valid while its result lives.
public struct PGRow {
    let result: PGResult
    let index: Int32

    private func text(_ column: Int) -> UnsafeMutablePointer<CChar>? {
        PQgetisnull(result.handle, index, Int32(column)) == 1 ? nil : PQgetvalue(result.handle, index, Int32(column))
    }

    /// Number of columns.
    public var count: Int { Int(PQnfields(result.handle)) }
    /// True when column `column` (0-based) is NULL.
    public func isNull(_ column: Int) -> Bool { PQgetisnull(result.handle, index, Int32(column)) == 1 }
    /// Column `column` as an integer; NULL reads as 0.
    public func int(_ column: Int) -> Int { Int(int64(column)) }
    /// Column `column` as a 64-bit integer (an int2/int4/int8/numeric integer value); NULL
    /// and a value that is no integer read as 0.
    public func int64(_ column: Int) -> Int64 {
        guard let p = text(column) else { return 0 }
        return strtoll(p, nil, 10)
    }
    /// Column `column` as a double; NULL reads as 0.
    public func double(_ column: Int) -> Double {
        guard let p = text(column) else { return 0 }
        return strtod(p, nil)
    }
    /// Column `column` as text; NULL reads as "".
    public func string(_ column: Int) -> String {
        guard let p = text(column) else { return "" }
        return String(cString: p)
    }
    /// Column `column` as text, or nil when NULL.
    public func optionalString(_ column: Int) -> String? { text(column).map { String(cString: $0) } }
    /// Column `column` as an integer, or nil when NULL.
    public func optionalInt(_ column: Int) -> Int? { isNull(column) ? nil : int(column) }
    /// Column `column`, a BYTEA in text format (`\x` and two hex digits a byte, PostgreSQL docs
    /// §8.4.1), as bytes; NULL reads as empty.
    public func bytes(_ column: Int) -> [UInt8] {
        guard let p = text(column) else { return [] }
        let length = Int(PQgetlength(result.handle, index, Int32(column)))
        guard length >= 2, p[0] == 0x5C, p[1] == 0x78 else { return [] }
        func nibble(_ c: CChar) -> UInt8 {
            let u = UInt8(bitPattern: c)
            switch u {
            case 0x30...0x39: return u - 0x30
            case 0x61...0x66: return u - 0x61 + 10
            case 0x41...0x46: return u - 0x41 + 10
            default: return 0
            }
        }
        let count = (length - 2) / 2
        return [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            for i in 0..<count { buffer[i] = nibble(p[2 + 2 * i]) << 4 | nibble(p[3 + 2 * i]) }
            initialized = count
        }
    }
}
