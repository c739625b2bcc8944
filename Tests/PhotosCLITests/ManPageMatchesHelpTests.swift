import Foundation
import PhotosTestSupport
import XCTest

@testable import PhotosCLI

/// photos(1) and `--help` say the same (issue 30 item 7): every registered command has a
/// section in the man page's COMMANDS, whose heading and option list (`.TP` tags) name only
/// options its `--help` gives (or global ones), and which names every option its `--help`
/// gives (in the heading, the option list or the text of the section); GLOBAL OPTIONS lists
/// exactly the options of `photos --help`. In process: the help text is `Help.command`'s, what
/// `photos <command> --help` prints.
final class ManPageMatchesHelpTests: XCTestCase {
    /// One `.SS` section of COMMANDS (or the GLOBAL OPTIONS section), its troff escapes removed.
    struct ManSection {
        var heading: String
        /// Options in the heading (the synopsis of the command).
        var synopsis: Set<String> = []
        /// Options in the section's `.TP` tags: the options it lists.
        var listed: Set<String> = []
        /// Options in the section's bold text (`.B`, `.BR`, `\fB…\fR`), not counting those
        /// after a command's name (`"photos verify \-\-repair"`, a cross-reference).
        var mentioned: Set<String> = []
        /// The bold runs that start with a word (`photos init --from-backup`, `sync --apply`):
        /// options of the command they name, which may be this section's own.
        var references: [String] = []

        /// The options the section names for `command`: its synopsis, its option list, its
        /// text, and its references to `command` itself (`photos completions --complete …`).
        func documented(for command: String) -> Set<String> {
            let own = references.filter { $0.hasPrefix("photos \(command) ") || $0.hasPrefix(command + " ") }
            return synopsis.union(listed).union(mentioned).union(
                own.flatMap { ManPageMatchesHelpTests.options(in: $0) })
        }
    }

    static let manPage = packageRoot + "/man/photos.1"

    /// `\fI`, `\fB`, `\fR`, `\fP` dropped and `\-` made `-`.
    static func plain(_ troff: String) -> String {
        var text = troff.replacingOccurrences(of: "\\-", with: "-")
        for font in ["\\fI", "\\fB", "\\fR", "\\fP"] { text = text.replacingOccurrences(of: font, with: "") }
        return text
    }

    /// Every option spelling (`--name`, `-n`) in `text` that is not inside a word or a path.
    static func options(in text: String) -> [String] {
        // Not after a letter, digit, `-`, `/`, `=` or `.`: not `read-only`, `a/-x`, `options=-csearch_path`.
        let pattern = try? NSRegularExpression(pattern: "(?<![A-Za-z0-9/=.-])--?[A-Za-z][A-Za-z0-9-]*")
        let range = NSRange(text.startIndex..., in: text)
        return (pattern?.matches(in: text, range: range) ?? []).compactMap {
            Range($0.range, in: text).map { String(text[$0]) }
        }
    }

    /// The arguments of a font macro line (`.BR \-\-reverse ", " \-r`), quotes removed.
    static func macroArguments(_ line: String) -> [String] {
        var arguments: [String] = []
        var current = "", quoted = false, started = false
        for character in line.drop(while: { $0 != " " }) {
            if character == "\"" {
                quoted.toggle()
                started = true
            } else if character == " " && !quoted {
                if started { arguments.append(current) }
                current = ""
                started = false
            } else {
                current.append(character)
                started = true
            }
        }
        if started { arguments.append(current) }
        return arguments
    }

    /// The options a bold run of text names as this section's: those of an argument that
    /// starts with an option (`--dry-run`, `-o -`), not of one that starts with a word
    /// (`photos verify --repair`, `sync --apply`: another command's).
    static func boldOptions(_ argument: String) -> [String] {
        let text = plain(argument).trimmingCharacters(in: .whitespaces)
        guard text.hasPrefix("-") else { return [] }
        return options(in: text)
    }

