import PhotosModel

extension Library {
    /// The schema version this build writes and understands (the backend's).
    public var currentSchemaVersion: Int { backend.currentSchemaVersion }

    /// The library's schema version (0 for a catalog that is not a library yet).
    /// - Throws: the store's error when it cannot be read.
    public func schemaVersion() throws -> Int { try store.schemaVersion() }

    /// The DDL of every table and index, ordered by type and name (`photos schema`).
    /// - Throws: the store's error.
    public func schemaSQL() throws -> [String] { try store.schemaDefinition() }

    /// The comment line `photos schema` prints first: the version and where the store keeps it.
    /// - Throws: the store's error.
    public func schemaHeader() throws -> String { store.schemaHeader(version: try store.schemaVersion()) }
}
