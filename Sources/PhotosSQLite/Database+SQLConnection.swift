import PhotosSQL

/// The shared statement layer on SQLite: every statement is the connection's cached one
/// (`statement(_:)`, prepared once per SQL text), except `forEachRow`'s, prepared for the scan
/// so that its body may run the same SQL again.
extension Database: SQLConnection {
    public func execute(sql: String, arguments: [SQLBindable]) throws {
        try statement(sql).run(arguments)
    }

    public func fetchOne<T>(sql: String, arguments: [SQLBindable], _ decode: (Row) throws -> T) throws -> T? {
        try statement(sql).first(arguments, decode)
    }

    public func fetchAll<T>(sql: String, arguments: [SQLBindable], _ decode: (Row) throws -> T) throws -> [T] {
        try statement(sql).map(arguments, decode)
    }

    public func fetchPaged<T>(sql: String, arguments: [SQLBindable], _ decode: (Row) throws -> T) throws -> [T] {
        try statement(sql).map(arguments, decode)
    }

    public func forEachRow(sql: String, arguments: [SQLBindable], _ body: (Row) throws -> Void) throws {
        try Statement.prepare(self, sql).forEach(arguments, body)
    }
}

extension Database {
    /// SQLite's dialect, for the shared statements of `PhotosSQL`.
    public var dialect: SQLDialect { .sqlite }
}
