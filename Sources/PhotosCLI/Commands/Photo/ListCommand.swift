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
            line with every field in full (byteSize in bytes): use it in scripts. --columns picks the
            table's columns (uniquename, name, size, tags, rating, captured, zone, title, format);
            every line is cut to the terminal's width. --template prints one line per photo made
            from export's template fields ({name} {stem} {ext} {uniqueName} {share} {shareId}
            {author} {rating} {tag} {title} {capture:FORMAT} {imported:FORMAT}; see export), like
            git log --format: no header, no '.{ext}' appended, nothing cut, control characters
            shown as '?'. --template, --columns and --json go one at a time.
            """,
        examples: [
            "photos list --tag beach --sort rating --reverse --limit 10",
            "photos list --name 'IMG_2024*' --format heif",
            "photos list --search café --untagged",
            "photos list --columns name,captured,rating,tags",
            "photos list --template '{author} {share} {name}'",
            "photos list --tag x --json | jq -r .uniqueName | photos tag add Y -"
        ])

    struct Options: ParsableOptions {
        var selection = PhotoFilterOptions()
        var sort: PhotoQuery.Sort?
        var reverse = false
        var limit: Int?
        var bytes = false
        var place: String?
        var template: ExportNameTemplate?
        var columns: [Column]?

        static var options: [Option<Options>] {
            PhotoFilterOptions.options.map { $0.lifted(\.selection) } + [
                .value(
                    \.place, "--place", value: "NAME",
                    help:
                        "Only photos within a loaded place's radius (photos places load): NAME, or NAME, DIVISION or COUNTRY; the most populous match."
                ),
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
                .flag(\.bytes, "--bytes", help: "Show sizes in bytes."),
                .value(
                    \.columns, "--columns", value: "LIST",
                    help:
                        "Table columns, comma-separated: uniquename name size tags rating captured zone title format.",
                    parser: ValueParser { text, name in try Column.parse(text, option: name) }),
                .value(
                    \.template, "--template", value: "TEMPLATE",
                    help: "One line per photo from export's template fields, e.g. '{capture} {name}'.",
                    parser: ValueParser { text, _ in try ExportNameTemplate(parsing: text, appendingExtension: false) })
            ]
        }

        func validate() throws {
            if template != nil && columns != nil { throw UsageError("--template and --columns go one at a time") }
            try selection.validate()
            if place != nil && selection.filter.near != nil { throw UsageError("give --place or --near, not both") }
            if place != nil && selection.filter.hasPosition == false {
                throw UsageError("give --place or --without-location, not both")
            }
        }
    }

    /// A column `--columns` can show, named as the default table's header (lowercased), plus
    /// the photo's title and format.
    enum Column: String, CaseIterable {
        case uniquename, name, size, tags, rating, captured, zone, title, format

        /// The comma-separated `text` of `--columns` (spaces around names ignored, names in any
        /// case).
        /// - Throws: `UsageError` naming an empty list, an unknown or a repeated column.
        static func parse(_ text: String, option: String) throws -> [Column] {
            let known = Column.allCases.map(\.rawValue).joined(separator: ", ")
            let names = text.split(separator: ",", omittingEmptySubsequences: false).map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            guard names.contains(where: { !$0.isEmpty }) else {
                throw UsageError("\(option) takes a comma-separated list of columns (\(known)); the list is empty")
            }
            var result: [Column] = []
            for name in names {
                guard let column = Column(rawValue: name.lowercased()) else {
                    throw UsageError(
                        "\(option): unknown column '\(TerminalText.escaped(name))' (known: \(known))")
                }
                guard !result.contains(column) else {
                    throw UsageError("\(option): column '\(column.rawValue)' is named twice")
                }
                result.append(column)
            }
            return result
        }
    }

    static func run(_ options: Options, _ ctx: CommandContext) throws {
        var filter = options.selection.filter
        if let sort = options.sort { filter.sort = sort }
        filter.reverse = options.reverse
        filter.limit = options.limit
        filter.includeOriginals = ctx.global.json
        if ctx.global.json && (options.template != nil || options.columns != nil) {
            throw UsageError("\(options.template != nil ? "--template" : "--columns") and --json go one at a time")
        }
        let library = try ctx.openLibraryForReading()
        // An unknown or ambiguous share, zone or tag fails before the header reaches stdout.
        if let share = filter.share { _ = try library.resolveShare(share) }
        if let name = options.place { filter.near = try placeCircle(name, library: library, ctx: ctx) }
        // Each photo's place in --json, when places are loaded (issue 26 item 3): one box query a
        // position, remembered for photos taken at the same one.
        let placesLoaded = ctx.global.json ? try library.placeCount() > 0 : false
        var placeCache: [String: NamedPlace?] = [:]
        let width = TerminalText.columns(environment: ctx.environment)
        if let template = options.template {
            return try listLines(template, filter: filter, library: library, ctx: ctx)
        }
        if let columns = options.columns {
            let table = ColumnTable(columns: columns, width: width, bytes: options.bytes)
            var matched = false
            try library.forEachPhoto(matching: filter) { photo in
                if !matched && !ctx.global.quiet { ctx.console.print(table.header) }
                matched = true
                ctx.console.print(table.row(photo))
            }
            if !matched { ctx.console.note("no photos match") }
            return
        }
        let table = Table(columns: width, bytes: options.bytes)
        var headerPrinted = false
        var matched = false
        try library.forEachPhoto(matching: filter) { photo in
            matched = true
            if ctx.global.json {
                if let name = photo.placeName {
                    ctx.console.printJSON(ShowCommand.adding(place: setPlaceJSON(name), to: photo.json))
                    return
                }
                guard placesLoaded, let position = photo.position else {
                    ctx.console.printJSON(photo.json)
                    return
                }
                let key = "\(position.latitude) \(position.longitude)"
                if placeCache[key] == nil {
                    if placeCache.count >= 10_000 { placeCache.removeAll() }
                    placeCache[key] = .some(try library.place(near: position))
                }
                let place = placeCache[key] ?? nil
                ctx.console.printJSON(place.map { ShowCommand.adding(place: $0.json, to: photo.json) } ?? photo.json)
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

    /// The circle `--place NAME` selects: the most populous loaded place of that name, with the
    /// radius `PlaceRule.radiusKm` gives it; said on stderr (with how many other places have the
    /// name), so that a wrong guess is visible.
    /// - Throws: `CommandFailure` 66 when no places are loaded or none has the name.
    static func placeCircle(_ name: String, library: Library, ctx: CommandContext) throws -> GeoCircle {
        let count = try library.placeCount()
        guard count > 0 else {
            throw CommandFailure.noInput("no places are loaded: run 'photos places load cities1000.txt' first")
        }
        let found = try library.places(named: name)
        guard let place = found.first else {
            throw CommandFailure.noInput("no place '\(name)' among the \(TerminalText.plural(count, "loaded place"))")
        }
        let radius = PlaceRule.radiusKm(population: place.population)
        let named = NamedPlace(place: place, distanceKm: 0)
        var note = String(
            format: "--place: photos within %@ of %@ (%.5f, %.5f)", NamedPlace.distanceText(radius), named.label,
            Double(place.latitudeE7) / 1e7, Double(place.longitudeE7) / 1e7)
        if found.count > 1 {
            note +=
                "; \(TerminalText.plural(found.count - 1, "other place")) of this name (add the division or country)"
        }
        ctx.console.note(note)
        return GeoCircle(
            latitude: Double(place.latitudeE7) / 1e7, longitude: Double(place.longitudeE7) / 1e7, radiusKm: radius)
    }

    /// `--template`: one line a photo, `template` rendered with what its fields need (share
    /// titles read once; the insert authors of `{author}` read for `batch` photos at a time,
    /// one query each, never one a photo), control characters shown as `?`.
    static func listLines(
        _ template: ExportNameTemplate, filter: PhotoFilter, library: Library, ctx: CommandContext
    ) throws {
        let titles = template.usesShareTitle ? try library.shareTitlesByZone() : [:]
        let batch = 500
        var pending: [PhotoRecord] = []
        var matched = false
        func flush() throws {
            let context = try library.nameContext(for: pending, template: template, shareTitles: titles)
            for photo in pending { ctx.console.print(TerminalText.printable(template.render(photo, context: context))) }
            pending.removeAll(keepingCapacity: true)
        }
        try library.forEachPhoto(matching: filter) { photo in
            matched = true
            pending.append(photo)
            if pending.count >= batch { try flush() }
        }
        try flush()
        if !matched { ctx.console.note("no photos match") }
    }

    /// The table of `--columns`: the columns asked for, in that order. UNIQUENAME (13
    /// characters below 120 columns, as the default table), SIZE, RATING, CAPTURED and FORMAT
    /// have fixed widths; NAME, TITLE and ZONE share the rest, TAGS taking twice their share.
    /// Every line is cut to `width` display columns (`TerminalText.truncated`).
    struct ColumnTable {
        let columns: [Column]
        let width: Int
        let bytes: Bool
        private var widths: [Column: Int] = [:]

        init(columns: [Column], width: Int, bytes: Bool) {
            self.columns = columns
            self.width = width
            self.bytes = bytes
            var fixed = 2 * (columns.count - 1)
            var shares = 0
            for column in columns {
                switch column {
                case .uniquename: widths[column] = width >= 120 ? 36 : 13
                case .size: widths[column] = bytes ? 11 : 8
                case .rating: widths[column] = Table.rating
                case .captured: widths[column] = Table.captured
                case .format: widths[column] = 6
                case .tags: shares += 2
                case .name, .title, .zone: shares += 1
                }
                fixed += widths[column] ?? 0
            }
            let share = shares == 0 ? 0 : max(0, width - fixed) / shares
            for column in columns where widths[column] == nil {
                widths[column] = max(4, column == .tags ? 2 * share : share)
            }
        }

        var header: String { line(columns.map { $0.rawValue.uppercased() }) }

        func row(_ photo: PhotoRecord) -> String {
            let t = TerminalText.self
            return line(
                columns.map { column in
                    switch column {
                    case .uniquename: return photo.uniqueName
                    case .name: return t.printable(photo.displayName)
                    case .size: return bytes ? String(photo.byteSize) : t.bytes(Int64(photo.byteSize))
                    case .tags: return photo.tags.isEmpty ? "-" : t.printable(photo.tags.joined(separator: ","))
                    case .rating: return photo.rating.map(String.init) ?? "-"
                    case .captured:
                        return photo.captureDate.map {
                            String($0.prefix(16)).replacingOccurrences(of: "T", with: " ")
                        } ?? "-"
                    case .zone: return t.printable(photo.zone)
                    case .title: return photo.title.map(t.printable) ?? "-"
                    case .format: return photo.format.rawValue
                    }
                })
        }

        private func line(_ values: [String]) -> String {
            let t = TerminalText.self
            let cells = zip(columns, values).enumerated().map { i, pair -> String in
                let (column, value) = pair
                let w = widths[column] ?? 4
                // A uniqueName is cut to a prefix every command accepts, without '…'.
                let cut = column == .uniquename ? String(value.prefix(w)) : t.truncated(value, w)
                let right = column == .size || column == .rating
                if right { return t.padLeft(cut, w) }
                return i == columns.count - 1 ? cut : t.padRight(cut, w)
            }
            return t.truncated(cells.joined(separator: "  "), width)
        }
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
