import Foundation
import PhotosCore

/// `photos verify [--repair [--dry-run]] [--quick]`.
enum VerifyCommand: Command {
    static let configuration = CommandConfiguration(
        path: ["verify"],
        abstract: "Check the library's invariants; --repair fixes what can be fixed.",
        discussion: """
            Checks that every original exists with its recorded size and SHA-256, that no file in
            the external data folder lacks a row (an orphan, e.g. after a crash), that SQLite's
            integrity_check and foreign_key_check are clean, that no tag link crosses zones, and
            that every thumbnail is a sound JPEG of its recorded size (also with --quick). Each
            problem names the photo's uniqueName and file name. --repair removes orphan files,
            regenerates damaged or missing thumbnails from their originals and deletes photos whose
            original is gone (re-importing the intact file restores it instead); an original that
            cannot be checked (permission, I/O error) is unreadable-file, which --repair leaves alone.
            --repair --dry-run lists those repairs ("would repair: ...") and changes nothing (the
            repairs run and are rolled back). On a terminal, --repair lists the repairs and asks
            before one that deletes a photo or removes a file, naming what goes ("Delete 1 photo
            whose original is missing (storm-1.jpg) and 1 orphan file?"; --yes skips the question;
            never asked when not on a terminal). History author verify (unless --author). On a
            PostgreSQL catalog that several library folders have opened, --repair never deletes a
            photo because its original is not visible from here (it may be from another machine):
            the problem is reported, not repaired (exit 1); and --repair refuses (66, 73) while the
            catalog's originals root is not mounted here or cannot be written.
            The SHA-256 of the originals is computed, and the thumbnails decoded, by --jobs threads
            (default: the number of cores). --quick skips the hashes and runs SQLite's quick_check
            (pages and records, without matching every index against its table) instead of
            integrity_check.
            While an import or merge runs (it holds LIBRARY/import.lock), verify without --repair
            does not judge files no photo references (they may be its originals, written but not
            yet committed): it says how many it did not check and does not count them.
            Exit status 0 when clean, 1 when problems remain.
            """,
        examples: ["photos verify --quick", "photos verify --repair --dry-run", "photos verify --repair"])

    struct Options: ParsableOptions {
        var repair = false
        var dryRun = false
        var quick = false
        var yes = false
        var jobs: Int?

        static var options: [Option<Options>] {
            [
                .flag(
                    \.repair, "--repair",
                    help: "Remove orphan files, regenerate damaged thumbnails, delete photos whose original is gone."),
                .flag(\.dryRun, "--dry-run", help: "With --repair: list what it would change; change nothing."),
                .flag(
                    \.quick, "--quick",
                    help: "Check sizes only, not SHA-256 hashes; SQLite's quick_check instead of integrity_check."),
                .value(
                    \.jobs, "--jobs", "-j", value: "N", help: "Threads computing the SHA-256 of the originals.",
                    default: "number of cores", parser: .int(in: 1...256)),
                Confirmation.yes(\.yes)
            ]
        }

        func validate() throws {
            if dryRun && !repair {
                throw UsageError("--dry-run goes with --repair (verify alone never changes anything)")
            }
        }
    }

    static func run(_ options: Options, _ ctx: CommandContext) throws {
        // verify alone only reads (a read-only library can be verified); --repair writes;
        // --repair --dry-run runs the repairs on a library in dry-run mode (rolled back).
        let library =
            options.dryRun ? try ctx.openLibrary(dryRun: true) : try ctx.openLibraryForReading(!options.repair)
        if !options.repair, let problem = library.originals.problem, problem.isNotMounted {
            // Issue 31 item A3: the originals are reported missing because the root is not here.
            ctx.console.note(
                "the catalog's originals root \(library.originals.root) cannot be used here: \(problem); its originals are reported missing: mount it (verify --repair refuses until then)"
            )
        }
        if options.repair, ctx.mayAsk(yes: options.yes, dryRun: options.dryRun) {
            let preview = try library.verify(
                quick: options.quick, repair: true, dryRun: true, author: ctx.historyAuthor)
            let (question, objects) = question(preview.repairs)
            if objects > 0 {
                for repair in preview.repairs {
                    ctx.console.errorText(TerminalText.escaped("  would repair: \(repair)") + "\n")
                }
            }
            try ctx.confirm(question, objects: objects, yes: options.yes)
        }
        do {
            let report = try ctx.console.withProgress("verifying") { bar in
                try library.verify(
                    quick: options.quick, repair: options.repair, dryRun: options.dryRun, author: ctx.historyAuthor,
                    jobs: options.jobs ?? ProcessInfo.processInfo.activeProcessorCount,
                    progress: { done, total, bytes in bar.update(done: done, total: total, bytes: bytes) })
            }
            printReport(report, ctx)
        } catch let interrupted as Interrupted<VerifyReport> {
            let cause = ErrorReporting.report(for: interrupted.error, libraryPath: ctx.libraryPath)
            printReport(interrupted.report, ctx, interruptedBy: cause)
            throw ErrorReporting.interrupted(
                interrupted.error, libraryPath: ctx.libraryPath,
                addendum:
                    "; the repairs listed as repaired were made: run 'photos verify --repair' again to finish")
        }
    }

