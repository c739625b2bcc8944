import PhotosModel

/// One row of `zone`: the only place that knows its columns.
public struct ZoneRow: Sendable {
    /// The zone's id (a share's id for a share's zone).
    public var id: String
    public var name: String
    public var scope: ZoneScope

    public init(id: String, name: String, scope: ZoneScope) {
        self.id = id
        self.name = name
        self.scope = scope
    }

    /// Inserts this row.
    /// - Throws: `SQLiteError` (a CONSTRAINT for an id in use).
    public func insert(into db: Database) throws {
        try db.run("INSERT INTO zone (id, name, scope) VALUES (?, ?, ?)", [id, name, scope.rawValue])
    }
}

/// One row of `share`: the only place that knows its columns.
public struct ShareRow: Sendable {
    /// The share's id, which is its zone's id.
    public var id: String
    public var title: String
    /// ISO 8601 UTC.
    public var created: String
    public var publicPermission: SharePermission

    public init(id: String, title: String, created: String, publicPermission: SharePermission) {
        self.id = id
        self.title = title
        self.created = created
        self.publicPermission = publicPermission
    }

    /// Inserts this row (its zone must exist).
    /// - Throws: `SQLiteError`.
    public func insert(into db: Database) throws {
        try db.run(
            "INSERT INTO share (id, title, created, public_permission) VALUES (?, ?, ?, ?)",
            [id, title, created, publicPermission.rawValue])
    }
}
