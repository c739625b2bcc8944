import Foundation
import PhotosCore

/// `photos completions bash|zsh|fish`, and `photos completions --complete INDEX -- WORDS…`,
/// which the scripts call on every Tab (the way cobra's `__complete` and argument-parser's
/// `---completion` work: one completer in Swift, three thin shell scripts).
enum CompletionsCommand: Command {
    static let configuration = CommandConfiguration(
        path: ["completions"],
        abstract: "Print the shell completion script for bash, zsh or fish.",
        discussion: """
            The script completes commands, options, option values (permissions, sidecar kinds,
            entities, shells) and photo, share, zone and tag names read from the library (the one
            --library or $PHOTOS_LIBRARY names on the command line being completed). Install:
            photos completions bash > ~/.local/share/bash-completion/completions/photos;
            photos completions zsh > "${fpath[1]}/_photos"; photos completions fish >
            ~/.config/fish/completions/photos.fish. --complete INDEX -- WORDS prints the
            candidates for word INDEX of WORDS (the program name is word 0), one per line after a
            first line saying their kind (words, files or dirs): what the scripts call.
            """)

    struct Options: ParsableOptions {
        var shell: String?
        var complete: Int?
        var words: [String] = []

        static var options: [Option<Options>] {
            [
                .value(
                    \.complete, "--complete", value: "INDEX",
                    help: "Print the candidates for word INDEX of the words after -- (used by the scripts).",
                    parser: .int(in: 0...10_000))
            ]
        }
        static var arguments: [Argument<Options>] {
            [
                Argument(spec: ArgumentSpec("shell", help: "bash, zsh or fish.", variadic: true, optional: true)) {
                    options, words in options.words = words
                }
            ]
        }

        mutating func validate() throws {
            if complete != nil { return }
            guard words.count == 1, let shell = words.first, Shell(rawValue: shell) != nil else {
                throw UsageError(
                    "completions takes one shell: bash, zsh or fish\(words.isEmpty ? "" : ", not '\(words.joined(separator: " "))'")"
                )
            }
            self.shell = shell
        }
    }

    /// The shells a script is written for.
    enum Shell: String, CaseIterable {
        case bash, zsh, fish
    }

    static func run(_ options: Options, _ ctx: CommandContext) throws {
        if let index = options.complete {
            let result = Completer(words: options.words, index: index, context: ctx).complete()
            ctx.console.print(result.kind.rawValue)
            for candidate in result.candidates { ctx.console.print(candidate) }
            return
        }
        guard let shell = options.shell.flatMap(Shell.init(rawValue:)) else { return }
        ctx.console.printText(CompletionScripts.script(for: shell))
    }
}

/// The three scripts: each asks `photos completions --complete` for the candidates.
enum CompletionScripts {
    static func script(for shell: CompletionsCommand.Shell) -> String {
        switch shell {
        case .bash: bash
        case .zsh: zsh
        case .fish: fish
        }
    }

    /// bash (bash-completion's `complete -F`): `COMP_WORDS` split at `COMP_WORDBREAKS` (`=` is a
    /// word of its own; the completer reads `--opt = value` as `--opt=value`). Candidates are
    /// quoted for the line with `printf %q` (`New\ York`), as zsh's `compadd` does.
    static let bash = """
        # bash completion for photos (photos completions bash)
        _photos() {
            local IFS=$'\\n'
            local -a out
            out=($("${COMP_WORDS[0]}" completions --complete "$COMP_CWORD" -- "${COMP_WORDS[@]}" 2>/dev/null))
            local cur="${COMP_WORDS[COMP_CWORD]}"
            [ "$cur" = "=" ] && cur=""
            case "${out[0]}" in
                files) compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -f -- "$cur")) ;;
                dirs) compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -d -- "$cur")) ;;
                *) local c; COMPREPLY=()
                   for c in "${out[@]:1}"; do COMPREPLY+=("$(printf '%q' "$c")"); done ;;
            esac
        }
        complete -F _photos photos

        """

    /// zsh (`#compdef`, in a folder of `$fpath` as `_photos`, or sourced after `compinit`).
    static let zsh = """
        #compdef photos
        # zsh completion for photos (photos completions zsh)
        _photos() {
            local -a out
            out=("${(@f)$("${words[1]}" completions --complete $((CURRENT - 1)) -- "${words[@]}" 2>/dev/null)}")
            case "$out[1]" in
                files) _files ;;
                dirs) _files -/ ;;
                *) compadd -- "${(@)out[2,-1]}" ;;
            esac
        }
        if [ "$funcstack[1]" = "_photos" ]; then
            _photos "$@"
        else
            compdef _photos photos
        fi

        """

    /// fish (`complete -c photos -a '(…)'`).
    static let fish = """
        # fish completion for photos (photos completions fish)
        function __photos_complete
            set -l words (commandline -opc)
            set -l current (commandline -ct)
            set -l out ($words[1] completions --complete (count $words) -- $words $current 2>/dev/null)
            switch "$out[1]"
                case files
                    __fish_complete_path $current
                case dirs
                    __fish_complete_directories $current
                case '*'
                    printf '%s\\n' $out[2..-1]
            end
        end
        complete -c photos -f -a '(__photos_complete)'

        """
}
