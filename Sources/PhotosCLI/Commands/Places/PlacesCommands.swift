import Foundation
import PhotosCore
import PhotosModel

/// `photos places load FILE [--admin1 FILE] [--countries FILE]` (issue 26 item 3).
enum PlacesLoadCommand: Command {
    static let configuration = CommandConfiguration(
        path: ["places", "load"],
        abstract: "Load a GeoNames dump of populated places, to name where photos were taken.",
        discussion: """
            FILE is a file of GeoNames' geoname table (cities500.txt, cities1000.txt,
            cities15000.txt from download.geonames.org/export/dump; tab-separated, UTF-8); only
            populated places (feature class P) are kept. --admin1 admin1CodesASCII.txt names
            their first-level divisions (Utah, Occitanie), --countries countryInfo.txt their
            countries. The places replace those loaded before, in one transaction; they are not
            history and not synced (each library loads its own). Broken lines are counted and the
            first 5 named on stderr; the rest is loaded. A file with no populated place exits 65,
            a missing one 66, and nothing is changed. No network is ever used. Then 'show' names
            the place nearest a photo's position relative to the place's size ("3.2 km from Moab,
            Utah, US"), 'list --json' gives "place", and 'list --place NAME' finds the photos
            within a place's radius: 0.015 km × √population, 1 to 20 km.
            """,
        examples: [
            "photos places load cities1000.txt --admin1 admin1CodesASCII.txt",
            "photos places load cities500.txt --countries countryInfo.txt"
        ])

    struct Options: ParsableOptions {
        var file = ""
        var admin1: String?
        var countries: String?

        static var options: [Option<Options>] {
            [
                .value(\.admin1, "--admin1", value: "FILE", help: "GeoNames' admin1CodesASCII.txt: division names."),
                .value(\.countries, "--countries", value: "FILE", help: "GeoNames' countryInfo.txt: country names.")
            ]
        }
        static var arguments: [Argument<Options>] {
            [.one(\.file, "file", help: "A file of GeoNames' geoname table (cities1000.txt).")]
        }
    }

    static func run(_ options: Options, _ ctx: CommandContext) throws {
        let library = try ctx.openLibrary()
        let report: PlacesLoadReport
        do {
            report = try library.loadPlaces(
                path: options.file, admin1Path: options.admin1, countriesPath: options.countries)
        } catch let e as GeoNamesError {
            let status: ExitStatus = e.kind == .data ? .dataError : e.kind == .noInput ? .noInput : .ioError
            throw CommandFailure(status, e.description)
        }
        for line in report.broken {
            ctx.console.note("\(options.file): line \(line.line): \(line.reason); left out")
        }
        if report.brokenCount > report.broken.count {
            ctx.console.note("\(options.file): \(report.brokenCount - report.broken.count) more broken lines left out")
        }
        if ctx.global.json {
            ctx.console.printJSON(
                .object([
                    ("loaded", .int(report.loaded)), ("replaced", .int(report.replaced)),
                    ("broken", .int(report.brokenCount)), ("otherFeatures", .int(report.otherFeatures)),
                    ("admin1Names", .int(report.admin1Names)), ("countryNames", .int(report.countryNames))
                ]))
        } else if !ctx.global.quiet {
            var text = "Loaded \(TerminalText.plural(report.loaded, "place"))"
            if report.replaced > 0 { text += " (replacing \(report.replaced))" }
            text += ", \(TerminalText.plural(report.brokenCount, "broken line")) left out"
            if report.otherFeatures > 0 { text += ", \(report.otherFeatures) rows that are not populated places" }
            ctx.console.print(text)
        }
    }
}

/// `photos places status` (issue 26 item 3).
enum PlacesStatusCommand: Command {
    static let configuration = CommandConfiguration(
        path: ["places", "status"],
        abstract: "Show how many places are loaded to name photos' positions.",
        discussion: """
            Prints the number of populated places 'photos places load' put in the catalog (0:
            none; photos are then not named). With --json, {"places":N}.
            """,
        examples: ["photos places status"])

