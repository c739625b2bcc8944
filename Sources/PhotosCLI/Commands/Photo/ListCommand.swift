import Foundation
import PhotosCore

/// `photos list` (issue 14 item 1: find photos by name, text, format, tags and ratings, sorted
/// and limited, in a table that fits the terminal).
enum ListCommand: Command {
    static let configuration = CommandConfiguration(
        path: ["list"],
        abstract: "List photos: uniqueName, name, size, tags, rating, capture time, zone.",
        discussion: """
            The table fits the terminal ($COLUMNS, else the terminal's width, else 80 columns):
            names, tags and zones longer than their column end in '…', and below 120 columns the
            UNIQUENAME column shows the first 13 characters (a prefix every command accepts). Sizes
            are decimal (2.3 MB; --bytes for bytes). --tag matches tag names ignoring case and
            diacritics; an unknown tag, zone or share exits 66. When no photo matches, nothing is printed
            on stdout, "no photos match" on stderr, and the exit status is 0. With --json, one photo object per
            line with every field in full (byteSize in bytes): use it in scripts.
            """,
        examples: [
            "photos list --tag beach --sort rating --reverse --limit 10",
            "photos list --name 'IMG_2024*' --format heif",
            "photos list --search café --untagged",
            "photos list --tag x --json | jq -r .uniqueName | photos tag add Y -"
        ])

    struct Options: ParsableOptions {
        var selection = PhotoFilterOptions()
        var sort: PhotoQuery.Sort?
        var reverse = false
        var limit: Int?
        var bytes = false

        static var options: [Option<Options>] {
            PhotoFilterOptions.options.map { $0.lifted(\.selection) } + [
                .value(
                    \.sort, "--sort", value: "KEY", help: "Order by captured, imported, name, size or rating.",
                    default: "captured",
                    parser: ValueParser { text, name in
                        guard let key = PhotoQuery.Sort(rawValue: text.lowercased()) else {
                            let all = PhotoQuery.Sort.allCases.map(\.rawValue).joined(separator: ", ")
                            throw UsageError("\(name) takes \(all), not '\(text)'")
                        }
                        return key
                    }),
                .flag(\.reverse, "--reverse", "-r", help: "Reverse the order (newest, largest or best first)."),
                .value(
                    \.limit, "--limit", "-n", value: "N", help: "List at most N photos.",
                    parser: .int(in: 0...Int(Int32.max))),
                .flag(\.bytes, "--bytes", help: "Show sizes in bytes.")
            ]
        }

        func validate() throws { try selection.validate() }
    }

    static func run(_ options: Options, _ ctx: CommandContext) throws {
        var filter = options.selection.filter
        if let sort = options.sort { filter.sort = sort }
        filter.reverse = options.reverse
        filter.limit = options.limit
        filter.includeOriginals = ctx.global.json
        let library = try ctx.openLibraryForReading()
        // An unknown or ambiguous share, zone or tag fails before the header reaches stdout.
        if let share = filter.share { _ = try library.resolveShare(share) }
        let table = Table(columns: TerminalText.columns(environment: ctx.environment), bytes: options.bytes)
        var headerPrinted = false
        var matched = false
        try library.forEachPhoto(matching: filter) { photo in
            matched = true
            if ctx.global.json {
                ctx.console.printJSON(photo.json)
                return
            }
            if !headerPrinted && !ctx.global.quiet { ctx.console.print(table.header) }
            headerPrinted = true
            ctx.console.print(table.row(photo))
        }
        // Issue 32 item 5: an empty result is nothing on stdout (no lone header for a script to
        // skip) and a note on stderr; it is not an error (exit 0).
        if !matched { ctx.console.note("no photos match") }
    }

    /// The column layout for a terminal `columns` wide: UNIQUENAME, SIZE, RATING and CAPTURED
    /// have fixed widths; NAME, TAGS and ZONE share the rest (at least 8, 4 and 7 columns: the
    /// table is wider than the terminal only below about 75 columns). Widths are display
    /// widths (`TerminalText.width`), so CJK and combining-mark names stay aligned.
    struct Table {
        let id: Int
        let name: Int
        let size: Int
        let tags: Int
        let zone: Int
        let bytes: Bool
        static let rating = 6
        static let captured = 16

        init(columns: Int, bytes: Bool) {
            self.bytes = bytes
            id = columns >= 120 ? 36 : 13
            size = bytes ? 11 : 8
            let fixed = id + size + Table.rating + Table.captured + 6 * 2
            let flexible = max(0, columns - fixed)
            zone = max(7, min(36, flexible / 5))
            tags = max(4, flexible / 4)
            name = max(8, flexible - zone - tags)
        }

        var header: String {
            line("UNIQUENAME", "NAME", "SIZE", "TAGS", "RATING", "CAPTURED", "ZONE")
        }

        func row(_ photo: PhotoRecord) -> String {
            let t = TerminalText.self
            let captured = photo.captureDate.map { String($0.prefix(16)).replacingOccurrences(of: "T", with: " ") }
            return line(
                String(photo.uniqueName.prefix(id)), t.printable(photo.displayName),
                bytes ? String(photo.byteSize) : t.bytes(Int64(photo.byteSize)),
                photo.tags.isEmpty ? "-" : t.printable(photo.tags.joined(separator: ",")),
                photo.rating.map(String.init) ?? "-", captured ?? "-", photo.zone)
        }

        private func line(
            _ id: String, _ name: String, _ size: String, _ tags: String, _ rating: String, _ captured: String,
            _ zone: String
        ) -> String {
            let t = TerminalText.self
            return [
                t.fitted(id, self.id), t.fitted(name, self.name), t.padLeft(t.truncated(size, self.size), self.size),
                t.fitted(tags, self.tags), t.padLeft(rating, Table.rating), t.fitted(captured, Table.captured),
                t.truncated(zone, self.zone)
            ].joined(separator: "  ")
        }
    }
}
