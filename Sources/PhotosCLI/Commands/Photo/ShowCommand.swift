import Foundation
import PhotosCore
import PhotosImaging

/// `photos show PHOTO`.
enum ShowCommand: Command {
    static let configuration = CommandConfiguration(
        path: ["show"],
        abstract: "Show one photo's attributes.",
        examples: ["photos show 3f2a", "photos show 3f2a --json | jq .tags"])

    struct Options: ParsableOptions {
        var photo = ""
        var share: String?

        static var options: [Option<Options>] {
            [
                .value(
                    \.share, "--share", value: "ID",
                    help: "Require the photo to be in this share (exit 66 when it is not).")
            ]
        }
        static var arguments: [Argument<Options>] { [.one(\.photo, "photo", help: PhotoArguments.one)] }
    }

    static func run(_ options: Options, _ ctx: CommandContext) throws {
        let library = try ctx.openLibraryForReading()
        let p = try ctx.resolvePhoto(options.photo, in: library)
        if let shareArgument = options.share {
            let share = try library.resolveShare(shareArgument)
            guard p.zone == share.id else {
                throw CommandFailure.noInput("photo \(p.uniqueName) is not in share \(share.id)")
            }
        }
        // The place a position is named after, when places are loaded (issue 26 item 3).
        // A name set by hand (`photos place set`) is shown instead.
        let place =
            p.placeName == nil
            ? try p.position.flatMap { position in
                try library.placeCount() > 0 ? try library.place(near: position) : nil
            } : nil
        if ctx.global.json {
            if let name = p.placeName {
                ctx.console.printJSON(ShowCommand.adding(place: setPlaceJSON(name), to: p.json))
            } else {
                ctx.console.printJSON(place.map { ShowCommand.adding(place: $0.json, to: p.json) } ?? p.json)
            }
            return
        }
        var placeLine: [(String, String)] = []
        if let name = p.placeName {
            placeLine = [("place", name + " (set by hand)")]
        } else if let place {
            placeLine = [("place", place.text)]
        }
        let lines: [(String, String)] =
            [
                ("uniqueName", p.uniqueName), ("displayName", p.displayName), ("title", p.title ?? "-"),
                ("description", p.description ?? "-"), ("format", ShowCommand.formatText(p)),
                ("kind", ShowCommand.kindText(p)),
                ("camera", p.camera?.text ?? "-"),
                ("size", "\(p.byteSize) bytes (\(TerminalText.bytes(Int64(p.byteSize))))"),
                ("dimensions", "\(p.width)×\(p.height) pixels, upright (EXIF Orientation \(p.orientation.rawValue))"),
                ("captured", p.captureDate.map { "\($0) (\(p.captureSource ?? "exif"))" } ?? "-"),
                ("position", p.position.map(ShowCommand.positionText) ?? "-")
            ] + placeLine + [

                ("imported", p.importedAt), ("sha256", p.sha256),
                ("original", "\(Library.externalDataName)/\(p.fileReference)")
            ]
        // Every original, one line each (issue 24 item 2): role, format, size, SHA-256 prefix, path.
        let originals = p.originals.map { original in
            "\(original.role.rawValue): \(original.format(orPhoto: p.format).rawValue), \(original.byteSize) bytes, "
                + "sha256 \(original.sha256.prefix(12))…, \(Library.externalDataName)/\(original.fileReference)"
        }
        let rest: [(String, String)] = [
            ("thumbnail", "\(p.thumbnailWidth)×\(p.thumbnailHeight) pixels"),
            ("tags", p.tags.isEmpty ? "-" : p.tags.joined(separator: ", ")),
            ("rating", p.rating.map { "\($0) (the mean of \(p.ratings.count), rounded half up)" } ?? "-"),
            ("ratings", p.ratings.isEmpty ? "-" : ShowCommand.ratingsText(p)),
            ("zone", "\(p.zone) (\(p.scope.rawValue))")
        ]
        ctx.console.printFields(lines + originals.prefix(1).map { ("originals", $0) }, value: TerminalText.escaped)
        // Further originals under the first, aligned with the values.
        for line in originals.dropFirst() {
            ctx.console.print(TerminalText.padRight("", 13) + TerminalText.escaped(line))
        }
        ctx.console.printFields(rest, value: TerminalText.escaped)
    }
}

extension ShowCommand {
    /// `json` (a photo object) with `"place"` after `"altitude"` (at the end when it has none).
    static func adding(place: JSONValue, to json: JSONValue) -> JSONValue {
        guard case .object(var pairs) = json else { return json }
        let index = pairs.firstIndex { $0.0 == "altitude" }.map { $0 + 1 } ?? pairs.count
        pairs.insert(("place", place), at: index)
        return .object(pairs)
    }

    /// A photo's format as `show` prints it: `jpeg`, or a RAW's with its container (`raw (nef)`).
    static func formatText(_ p: PhotoRecord) -> String {
        p.cameraFormat.map { "\(p.format.rawValue) (\($0))" } ?? p.format.rawValue
    }

    /// A photo's kind as `show` prints it (issue 25 item 2): `still`, or `video, 3.000 s, h264`.
    static func kindText(_ p: PhotoRecord) -> String {
        var parts = [p.kind]
        if let ms = p.durationMS { parts.append(String(format: "%.3f s", Double(ms) / 1000)) }
        if let codec = p.videoCodec { parts.append(codec) }
        return parts.joined(separator: ", ")
    }

    /// A position as `show` prints it: `43.604500, 1.444000, 146.0 m` (degrees north and east,
    /// six decimals, ~0.1 m; the altitude in metres above sea level, when known).
    static func positionText(_ position: GeoPosition) -> String {
        var text = String(format: "%.6f, %.6f", position.latitude, position.longitude)
        if let altitude = position.altitude { text += String(format: ", %.1f m", altitude) }
        return text
    }

    /// Each rating with its author, oldest first (issue #29 item 1): `owner@example.org 4,
    /// ann@example.org 5`; an anonymous one (from before ratings had authors, or an XMP
    /// sidecar's) as `(anonymous) 3`.
    static func ratingsText(_ p: PhotoRecord) -> String {
        p.ratings.enumerated().map { index, value in
            let author = index < p.ratingAuthors.count ? p.ratingAuthors[index] : nil
            return "\(author ?? "(anonymous)") \(value)"
        }.joined(separator: ", ")
    }
}
