import Foundation

/// Why a database file photos did not make (a changeset, another library, a backup, an export's
/// state file) is refused before or while it is read (issue 31 item 17): a schema other than
/// the one expected, a value longer than a row of it may hold, or more work than its size
/// allows. The data is wrong (65), not the environment.
public struct UntrustedDatabaseError: Error, CustomStringConvertible, Equatable, Sendable {
    /// The database file.
    public let path: String
    /// What is wrong, without the file's name.
    public let reason: String

    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    public var description: String { "\(path): \(reason)" }
}

extension UntrustedDatabaseError: StoreErrorConvertible {
    /// Always `.corrupt`: the file's content is at fault.
    public var storeError: StoreError { StoreError(.corrupt, message: description, detail: description) }
}
