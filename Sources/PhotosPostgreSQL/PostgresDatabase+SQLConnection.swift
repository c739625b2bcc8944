import PhotosSQL

/// The shared statement layer on PostgreSQL: every statement is the connection's prepared one
/// (`statement(_:)`), one round trip a call; `fetchPaged` and `forEachRow` read through a
/// server-side cursor in pages (`PGStatement.streamedMap`, `.forEach`).
extension PostgresDatabase: SQLConnection {
    /// `arguments` as this module's parameters (a blob travels as a binary BYTEA).
    private static func parameters(_ arguments: [SQLBindable]) -> [PGBindable] {
        arguments.map { argument -> PGBindable in
            switch argument.sqlValue {
            case .null: return PGValue.null
            case .integer(let v): return PGValue.integer(v)
            case .real(let v): return PGValue.real(v)
            case .text(let v): return PGValue.text(v)
            case .blob(let v): return PGValue.bytes(v)
            }
        }
    }

    public func execute(sql: String, arguments: [SQLBindable]) throws {
        try statement(sql).run(PostgresDatabase.parameters(arguments))
    }

    public func fetchOne<T>(sql: String, arguments: [SQLBindable], _ decode: (PGRow) throws -> T) throws -> T? {
        try statement(sql).first(PostgresDatabase.parameters(arguments), decode)
    }

    public func fetchAll<T>(sql: String, arguments: [SQLBindable], _ decode: (PGRow) throws -> T) throws -> [T] {
        try statement(sql).map(PostgresDatabase.parameters(arguments), decode)
    }

    public func fetchAllPlanningEachExecution<T>(
        sql: String, arguments: [SQLBindable], _ decode: (PGRow) throws -> T
    ) throws -> [T] {
        try planningEachExecution(sql).map(PostgresDatabase.parameters(arguments), decode)
    }

    public func fetchPaged<T>(sql: String, arguments: [SQLBindable], _ decode: (PGRow) throws -> T) throws -> [T] {
        try statement(sql).streamedMap(PostgresDatabase.parameters(arguments), decode)
    }

    public func forEachRow(sql: String, arguments: [SQLBindable], _ body: (PGRow) throws -> Void) throws {
        try statement(sql).forEach(PostgresDatabase.parameters(arguments), body)
    }
}

extension PGRow: SQLRow {
    /// Column `column` when not NULL (every integer column of the schema holds integers only).
    public func storedInteger(_ column: Int) -> Int64? { isNull(column) ? nil : int64(column) }
}

extension PostgresDatabase {
    /// PostgreSQL's dialect, for the shared statements of `PhotosSQL`.
    public var dialect: SQLDialect { .postgresql }
}
