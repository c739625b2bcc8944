import Foundation
import PhotosModel

extension Library {
    /// The owner address this library records (`photos identity set`, table `library_owner`),
    /// nil when none (issue #29 item 1).
    /// - Throws: the store's error.
    public func ownerAddress() throws -> Email? {
        try syncStore.ownerAddress().map(Email.init(rawValue:))
    }

    /// Records `email` as this library's owner address, replacing the one recorded: changes in
    /// the library's own zones are authored by it from the next command on (ratings made
    /// before keep their authors). Not history: it is who the library is, not an object sync
    /// carries.
    /// - Returns: the address recorded before, or nil.
    /// - Throws: `LibraryError.busy`, the store's error.
    @discardableResult
    public func setOwnerAddress(_ email: Email) throws -> Email? {
        try write {
            let previous = try ownerAddress()
            try syncStore.setOwnerAddress(email.rawValue)
            return previous
        }
    }

    /// Removes the recorded owner address: changes in the library's own zones are authored
    /// `photos` again (unless `--owner`, `$PHOTOS_OWNER`, `--author` or `$PHOTOS_AUTHOR`).
    /// - Returns: the address removed, or nil when none was recorded (nothing is written).
    /// - Throws: `LibraryError.busy`, the store's error.
    @discardableResult
    public func clearOwnerAddress() throws -> Email? {
        try write {
            guard let previous = try ownerAddress() else { return nil }
            try syncStore.setOwnerAddress(nil)
            return previous
        }
    }

    /// Who a change in `zone` made with `author` in `context` is authored by
    /// (`HistoryAuthor.name(for:participant:owner:)`, the rule): this library's participant in
    /// a zone shared with it (`participantEmail(inZone:)`), else the owner address (the run's,
    /// else the recorded one), else `photos`.
    /// - Parameters:
    ///   - author: the run's `--author`, `$PHOTOS_AUTHOR` and `--owner`.
    ///   - context: the command's history context.
    ///   - zone: the zone id of the change.
    /// - Throws: the store's error.
    func historyAuthorName(_ author: HistoryAuthor, context: HistoryContext, zone: String) throws -> String {
        if let fixed = author.fixedName(for: context) { return fixed }
        let participant = try participantEmail(inZone: zone)
        let recorded = participant == nil && author.owner == nil ? try syncStore.ownerAddress() : nil
        return author.name(for: context, participant: participant, owner: recorded)
    }
}

extension Library {
    /// Who this library is in each share accepted here and not left: the share (its zone id)
    /// and this library's participant e-mail, named by the changeset it accepted; ordered by
    /// share id.
    /// - Throws: the store's error.
    public func participantIdentities() throws -> [(share: String, participant: Email)] {
        try syncStore.memberships().filter { $0.leftAt == nil }.map { ($0.zone, Email(rawValue: $0.email)) }
    }
}