    /// The man page's sections: `"GLOBAL OPTIONS"` and one per `.SS` heading of COMMANDS.
    static func sections() throws -> [ManSection] {
        let lines = try String(contentsOfFile: manPage, encoding: .utf8).components(separatedBy: "\n")
        var sections: [ManSection] = []
        var inCommands = false
        var current: ManSection?
        var previous = ""
        func close() {
            if let current { sections.append(current) }
            current = nil
        }
        for line in lines {
            defer { previous = line }
            if line.hasPrefix(".SH") {
                close()
                inCommands = line.hasPrefix(".SH COMMANDS")
                if line.hasPrefix(".SH GLOBAL OPTIONS") { current = ManSection(heading: "GLOBAL OPTIONS") }
                continue
            }
            if inCommands && line.hasPrefix(".SS") {
                close()
                let heading = plain(String(line.dropFirst(3))).trimmingCharacters(in: CharacterSet(charactersIn: " \""))
                current = ManSection(heading: heading, synopsis: Set(options(in: heading)))
                continue
            }
            guard current != nil else { continue }
            if previous.hasPrefix(".TP") {
                current?.listed.formUnion(options(in: plain(line)))
            } else if let first = [".B ": 0, ".BR ": 0, ".BI ": 0, ".RB ": 1].first(where: { line.hasPrefix($0.key) }) {
                // The bold arguments: every one of .B; 1st, 3rd… of .BR and .BI; 2nd, 4th… of .RB.
                let step = line.hasPrefix(".B ") ? 1 : 2
                let arguments = macroArguments(line)
                for (offset, argument) in arguments.enumerated() where offset % step == first.value % step {
                    current?.mentioned.formUnion(boldOptions(argument))
                }
                // A reference may run on over the next arguments (`.BI "photos completions \-\-complete " "INDEX"`).
                let text = plain(arguments.joined()).trimmingCharacters(in: .whitespaces)
                if !text.hasPrefix("-") { current?.references.append(text) }
            } else {
                var rest = line[...]
                while let start = rest.range(of: "\\fB") {
                    let after = rest[start.upperBound...]
                    let end = after.range(of: "\\f")?.lowerBound ?? after.endIndex
                    let bold = String(after[..<end])
                    current?.mentioned.formUnion(boldOptions(bold))
                    if !bold.hasPrefix("\\-") { current?.references.append(plain(bold)) }
                    rest = after[end...]
                    if rest.hasPrefix("\\f") { rest = rest.dropFirst(2) }
                }
            }
        }
        close()
        return sections
    }

    /// The command a COMMANDS heading is about: the longest registered name its leading
    /// lowercase words spell (`photos history consumers [--remove NAME]`).
    static func command(of heading: String) -> CommandDescriptor? {
        let words = heading.split(separator: " ").map(String.init)
        guard words.first == "photos" else { return nil }
        let name = words.dropFirst().prefix { $0.allSatisfy { $0.isLowercase || $0 == "-" } && !$0.hasPrefix("-") }
        return Registry.find(Array(name)).flatMap { $0.1 == name.count ? $0.0 : nil }
    }

    /// The options of one `OPTIONS:` block of help text, each as its spellings: each row's
    /// left column (`  -n, --limit <n>   At most…` → `["-n", "--limit"]`).
    static func helpOptions(_ help: String, block: String) -> [[String]] {
        guard let start = help.range(of: "\n" + block + ":\n") else { return [] }
        var options: [[String]] = []
        for line in help[start.upperBound...].split(separator: "\n", omittingEmptySubsequences: false) {
            if line.isEmpty { break }
            guard line.hasPrefix("  -") else { continue }
            let left = line.dropFirst(2).components(separatedBy: "  ").first ?? ""
            options.append(left.components(separatedBy: ", ").map { String($0.split(separator: " ").first ?? "") })
        }
        return options
    }

    /// Global options: what `photos --help` lists.
    static var globalHelpOptions: [[String]] { helpOptions(Help.main(width: 1000), block: "OPTIONS") }