    struct Options: ParsableOptions {}

    static func run(_ options: Options, _ ctx: CommandContext) throws {
        let library = try ctx.openLibraryForReading()
        let count = try library.placeCount()
        if ctx.global.json {
            ctx.console.printJSON(.object([("places", .int(count))]))
        } else {
            ctx.console.print(
                count == 0
                    ? "No places loaded (photos places load cities1000.txt)"
                    : "\(TerminalText.plural(count, "place")) loaded")
        }
    }
}

/// `photos place set PHOTO NAME` (issue 26 item 3).
enum PlaceSetCommand: Command {
    static let configuration = CommandConfiguration(
        path: ["place", "set"],
        abstract: "Name the place a photo was taken, instead of the loaded places' guess.",
        discussion: """
            Sets the place name show prints (place: NAME (set by hand)) and list --json gives
            ({"name":NAME,"set":true}) for the photo, whether or not places are loaded or the
            photo has a position. Surrounding white space is trimmed and control characters
            become spaces; at most 200 bytes of UTF-8 (longer or empty exits 64). Recorded as one
            history transaction (context place set) that sync carries; a photo in a share shared
            with this library read-only exits 77. 'photos place clear' removes it.
            """,
        examples: ["photos place set 3f2a 'Le Capitole, Toulouse'"])

    struct Options: ParsableOptions {
        var photo = ""
        var name = ""
        static var arguments: [Argument<Options>] {
            [
                .one(\.photo, "photo", help: PhotoArguments.one),
                .one(\.name, "name", help: "The place's name.")
            ]
        }

        func validate() throws {
            guard name.utf8.count <= PhotoText.maxPlaceNameBytes else {
                throw UsageError("<name> is longer than \(PhotoText.maxPlaceNameBytes) bytes")
            }
            guard PhotoText.placeName(name) != nil else { throw UsageError("<name> is empty") }
        }
    }

    static func run(_ options: Options, _ ctx: CommandContext) throws {
        let library = try ctx.openLibrary()
        let photo = try ctx.resolvePhoto(options.photo, in: library)
        let changed = try library.setPlaceName([photo], to: options.name, author: ctx.historyAuthor)
        let name = PhotoText.placeName(options.name) ?? options.name
        if ctx.global.json {
            ctx.console.printJSON(
                .object([
                    ("photo", .string(photo.uniqueName)), ("place", .string(name)), ("changed", .bool(!changed.isEmpty))
                ]))
        } else if !ctx.global.quiet {
            ctx.console.print(
                changed.isEmpty
                    ? "\(photo.uniqueName) already has the place \(TerminalText.escaped(name))"
                    : "\(photo.uniqueName): place set to \(TerminalText.escaped(name))")
        }
    }
}

/// `photos place clear PHOTO…` (issue 26 item 3).
enum PlaceClearCommand: Command {
    static let configuration = CommandConfiguration(
        path: ["place", "clear"],
        abstract: "Remove the place name set by hand from photos.",
        discussion: """
            Removes what 'photos place set' recorded: show and list --json name the photo's place
            from the loaded places again (or none). One history transaction (context place clear)
            that sync carries.
            """,
        examples: ["photos place clear 3f2a 9b1c"])

    struct Options: ParsableOptions {
        var photos: [String] = []
        static var arguments: [Argument<Options>] {
            [.many(\.photos, "photo", help: "The photos (uniqueNames or prefixes; - reads them from stdin).")]
        }
        func validate() throws { if photos.isEmpty { throw UsageError("missing <photo>") } }
    }

    static func run(_ options: Options, _ ctx: CommandContext) throws {
        let library = try ctx.openLibrary()
        let photos = try ctx.resolvePhotos(options.photos, in: library)
        let changed = try library.setPlaceName(photos, to: nil, author: ctx.historyAuthor)
        if ctx.global.json {
            ctx.console.printJSON(.object([("cleared", .int(changed.count))]))
        } else if !ctx.global.quiet {
            ctx.console.print("Cleared the place of \(TerminalText.plural(changed.count, "photo"))")
        }
    }
}