    /// One line per problem (with `--repair --dry-run`, each followed by the repair it would
    /// make) and a summary, or one JSON object (with `"interrupted":true` and the `"error"`
    /// when an error stopped the repair part-way). Each problem that remains is a finding:
    /// the command exits 1.
    static func printReport(
        _ report: VerifyReport, _ ctx: CommandContext, interruptedBy error: ErrorReporting.Report? = nil
    ) {
        let console = ctx.console
        let json = ctx.global.json
        for problem in report.problems {
            let line = TerminalText.escaped(
                "\(problem.repaired ? "repaired" : "problem"): \(problem.kind): \(problem.detail)")
            if !problem.repaired {
                console.finding(json ? nil : line)
            } else if !json {
                console.print(line)
            }
            if !json, report.dryRun, let repair = problem.repair {
                console.print(TerminalText.escaped("  would repair: \(repair)"))
            }
        }
        if json {
            var object = report.json
            if let error, case .object(var pairs) = object {
                pairs += [("interrupted", .bool(true)), ("error", .string(error.message))]
                object = .object(pairs)
            }
            console.printJSON(object)
        } else {
            if report.filesNotChecked > 0 {
                // Not findings (they may be a running import's uncommitted originals), but a check
                // left undone: said even with --quiet, so a cron verify that always meets an
                // import does not pass over its orphans in silence.
                console.print(
                    "\(TerminalText.plural(report.filesNotChecked, "unreferenced file")) not checked: an import or merge is running"
                )
            }
            guard !ctx.global.quiet || !report.isClean else { return }
            let remaining = report.problems.filter { !$0.repaired }.count
            let repaired = report.problems.count - remaining
            var line =
                "Checked \(report.photos) photos, \(report.thumbnails) thumbnails and \(report.files) files: "
                + "\(TerminalText.plural(remaining, "problem"))\(repaired > 0 ? ", \(repaired) repaired" : "")"
            if report.dryRun {
                line +=
                    "; --repair would make \(TerminalText.plural(report.repairs.count, "change")) (dry run: nothing changed)"
            }
            if error != nil { line += " (interrupted)" }
            console.print(line)
        }
    }

    /// The question `--repair` asks on a terminal and the count of objects it deletes or
    /// removes (photos, their ratings and tag links, orphan files; the other repairs only fix):
    /// "Delete 1 photo whose original is missing (storm-1.jpg) and 1 orphan file, and regenerate
    /// 1 thumbnail?".
    static func question(_ repairs: [VerifyRepair]) -> (String, Int) {
        let t = TerminalText.self
        var photos: [String] = []
        var links = 0
        var files = 0
        var fixes: [String: Int] = [:]
        for repair in repairs {
            switch repair {
            case let .deletePhoto(_, display, ratings, tags, _):
                photos.append(display)
                links += ratings + tags
            case .removeFile: files += 1
            case .regenerateThumbnail: fixes["regenerate", default: 0] += 1
            case .fixFileReference: fixes["point", default: 0] += 1
            case .relinkTag: fixes["relink", default: 0] += 1
            case .normalizeTagName: fixes["normalize", default: 0] += 1
            }
        }
        var deletions: [String] = []
        if !photos.isEmpty {
            let with =
                links == 0 ? "" : " with \(links == 1 ? "1 rating or tag link" : "\(links) ratings and tag links")"
            deletions.append(
                "\(t.plural(photos.count, "photo")) whose original is missing (\(Confirmation.names(photos)))\(with)")
        }
        if files > 0 { deletions.append(t.plural(files, "orphan file")) }
        var others: [String] = []
        if let n = fixes["regenerate"] { others.append("regenerate \(t.plural(n, "thumbnail"))") }
        if let n = fixes["point"] { others.append("point \(t.plural(n, "photo")) at their originals") }
        if let n = fixes["relink"] { others.append("relink \(t.plural(n, "tag link"))") }
        if let n = fixes["normalize"] { others.append("normalize \(t.plural(n, "tag name"))") }
        var text = deletions.isEmpty ? "" : "Delete " + deletions.joined(separator: " and ")
        if !others.isEmpty { text += (text.isEmpty ? "" : ", and ") + others.joined(separator: ", ") }
        if let first = text.first, first.isLowercase { text = first.uppercased() + text.dropFirst() }
        return (text + "?", photos.count + files)
    }
}
