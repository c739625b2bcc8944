/// What the library location depends on, injected instead of read from the process inside
/// Core: the environment variables, the working folder (for a relative `--library`) and the
/// user's home folder from the password database (when `$HOME` is unset or empty).
public struct LibraryEnvironment: Sendable, Equatable {
    /// `PHOTOS_LIBRARY`, `XDG_DATA_HOME`, `HOME`, … as the process got them.
    public var variables: [String: String]
    /// Absolute path of the working folder.
    public var currentDirectory: String
    /// The user's home folder when `$HOME` is unset or empty.
    public var fallbackHome: String

    public init(variables: [String: String], currentDirectory: String, fallbackHome: String) {
        self.variables = variables
        self.currentDirectory = currentDirectory
        self.fallbackHome = fallbackHome
    }

    /// `$HOME`, else `fallbackHome`.
    public var home: String { variables["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? fallbackHome }
}
