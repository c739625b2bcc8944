import Foundation
import PhotosCore
import PhotosModel

/// Options every command accepts, before or after its name (SPEC §5), decoded once (SwiftPM's
/// `GlobalOptions`). A command's own option of the same name shadows one of these: then only
/// the spelling before the command name is the global one (`photos history --author A` filters).
struct GlobalOptions: ParsableOptions, Sendable {
    /// `--library`, or nil to resolve from the environment.
    var library: String?
    /// `--json`: data as JSON on stdout.
    var json = false
    /// `--quiet`: nothing on success.
    var quiet = false
    /// `--author`, when given on the command line.
    var author: String?
    /// `--wait`: seconds to wait for another process's lock.
    var wait: Double?
    /// The owner address for this run: `--owner`, else `$PHOTOS_OWNER` (filled in by `CLI`
    /// after decoding, `environmentOwner`), else nil (the library's recorded identity applies).
    var owner: Email?
    /// True when `owner` came from `$PHOTOS_OWNER` (for `identity show`).
    var ownerFromEnvironment = false

    static var options: [Option<GlobalOptions>] {
        [
            .value(
                \.library, "--library", value: "PATH", help: "The library folder.",
                default: "$PHOTOS_LIBRARY, else $XDG_DATA_HOME/photos/Library", parser: .libraryPath),
            .flag(\.json, "--json", help: "Print data as JSON (one object, or JSON Lines for listings)."),
            .flag(\.quiet, "--quiet", "-q", help: "Print nothing on success; problems still go to stderr."),
            .value(
                \.author, "--author", value: "NAME", help: "Author recorded in history for this run's changes.",
                default: "$PHOTOS_AUTHOR, else photos", parser: .authorName),
            .value(
                \.owner, "--owner", value: "EMAIL",
                help: "The library owner's address for this run: authors changes in its own zones.",
                default: "$PHOTOS_OWNER, else 'photos identity set', else none", parser: .email),
            .value(
                \.wait, "--wait", value: "SECONDS", help: "How long to wait for another process's lock on the library.",
                default: "30", parser: .seconds)
        ]
    }

    /// The seconds to wait for a lock when `--wait` is not given.
    static let defaultWait: Double = 30
}

extension ValueParser where Value == String {
    /// A library folder: an empty value (an unset shell variable) must not fall back to the
    /// default library.
    static var libraryPath: ValueParser {
        ValueParser { text, name in
            guard !text.isEmpty else { throw UsageError("\(name) needs a path, not an empty string") }
            return text
        }
    }

    /// A history author: not empty, not only spaces, and no control characters (newlines,
    /// escapes), since `photos history` prints authors; normalized by
    /// `AuthorName.normalize`, so one person is one author of ratings.
    static var authorName: ValueParser {
        ValueParser { text, name in
            let author = AuthorName.normalize(text)
            guard !author.isEmpty else { throw UsageError("\(name) needs a non-empty name") }
            try GlobalOptions.checkAuthor(author, source: name)
            return author
        }
    }
}

/// `--help` and `--version`: requests answered instead of running a command.
struct InformationRequest: ParsableOptions {
    var help = false
    var version = false

    static var options: [Option<InformationRequest>] {
        [
            .flag(\.help, "--help", "-h", help: "Show help information."),
            .flag(\.version, "--version", help: "Show the version and the linked C libraries' versions.")
        ]
    }

    /// The global option table, as help lists it.
    static var globalSpecs: [OptionSpec] { GlobalOptions.options.map(\.spec) + options.map(\.spec) }
}

extension GlobalOptions {
    /// `$PHOTOS_AUTHOR` normalized (`AuthorName.normalize`), or nil when it is unset, empty or only
    /// white space (then the default author applies, as for an empty value).
    static func environmentAuthor(_ environment: [String: String]) -> String? {
        guard let text = environment["PHOTOS_AUTHOR"] else { return nil }
        let author = AuthorName.normalize(text)
        return author.isEmpty ? nil : author
    }

    /// `$PHOTOS_OWNER` checked and lower-cased (`Email(parsing:)`), or nil when it is unset, empty
    /// or only white space.
    /// - Throws: `CommandFailure` (64) naming `$PHOTOS_OWNER` when it is not an address.
    static func environmentOwner(_ environment: [String: String]) throws -> Email? {
        guard let text = environment["PHOTOS_OWNER"],
            !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty
        else { return nil }
        return try parseOption("$PHOTOS_OWNER", text) { try Email(parsing: $0) }
    }

    /// Refuses a history author that `AuthorName.problem` refuses (control or bidirectional
    /// characters, over 200 bytes): `photos history` and `rate` print authors, so they must be one
    /// printable line that does not reorder the next, and other libraries accept only such authors.
    /// - Parameter source: `--author` or `$PHOTOS_AUTHOR`, named in the message.
    /// - Throws: `UsageError` (64).
    static func checkAuthor(_ author: String, source: String) throws {
        if let problem = AuthorName.problem(author) {
            throw UsageError("\(source) \(problem): " + TerminalText.escaped(JSONValue.string(author).serialized()))
        }
    }
}
