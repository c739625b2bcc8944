import Foundation
import PhotosFiles

/// The question a destructive command asks before it changes more than one object (`delete`,
/// `purge`, `history compact`, `verify --repair`, `tag delete`), as apt and `git clean -i` ask:
/// only when both stdin and stderr are terminals, so cron and pipelines never wait for an answer.
enum Confirmation {
    /// Help for `--yes`, the same on every command that asks.
    static let yesHelp = "Do not ask for confirmation on a terminal (never asked when not on one)."

    /// The option row `--yes`, `-y`.
    static func yes<Options>(_ field: WritableKeyPath<Options, Bool>) -> Option<Options> {
        .flag(field, "--yes", "-y", help: yesHelp)
    }

    /// True for the answers that mean yes: `y` or `yes`, in any case, spaces around ignored.
    static func accepts(_ answer: String) -> Bool {
        ["y", "yes"].contains(answer.trimmingCharacters(in: .whitespaces).lowercased())
    }
}

extension CommandContext {
    /// True when `confirm` could ask: neither `--yes` nor `--dry-run`, and stdin and stderr are
    /// terminals. A command computes the preview its question names only then.
    func mayAsk(yes: Bool, dryRun: Bool = false) -> Bool {
        !yes && !dryRun && console.streams.stdinIsTerminal && console.streams.stderrIsTerminal
    }

    /// Asks `question` (`"Delete 3 photos?"`) on stderr and reads the answer from stdin, when the
    /// command would change `objects` objects (more than one), `--yes` and `--dry-run` are not
    /// given, and stdin and stderr are both terminals; returns at once otherwise.
    /// - Throws: `CommandFailure` (exit 1, nothing changed) when the answer is not yes (an empty
    ///   line and end of input are no).
    func confirm(_ question: String, objects: Int, yes: Bool, dryRun: Bool = false) throws {
        let streams = console.streams
        guard objects > 1, mayAsk(yes: yes, dryRun: dryRun) else { return }
        streams.err(TerminalText.escaped(question) + " [y/N] ")
        // Ctrl-C at the question ends the command at once: nothing has changed yet.
        let answer = StopSignal.withDefaultAction { streams.readAnswer() }
        if answer == nil { streams.err("\n") }
        guard let answer, Confirmation.accepts(answer) else {
            throw CommandFailure(
                status: .partial, message: "not confirmed: nothing was changed (--yes skips the question)")
        }
    }
}
