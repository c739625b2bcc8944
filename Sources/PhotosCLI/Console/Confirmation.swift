import Foundation
import PhotosCore
import PhotosFiles

/// The question a destructive command asks before it deletes or removes anything (photos, tag
/// links, ratings, participants, shares, history, original files, files in an export's DEST),
/// as apt and `git clean -i` ask. The one rule (README "Confirmation", photos(1)
/// CONFIRMATION): on a terminal (stdin and stderr both terminals) every command that would
/// delete or remove at least one object asks first, naming the objects it counts
/// (`Delete tag 'bench' from 34 photos? [y/N]`); `--yes` skips the question; `--dry-run` asks
/// nothing, lists what would go and changes nothing. Without a terminal (cron, scripts, pipes)
/// it never asks and goes on, so cron keeps working; its output says what it deleted.
enum Confirmation {
    /// Help for `--yes`, the same on every command that asks.
    static let yesHelp = "Do not ask for confirmation on a terminal (never asked when not on one)."

    /// Help for `--dry-run`, the same on every destructive command that has no wording of its own.
    static let dryRunHelp = "Print what would be changed or deleted; change nothing."

    /// The option row `--yes`, `-y`.
    static func yes<Options>(_ field: WritableKeyPath<Options, Bool>) -> Option<Options> {
        .flag(field, "--yes", "-y", help: yesHelp)
    }

    /// The option row `--dry-run`.
    static func dryRun<Options>(_ field: WritableKeyPath<Options, Bool>, help: String = dryRunHelp) -> Option<Options> {
        .flag(field, "--dry-run", help: help)
    }

    /// True for the answers that mean yes: `y` or `yes`, in any case, spaces around ignored.
    static func accepts(_ answer: String) -> Bool {
        ["y", "yes"].contains(answer.trimmingCharacters(in: .whitespaces).lowercased())
    }

    /// "a, b, c" for up to `limit` names, then "… and N more"; each name made printable.
    static func names(_ names: [String], limit: Int = 5) -> String {
        let shown = names.prefix(limit).map { TerminalText.printable($0) }.joined(separator: ", ")
        return names.count > limit ? shown + " and \(names.count - limit) more" : shown
    }
}

extension CommandContext {
    /// True when `confirm` could ask: neither `--yes` nor `--dry-run`, and stdin and stderr are
    /// terminals. A command computes the preview its question names only then.
    func mayAsk(yes: Bool, dryRun: Bool = false) -> Bool {
        !yes && !dryRun && console.streams.stdinIsTerminal && console.streams.stderrIsTerminal
    }

    /// Asks `question` (`"Delete 3 photos?"`) on stderr and reads the answer from stdin, when the
    /// command would delete or remove `objects` objects (at least one), `--yes` and `--dry-run`
    /// are not given, and stdin and stderr are both terminals; returns at once otherwise.
    /// - Throws: `CommandFailure` (exit 1, nothing changed) when the answer is not yes (an empty
    ///   line and end of input are no).
    func confirm(_ question: String, objects: Int, yes: Bool, dryRun: Bool = false) throws {
        let streams = console.streams
        guard objects > 0, mayAsk(yes: yes, dryRun: dryRun) else { return }
        streams.err(TerminalText.escaped(question) + " [y/N] ")
        // Ctrl-C at the question ends the command at once: nothing has changed yet.
        let answer = StopSignal.withDefaultAction { streams.readAnswer() }
        if answer == nil { streams.err("\n") }
        guard let answer, Confirmation.accepts(answer) else {
            throw CommandFailure(
                status: .partial, message: "not confirmed: nothing was changed (--yes skips the question)")
        }
    }

    /// Runs a destructive `body` under the confirmation rule: when `mayAsk`, first runs it as a
    /// dry run on `library` (rolled back, no file touched), asks `question(preview)` when it
    /// names at least one object deleted or removed, and only on yes runs `body` for real.
    /// - Parameters:
    ///   - question: the question and the count of objects deleted or removed, from the preview;
    ///     nil or a count of 0: nothing would be deleted, nothing asked.
    /// - Returns: what `body` returned (with `--dry-run`, on a library opened for a dry run:
    ///   what it would do).
    /// - Throws: `CommandFailure` (exit 1) when not confirmed, what `body` throws.
    func confirmingDestruction<T>(
        _ library: Library, yes: Bool, dryRun: Bool, question: (T) -> (String, Int)?, run body: () throws -> T
    ) throws -> T {
        if mayAsk(yes: yes, dryRun: dryRun) {
            let preview = try library.dryRun(true, body)
            if let (text, objects) = question(preview) { try confirm(text, objects: objects, yes: yes) }
        }
        return try body()
    }
}
