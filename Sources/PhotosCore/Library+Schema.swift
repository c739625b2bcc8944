import PhotosSQLite

extension Library {
    /// The schema version this build writes and understands.
    public static var currentSchemaVersion: Int { Schema.currentVersion }

    /// The library's schema version (0 for a file that is not a library yet).
    /// - Throws: the store's error when it cannot be read.
    public func schemaVersion() throws -> Int { try db.userVersion }

    /// The DDL of every table and index, ordered by type and name (`photos schema`).
    /// - Throws: the store's error.
    public func schemaSQL() throws -> [String] { try db.schemaSQL() }

    /// The comment line `photos schema` prints first: the version and where the store keeps it.
    /// - Throws: the store's error.
    public func schemaHeader() throws -> String { Schema.header(version: try db.userVersion) }
}
