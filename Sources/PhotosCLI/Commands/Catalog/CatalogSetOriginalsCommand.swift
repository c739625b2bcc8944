import Foundation
import PhotosCore

/// `photos catalog set-originals PATH`: records where a shared (PostgreSQL) catalog keeps its
/// originals (issue 31 item A3).
enum CatalogSetOriginalsCommand: Command {
    static let configuration = CommandConfiguration(
        path: ["catalog", "set-originals"],
        abstract: "Record the folder every library folder on this PostgreSQL catalog keeps its originals in.",
        discussion: """
            A PostgreSQL catalog shared by several library folders (machines) records one
            originals root, a folder every machine mounts at the same path: 'photos init
            --database URL --originals PATH' records it, or the first command of this version
            records the folder's own ExternalData. set-originals PATH changes it (after the
            originals were moved there, e.g. with rsync -a LIBRARY/ExternalData/ PATH/): it writes
            the marker PATH/.photos-originals with the catalog's id, records PATH, and says how
            many of the catalog's originals are in PATH. Every library folder on the catalog uses
            PATH from its next command. PATH must be an existing folder this user may write
            (66, 73), and not another catalog's originals (65). A SQLite library keeps its
            originals in LIBRARY/ExternalData (64).
            """,
        examples: ["photos catalog set-originals /mnt/team/originals"])

    struct Options: ParsableOptions {
        var path = ""

        static var arguments: [Argument<Options>] {
            [
                Argument(
                    spec: ArgumentSpec("path", help: "The originals root (an absolute path every machine mounts).")
                ) {
                    options, words in options.path = words.first ?? ""
                }
            ]
        }
    }

    static func run(_ options: Options, _ ctx: CommandContext) throws {
        guard !options.path.isEmpty else { throw UsageError("give the originals root PATH") }
        let path = Library.resolvePath(explicit: options.path, in: ctx.libraryEnvironment)
        let library = try ctx.openLibrary()
        let before = library.originals.root
        let (present, recorded) = try library.setOriginalsRoot(path)
        if ctx.global.json {
            ctx.console.printJSON(
                .object([
                    ("library", .string(ctx.libraryPath)), ("originals", .string(path)),
                    ("previous", .string(before)), ("present", .int(present)), ("recorded", .int(recorded))
                ]))
        } else if !ctx.global.quiet {
            ctx.console.print(
                "The catalog's originals root is now \(path) (was \(before)): \(present) of \(TerminalText.plural(recorded, "original")) are there"
            )
        }
        if present < recorded {
            ctx.console.note(
                "\(recorded - present) of the catalog's originals are not in \(path): move them there before importing or repairing"
            )
        }
    }
}
