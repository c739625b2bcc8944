/// Why sync or sharing refused or failed, classified in domain terms; the CLI's ErrorReporting
/// gives each kind its exit status (sysexits.h), Core never does.
public struct SyncError: Error, Equatable, CustomStringConvertible {
    /// What went wrong.
    public enum Kind: Sendable, Equatable {
        /// No changeset where one was named (EX_NOINPUT).
        case noChangeset
        /// A changeset refused as data: malformed, tampered, a gap, a scope rule, misdirected
        /// (EX_DATAERR); nothing was written.
        case refused
        /// A change that this library, or the changeset's sender, may not make: a read-only
        /// participant's write, a participant's change of the share (EX_NOPERM); nothing written.
        case notPermitted
        /// The changeset folder exists or cannot be created (EX_CANTCREAT).
        case cannotCreate
        /// Writing the changeset failed (EX_IOERR).
        case cannotWrite
        /// The command lacks what it needs to say (EX_USAGE), e.g. `share export` of an own
        /// share without `--for`.
        case misuse
        /// The program opened the library without a changeset format (a bug, EX_SOFTWARE).
        case notConfigured
    }

    public var kind: Kind
    /// One line naming the changeset, share or library and the reason.
    public var message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}
