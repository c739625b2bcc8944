import Foundation
import PhotosCore
import PhotosModel

/// What every command gets: the global options, the environment and the console.
final class CommandContext {
    /// The global options, decoded.
    let global: GlobalOptions
    /// The process environment (`PHOTOS_LIBRARY`, `PHOTOS_AUTHOR`, `PHOTOS_OWNER`, …).
    let environment: [String: String]
    /// stdout, stderr, diagnostics and progress.
    let console: Console

    /// Where the library location comes from (variables, working folder, home), read from the
    /// process once.
    let libraryEnvironment: LibraryEnvironment

    init(global: GlobalOptions, environment: [String: String], console: Console) {
        self.global = global
        self.environment = environment
        self.libraryEnvironment = LibraryEnvironment(
            variables: environment, currentDirectory: FileManager.default.currentDirectoryPath,
            fallbackHome: NSHomeDirectory())
        self.console = console
    }

    /// The resolved library folder (SPEC §2).
    var libraryPath: String { Library.resolvePath(explicit: global.library, in: libraryEnvironment) }

    /// Seconds to wait for another process's lock (`--wait`, default 30).
    var wait: Double { global.wait ?? GlobalOptions.defaultWait }

    /// The history author as Core resolves it per command (`HistoryAuthor.name(for:)`, the one
    /// place of the rule that maintenance commands record their own name unless `--author`):
    /// `--author`, else `$PHOTOS_AUTHOR`, else who this library is in the zone changed (its
    /// participant in a share accepted here; the owner address, `--owner`, `$PHOTOS_OWNER` or
    /// the recorded identity, in its own zones), else `photos` (issue #29 item 1).
    var historyAuthor: HistoryAuthor {
        let user = global.author ?? GlobalOptions.environmentAuthor(environment) ?? "photos"
        return HistoryAuthor(given: global.author, user: user, owner: global.owner?.rawValue)
    }

    /// The library owner's address, resolved in one place for every command (`share create`'s
    /// owner participant, the authors of changes): `--owner`, else `$PHOTOS_OWNER`, else the
    /// address `photos identity set` recorded, else nil.
    /// - Throws: the store's error.
    func ownerAddress(of library: Library) throws -> Email? {
        try global.owner ?? library.ownerAddress()
    }

    /// Opens the library, which must exist.
    /// - Parameter dryRun: open it for a `--dry-run`: nothing is created or migrated, and every
    ///   write the command makes is rolled back (`Library.dryRun`).
    /// - Throws: `LibraryError.noLibrary` when there is none, and what `Library.init` throws.
    func openLibrary(dryRun: Bool = false) throws -> Library {
        let library = try CompositionRoot.openLibrary(
            root: libraryPath, create: false, busyTimeout: wait, dryRun: dryRun)
        noteOriginals(of: library)
        return library
    }

    /// Says on stderr what the open of a shared catalog found about its originals root
    /// (issue 31 item A3): that it recorded one now (a catalog made before photos recorded
    /// them), or that the library folder's own ExternalData holds files that are not used.
    func noteOriginals(of library: Library) {
        let originals = library.originals
        if originals.recordedNow {
            console.note(
                "the catalog recorded no originals root: recorded \(originals.root) (this library folder's \(Library.externalDataName)); every library folder on the catalog now uses it (change it with 'photos catalog set-originals PATH')"
            )
        }
        if let stray = originals.strayFolder {
            console.note(
                "\(stray) holds files, but the catalog keeps its originals in \(originals.root): they are not used; move them there (rsync -a \(stray)/ \(originals.root)/) and remove \(stray)"
            )
        }
    }

    /// Opens the library, which must exist, for a command that only reads: as `openLibrary()`
    /// when this process may write it (so that it is migrated like any other), else read-only
    /// (`Library(readOnly:)`: a library on read-only media or of another user can be read).
    /// - Parameters:
    ///   - reading: false for a command that will write (then this is `openLibrary()`).
    ///   - dryRun: for the `--dry-run` of a command that only reads the library (export):
    ///     always opened read-only, so that a dry run never migrates it; one of an older schema
    ///     version is then refused with 65 ("run 'photos init'"), or 77 when this user may not
    ///     write it.
    /// - Throws: `LibraryError.noLibrary` when there is none, and what `Library.init` throws
    ///   (`LibraryError.cannotEnter` when it can be neither written nor read).
    func openLibraryForReading(_ reading: Bool = true, dryRun: Bool = false) throws -> Library {
        if dryRun {
            return try CompositionRoot.openLibrary(root: libraryPath, create: false, busyTimeout: wait, readOnly: true)
        }
        do {
            return try openLibrary()
        } catch let error where reading && ExitStatus(for: error, libraryPath: libraryPath) == .noPermission {
            return try CompositionRoot.openLibrary(root: libraryPath, create: false, busyTimeout: wait, readOnly: true)
        }
    }

    /// Opens the library, creating it (and saying so on stderr) when absent.
    func openOrCreateLibrary() throws -> Library {
        let path = libraryPath
        let existed = CompositionRoot.libraryExists(at: path)
        let library = try CompositionRoot.openLibrary(root: path, create: true, busyTimeout: wait)
        if !existed { console.note("created library at \(path)") }
        return library
    }
}