    /// A command's own options: what `photos <command> --help` lists under OPTIONS.
    static func helpOptions(of command: CommandDescriptor) -> [[String]] {
        helpOptions(Help.command(command, width: 1000), block: "OPTIONS")
    }

    func testTheParsersFindOptionsWhereTheyAre() throws {
        XCTAssertEqual(
            Self.options(in: "[-o FILE] read-only --since-peer a/-x options=-csearch_path -n1"),
            [
                "-o", "--since-peer", "-n1"
            ])
        XCTAssertEqual(
            Self.macroArguments(#".BR \-\-limit ", " \-n " \fIN\fR""#), [#"\-\-limit"#, ", ", #"\-n"#, #" \fIN\fR"#])
        XCTAssertEqual(Self.boldOptions(#"photos verify \-\-repair"#), [])
        XCTAssertEqual(Self.boldOptions(#"\-o \-"#), ["-o"])
        let list = Help.command(try XCTUnwrap(Registry.find(["list"])).0, width: 1000)
        let listOptions = Self.helpOptions(list, block: "OPTIONS")
        XCTAssertTrue(listOptions.contains(["-n", "--limit"]), "\(listOptions)")
        XCTAssertTrue(listOptions.contains(["--tag"]), "\(listOptions)")
        XCTAssertTrue(Self.globalHelpOptions.contains(["-q", "--quiet"]), "\(Self.globalHelpOptions)")
        XCTAssertTrue(Self.globalHelpOptions.contains(["--library"]), "\(Self.globalHelpOptions)")
        let section = ManSection(
            heading: "photos completions bash|zsh|fish", mentioned: ["--sidecar"],
            references: ["photos completions --complete INDEX -- WORDS...", "photos init --from-backup"])
        XCTAssertEqual(section.documented(for: "completions"), ["--sidecar", "--complete"])
        let history = try XCTUnwrap(Registry.find(["history", "compact"])).0
        XCTAssertEqual(
            Self.synopsisArguments(
                "photos history compact (--before DATE | --keep-days N | --before-token T) [--force] [--dry-run]",
                of: history),
            [])
        let export = try XCTUnwrap(Registry.find(["export"])).0
        XCTAssertEqual(
            Self.synopsisArguments("photos export DEST [PHOTO...] [--zone ID] [--sidecar] [options]", of: export),
            ["DEST", "PHOTO..."])
    }

    func testEveryCommandHasOneSectionAndEverySectionACommand() throws {
        let sections = try Self.sections().filter { $0.heading != "GLOBAL OPTIONS" }
        XCTAssertGreaterThan(sections.count, 30, "the COMMANDS headings of \(Self.manPage)")
        var covered: [String: [String]] = [:]
        for section in sections {
            guard let command = Self.command(of: section.heading) else {
                XCTFail("photos(1) has a section for no command: \(section.heading)")
                continue
            }
            covered[command.name, default: []].append(section.heading)
        }
        for command in Registry.commands {
            XCTAssertEqual(
                covered[command.name]?.count, 1,
                "photos(1) sections of photos \(command.name): \(covered[command.name] ?? [])")
        }
    }

    /// Man page → help: the synopsis and option list of a command's section name only
    /// spellings its `--help` gives (or global ones). Help → man page: every option its
    /// `--help` gives is named in the section by one of its spellings.
    func testEachSectionListsTheOptionsItsCommandsHelpGives() throws {
        let global = Set(Self.globalHelpOptions.joined())
        var checked = 0
        for section in try Self.sections() where section.heading != "GLOBAL OPTIONS" {
            guard let command = Self.command(of: section.heading) else { continue }
            let help = Self.helpOptions(of: command)
            let spellings = Set(help.joined()).union(global)
            for option in section.synopsis.subtracting(spellings).sorted() {
                XCTFail("photos(1) synopsis of photos \(command.name) has \(option); its --help has no such option")
            }
            for option in section.listed.subtracting(spellings).sorted() {
                XCTFail("photos(1) lists \(option) under photos \(command.name); its --help has no such option")
            }
            let documented = section.documented(for: command.name)
            for option in help where documented.isDisjoint(with: option) {
                XCTFail(
                    "photos \(command.name) --help gives \(option.joined(separator: ", ")); its photos(1) section never names it"
                )
            }
            checked += help.count
        }
        XCTAssertGreaterThan(checked, 100, "options compared")
    }

    /// The positionals a COMMANDS heading shows: its words after the command's name, without
    /// brackets, option spellings, the value of an option that takes one (`--zone ID`), `|`
    /// and `options` (`[options]`).
    static func synopsisArguments(_ heading: String, of command: CommandDescriptor) -> [String] {
        let valued = Set(
            (command.options + InformationRequest.globalSpecs).filter { $0.value != nil }.flatMap(\.names))
        let brackets: Set<Character> = ["[", "]", "(", ")"]
        let spaced = String(heading.map { (c: Character) -> Character in brackets.contains(c) ? " " : c })
        let words = spaced.split(separator: " ").map(String.init)
        var arguments: [String] = []
        var value = false
        for word in words.dropFirst(1 + command.path.count) {
            if word == "|" || word == "options" {
                value = false
            } else if word.hasPrefix("-") {
                value = word.split(separator: "|").contains { valued.contains(String($0)) } // -o|--output
            } else if value {
                value = false
            } else {
                arguments.append(word)
            }
        }
        return arguments
    }

    /// The synopsis shows the positionals `--help`'s usage line shows, by name (`PHOTO...` is
    /// `<photo> ...`), in order; a choice of words (`bash|zsh|fish`) stands for one positional.
    func testEachSynopsisShowsTheArgumentsOfTheUsageLine() throws {
        var checked = 0
        for section in try Self.sections() where section.heading != "GLOBAL OPTIONS" {
            guard let command = Self.command(of: section.heading) else { continue }
            let shown = Self.synopsisArguments(section.heading, of: command)
            let usage = command.arguments.map { "<\($0.name)>" + ($0.variadic ? " ..." : "") }
            guard shown.count == command.arguments.count else {
                XCTFail("photos(1) synopsis of photos \(command.name) shows \(shown); its usage line \(usage)")
                continue
            }
            for (word, argument) in zip(shown, command.arguments) where !word.contains("|") {
                XCTAssertEqual(
                    word, argument.name.uppercased() + (argument.variadic ? "..." : ""),
                    "photos(1) synopsis of photos \(command.name): \(shown); its usage line \(usage)")
                checked += 1
            }
        }
        XCTAssertGreaterThan(checked, 30, "positionals compared")
    }

    /// Every spelling `--help` gives (`-y` of `--yes`, `--output` of `-o`) is somewhere in the
    /// man page: a reader of photos(1) meets every option's every name.
    func testEverySpellingOfEveryOptionIsInTheManPage() throws {
        let page = Set(Self.options(in: Self.plain(try String(contentsOfFile: Self.manPage, encoding: .utf8))))
        var missing: [String: [String]] = [:]
        for command in Registry.commands {
            for spelling in Self.helpOptions(of: command).joined() where !page.contains(spelling) {
                missing[spelling, default: []].append(command.name)
            }
        }
        for (spelling, commands) in missing.sorted(by: { $0.key < $1.key }) {
            XCTFail("\(spelling) (photos \(commands.joined(separator: ", "))) is nowhere in photos(1)")
        }
    }

    func testGlobalOptionsAreThoseOfTheMainHelp() throws {
        let section = try XCTUnwrap(try Self.sections().first { $0.heading == "GLOBAL OPTIONS" })
        let help = Set(Self.globalHelpOptions.joined())
        XCTAssertGreaterThan(help.count, 5)
        for option in section.listed.subtracting(help).sorted() {
            XCTFail("photos(1) GLOBAL OPTIONS lists \(option); photos --help has no such option")
        }
        for option in help.subtracting(section.listed).sorted() {
            XCTFail("photos --help gives the global option \(option); photos(1) GLOBAL OPTIONS does not list it")
        }
    }
}
