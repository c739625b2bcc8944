import Foundation
import PhotosCore

/// `photos merge --from LIBRARY [--dry-run]`.
enum MergeCommand: Command {
    static let configuration = CommandConfiguration(
        path: ["merge"],
        abstract: "Bring another library's photos, tags, ratings and shares into this one.",
        discussion: """
            Photos are matched by uniqueName, then by SHA-256 (same bytes = same photo; this
            library's uniqueName stays); new photos come with their original, thumbnail and ratings;
            zones and shares are matched by id, tags by uuid (created with the same uuid when
            absent), and tag links are unioned. Same-named tags with different uuids are then
            duplicates, which dedupe-tags resolves the same way on every peer. Merging the same
            library again changes nothing. One transaction, author merge (unless --author). On a
            terminal, a merge that would move photos of this library into a share's zone or replace
            originals here asks first, naming them (--yes skips the question; never asked when not
            on a terminal).
            """)

    struct Options: ParsableOptions {
        var from = ""
        var dryRun = false
        var yes = false
        static var options: [Option<Options>] {
            [
                .required(\.from, "--from", value: "LIBRARY", help: "The other library's folder."),
                .flag(\.dryRun, "--dry-run", help: "Print what would come in; change nothing."),
                Confirmation.yes(\.yes)
            ]
        }
    }

    static func run(_ options: Options, _ ctx: CommandContext) throws {
        let library = try ctx.openLibrary(dryRun: options.dryRun)
        let otherRoot = Library.resolvePath(explicit: options.from, in: ctx.libraryEnvironment)
        guard CompositionRoot.libraryExists(at: otherRoot) else {
            throw CommandFailure.noInput("no library at \(otherRoot)")
        }
        // Read as it is, never migrated (merge writes nothing there); `merge` reads older schemas.
        let other = try CompositionRoot.openLibrary(
            root: otherRoot, create: false, busyTimeout: ctx.wait, readOnly: true, acceptingOlderSchema: true)
        let report = try ctx.confirmingDestruction(
            library, yes: options.yes, dryRun: options.dryRun,
            question: { (preview: MergeReport) in
                (question(preview, from: options.from), preview.movedPhotos + preview.originalsRestored)
            },
            run: {
                try ctx.console.withProgress(options.dryRun ? "checking" : "merging") { bar in
                    try library.merge(
                        from: other, dryRun: options.dryRun, author: ctx.historyAuthor,
                        progress: { done, total, bytes in bar.update(done: done, total: total, bytes: bytes) })
                }
            })
        if ctx.global.json {
            ctx.console.printJSON(report.json)
        } else if !ctx.global.quiet {
            let moved = report.movedPhotos > 0 ? ", \(report.movedPhotos) moved to their share's zone" : ""
            let restored =
                report.originalsRestored > 0
                ? "; \(report.originalsRestored) missing or damaged originals \(report.dryRun ? "to restore" : "restored")"
                : ""
            ctx.console.print(
                "\(report.dryRun ? "Would merge" : "Merged") \(TerminalText.plural(report.photos, "new photo")) (\(report.matchedPhotos) already here\(moved)), "
                    + "\(TerminalText.plural(report.ratings, "rating")), \(TerminalText.plural(report.tags, "tag")), \(TerminalText.plural(report.tagLinks, "tag link")), \(TerminalText.plural(report.zones, "zone")), \(TerminalText.plural(report.shares, "share")), "
                    + "\(TerminalText.plural(report.participants, "participant"))\(restored)")
        }
    }

    /// "Merge from L: move 2 photos of this library into their share's zone and replace 1
    /// missing or damaged original?", naming only what the merge does.
    static func question(_ preview: MergeReport, from: String) -> String {
        let t = TerminalText.self
        var parts: [String] = []
        if preview.movedPhotos > 0 {
            parts.append("move \(t.plural(preview.movedPhotos, "photo")) of this library into their share's zone")
        }
        if preview.originalsRestored > 0 {
            parts.append("replace \(t.plural(preview.originalsRestored, "missing or damaged original"))")
        }
        return "Merge from \(TerminalText.escaped(from)): \(parts.joined(separator: " and "))?"
    }
}
