import PhotosModel

/// One row of `participant`: the only place that knows its columns. `share create`,
/// `share invite` and merge insert through it.
public struct ParticipantRow: Sendable {
    /// The stable identity history and sync name the participant by (schema migration 3).
    public var uuid: String
    /// The share (and zone) id.
    public var shareID: String
    public var email: Email
    public var role: ParticipantRole
    public var permission: SharePermission
    public var acceptance: Acceptance

    public init(
        uuid: String = newObjectUUID(), shareID: String, email: Email, role: ParticipantRole,
        permission: SharePermission, acceptance: Acceptance
    ) {
        self.uuid = uuid
        self.shareID = shareID
        self.email = email
        self.role = role
        self.permission = permission
        self.acceptance = acceptance
    }

    /// Inserts this row; with `ignoringExisting`, a participant already in the share (same
    /// share and e-mail) is left as it is.
    /// - Returns: true when a row was inserted.
    /// - Throws: `SQLiteError`.
    @discardableResult
    public func insert(into db: Database, ignoringExisting: Bool = false) throws -> Bool {
        try db.run(
            "INSERT \(ignoringExisting ? "OR IGNORE " : "")INTO participant (uuid, share_id, email, role, permission, acceptance) VALUES (?, ?, ?, ?, ?, ?)",
            [uuid, shareID, email.rawValue, role.rawValue, permission.rawValue, acceptance.rawValue])
        return db.changes > 0
    }
}
