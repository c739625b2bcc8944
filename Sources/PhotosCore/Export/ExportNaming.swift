import Foundation
import PhotosModel

/// A parsed `--name` template of `photos export` (SPEC §5, issue #5).
///
/// Fields: `{name}` (the displayName), `{stem}` (the displayName without its extension),
/// `{ext}` (its extension without the dot, or the format's `ImageFormat.fileExtension` — `jpg`, `png`, `heic`, `avif`, `webp` — when it has none),
/// `{uniqueName}`, `{share}` (the title of the share the photo is in, with `/` as `_`;
/// `default` for the private default zone, the zone id for a zone that is no share; issue 32
/// item 6), `{shareId}` (the photo's record zone id: a share's id is its zone's id, SPEC §3),
/// `{author}` (the transaction author of the photo's insert in persistent history, with `/`
/// as `_`; `unknown` when that history is gone, e.g. compacted), `{rating}` (the
/// displayed rating, the mean rounded half up, 1–5; `0` unrated, as XMP's xmp:Rating 0),
/// `{tag}` (the first of the photo's tags in sort order, or the copy's tag with `--per-tag`;
/// a hierarchical tag making folders, `untagged` without tags; issue 32 item 6), `{title}` (the photo's title with `/`
/// as `_`, so it makes no folder; `untitled` without one; issue 26 item 6), `{capture:FORMAT}` and `{imported:FORMAT}`
/// (strftime(3) formats, e.g. `%Y/%m`: the capture date in the photo's own local time, the
/// import date in UTC; the capture date falls back to the import date;
/// without `:FORMAT` the format is `%Y-%m-%d`). `/` in the template makes folders. A template
/// that names neither `{name}` nor `{ext}` gets `.{ext}` appended so every file keeps its type
/// (not for `photos list --template`, which names no file). `{share}` and `{author}` read
/// the library: they come from an `ExportNameContext` (`Library.nameContext`).
public struct ExportNameTemplate: Equatable, Sendable {
    enum Part: Equatable, Sendable {
        case literal(String)
        case name, stem, ext, uniqueName, share, shareID, rating, tag, title, author
        case capture(String), imported(String)
    }

    let parts: [Part]
    /// The template text as given.
    public let text: String

    /// The default template, `{name}`.
    public static let `default`: ExportNameTemplate = {
        ExportNameTemplate(text: "{name}", parts: [.name])
    }()

    private init(text: String, parts: [Part]) {
        self.text = text
        self.parts = parts
    }

    /// True when the template has `{tag}` (`export --per-tag` needs it).
    public var usesTag: Bool { parts.contains(.tag) }
    /// True when the template has `{author}`: its context needs the photos' insert authors.
    public var usesAuthor: Bool { parts.contains(.author) }
    /// True when the template has `{share}`: its context needs the share titles.
    public var usesShareTitle: Bool { parts.contains(.share) }

    /// Parses `text`; with `appendingExtension` (export's file names) a template without
    /// `{name}` or `{ext}` gets `.{ext}` appended, without it (`list --template`) nothing is.
    /// - Throws: `ExportError.unknownField`, `.unclosedField` or `.emptyTemplate`.
    public init(parsing text: String, appendingExtension: Bool = true) throws {
        var parts: [Part] = []
        var literal = ""
        var index = text.startIndex
        while index < text.endIndex {
            let c = text[index]
            if c == "{" {
                guard let close = text[index...].firstIndex(of: "}") else {
                    throw ExportError.unclosedField(template: text)
                }
                if !literal.isEmpty { parts.append(.literal(literal)); literal = "" }
                let field = String(text[text.index(after: index)..<close])
                let (key, format): (String, String?) = {
                    guard let colon = field.firstIndex(of: ":") else { return (field, nil) }
                    return (String(field[..<colon]), String(field[field.index(after: colon)...]))
                }()
                switch (key, format) {
                case ("name", nil): parts.append(.name)
                case ("stem", nil): parts.append(.stem)
                case ("ext", nil): parts.append(.ext)
                case ("uniqueName", nil): parts.append(.uniqueName)
                case ("share", nil): parts.append(.share)
                case ("shareId", nil): parts.append(.shareID)
                case ("rating", nil): parts.append(.rating)
                case ("tag", nil): parts.append(.tag)
                case ("title", nil): parts.append(.title)
                case ("author", nil): parts.append(.author)
                case ("capture", let f):
                    try ExportNaming.checkConversions(f ?? "", field: field)
                    parts.append(.capture(f.flatMap { $0.isEmpty ? nil : $0 } ?? "%Y-%m-%d"))
                case ("imported", let f):
                    try ExportNaming.checkConversions(f ?? "", field: field)
                    parts.append(.imported(f.flatMap { $0.isEmpty ? nil : $0 } ?? "%Y-%m-%d"))
                default:
                    throw ExportError.unknownField(field)
                }
                index = text.index(after: close)
            } else {
                literal.append(c)
                index = text.index(after: index)
            }
        }
        if !literal.isEmpty { parts.append(.literal(literal)) }
        guard !parts.isEmpty else { throw ExportError.emptyTemplate }
        if appendingExtension && !parts.contains(.name) && !parts.contains(.ext) {
            parts += [.literal("."), .ext]
        }
        self.init(text: text, parts: parts)
    }

    /// The raw relative path for `photo`, before `ExportNaming.sanitize`; `{share}`,
    /// `{author}` and a `--per-tag` copy's `{tag}` come from `context`.
    public func render(_ photo: PhotoRecord, context: ExportNameContext = ExportNameContext()) -> String {
        var out = ""
        let (stem, ext) = ExportNaming.split(photo.displayName)
        let extension_ = ext.isEmpty ? photo.format.fileExtension : ext
        for part in parts {
            switch part {
            case .literal(let s): out += s
            case .name: out += photo.displayName
            case .stem: out += stem
            case .ext: out += extension_
            case .uniqueName: out += photo.uniqueName
            case .share: out += context.shareName(ofZone: photo.zone)
            case .shareID: out += photo.zone
            case .author: out += context.author(of: photo.uniqueName)
            case .rating: out += String(photo.rating ?? 0)
            case .tag: out += context.tag ?? photo.tags.min() ?? ExportNameContext.untagged
            case .title: out += photo.title.map { $0.replacingOccurrences(of: "/", with: "_") } ?? "untitled"
            case .capture(let f): out += ExportNaming.strftime(f, iso: photo.captureDate ?? photo.importedAt)
            case .imported(let f): out += ExportNaming.strftime(f, iso: photo.importedAt)
            }
        }
        return out
    }
}

/// What a template's fields read beyond the photo record (issue 32 item 6): the share titles
/// for `{share}`, the insert authors for `{author}`, and the tag of one `--per-tag` copy.
/// Filled by `Library.nameContext(for:template:shareTitles:)`: one query for the titles, one
/// for the authors of a page of photos.
public struct ExportNameContext: Equatable, Sendable {
    /// `{tag}` of a photo without tags (and the one copy `--per-tag` writes of it).
    public static let untagged = "untagged"
    /// `{author}` of a photo whose insert is not in persistent history (compacted away).
    public static let unknownAuthor = "unknown"

    /// Share titles by zone id (`Library.shareTitlesByZone()`).
    public var shareTitles: [String: String]
    /// Transaction authors of the photos' inserts by uniqueName (`Library.insertAuthors`).
    public var authors: [String: String]
    /// The tag of this copy (`export --per-tag`); nil: `{tag}` is the first tag in sort order.
    public var tag: String?

    public init(shareTitles: [String: String] = [:], authors: [String: String] = [:], tag: String? = nil) {
        self.shareTitles = shareTitles
        self.authors = authors
        self.tag = tag
    }

    /// `{share}`: `default` for the private default zone, the share's title (`/` as `_`, so
    /// it makes no folder) for a share's zone, else the zone id.
    public func shareName(ofZone zone: String) -> String {
        guard zone != ZoneID.default.rawValue, let title = shareTitles[zone] else { return zone }
        return title.replacingOccurrences(of: "/", with: "_")
    }

    /// `{author}`: the insert's transaction author (`/` as `_`), else `unknown`.
    public func author(of uniqueName: String) -> String {
        authors[uniqueName].map { $0.replacingOccurrences(of: "/", with: "_") } ?? ExportNameContext.unknownAuthor
    }
}

/// The rules that turn a rendered template into a safe path inside DEST (issue #5 §3).
public enum ExportNaming {
    /// Longest path component written, in UTF-8 bytes: NAME_MAX (255, POSIX `<limits.h>`) less
    /// room for a collision suffix ` (NNNNN)` and a sidecar extension `.json`.
    public static let maxComponentBytes = 230

    /// `name` split at its last `.` into stem and extension (without the dot); a name whose
    /// only `.` is its first character has no extension.
    public static func split(_ name: String) -> (stem: String, ext: String) {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return (name, "") }
        return (String(name[..<dot]), String(name[name.index(after: dot)...]))
    }

    /// A relative path that stays inside the export folder, or nil when nothing usable is left.
    ///
    /// Rules: NFC (Unicode Standard Annex #15); `/` separates folders; empty, `.` and `..`
    /// components are dropped (so a leading `/` or `../` cannot escape); control characters
    /// (Unicode category Cc, which includes NUL) become `_`; a component's leading `.` becomes
    /// `_`, so nothing exported is hidden (import skips hidden files) and nothing can clash with
    /// the export's own `.photos-export*` files; leading and trailing spaces are trimmed; a
    /// component longer than `maxComponentBytes` is shortened, keeping its extension.
    public static func sanitize(_ raw: String) -> String? {
        let nfc = raw.precomposedStringWithCanonicalMapping
        var components: [String] = []
        for piece in nfc.split(separator: "/", omittingEmptySubsequences: true) {
            var scalars = String.UnicodeScalarView()
            for s in piece.unicodeScalars {
                scalars.append(s.properties.generalCategory == .control ? "_" : s)
            }
            var component = String(scalars).trimmingCharacters(in: .whitespaces)
            if component.isEmpty || component == "." || component == ".." { continue }
            if component.hasPrefix(".") { component = "_" + component.dropFirst() }
            components.append(shorten(component))
        }
        return components.isEmpty ? nil : components.joined(separator: "/")
    }

    static func shorten(_ component: String) -> String {
        guard component.utf8.count > maxComponentBytes else { return component }
        let (stem, ext) = split(component)
        let keepExt = ext.utf8.count <= 16 && !ext.isEmpty
        let budget = maxComponentBytes - (keepExt ? ext.utf8.count + 1 : 0)
        var out = ""
        for ch in (keepExt ? stem : component) {
            if out.utf8.count + String(ch).utf8.count > budget { break }
            out.append(ch)
        }
        return keepExt ? out + "." + ext : out
    }

    /// `path` with ` (n)` inserted before the extension of its last component
    /// (`a/IMG.JPG` → `a/IMG (1).JPG`); n = 0 returns `path`.
    public static func variant(_ path: String, _ n: Int) -> String {
        guard n > 0 else { return path }
        let slash = path.lastIndex(of: "/")
        let folder = slash.map { String(path[...$0]) } ?? ""
        let file = slash.map { String(path[path.index(after: $0)...]) } ?? path
        let (stem, ext) = split(file)
        return folder + stem + " (\(n))" + (ext.isEmpty ? "" : "." + ext)
    }

    /// True when `candidate` is `base` or one of its collision variants.
    public static func isVariant(_ candidate: String, of base: String) -> Bool {
        if candidate == base { return true }
        let (stem, ext) = split(base)
        let suffix = ext.isEmpty ? "" : "." + ext
        guard candidate.hasPrefix(stem + " ("), candidate.hasSuffix(")" + suffix) else { return false }
        let inner = candidate.dropFirst(stem.count + 2).dropLast(suffix.count + 1)
        return !inner.isEmpty && inner.allSatisfy(\.isASCII) && Int(inner).map { $0 > 0 } == true
    }

    /// The companion files an original at `path` may have: its XMP and JSON sidecars
    /// (`NAME.EXT.xmp`, `NAME.EXT.json`) and its thumbnail (`STEM.thumb.jpg`). The export
    /// reserves only those it writes (`--sidecar`, `--thumbnails`), so photos whose names differ
    /// keep them unless a written companion clashes (`storm.jpg` and `storm.heic` with
    /// `--thumbnails`: the later in uniqueName order becomes `storm (1).heic`).
    public static func companions(of path: String) -> (xmp: String, json: String, thumbnail: String) {
        let slash = path.lastIndex(of: "/")
        let folder = slash.map { String(path[...$0]) } ?? ""
        let file = slash.map { String(path[path.index(after: $0)...]) } ?? path
        return (path + ".xmp", path + ".json", folder + split(file).stem + ".thumb.jpg")
    }

    /// Where an original other than the primary goes (issue 24 item 2, issue 25 item 2): beside
    /// the primary at `primaryPath`, under the same stem, so that the pair stays a pair for every
    /// tool that pairs by name (darktable, digiKam, Lightroom, and `photos import` itself):
    /// `IMG_1234.JPG` with its RAW as `IMG_1234.CR2`, `IMG_1234.HEIC` with its Live Photo movie as
    /// `IMG_1234.MOV`. The extension is the RAW's container name (`photo.camera_format`, "dng"
    /// when unknown) or "mov" for a Live Photo's movie (Apple's Live Photo movies are QuickTime
    /// files), in capitals when the primary's extension has no lower-case letter, as cameras and
    /// phones name files. Should that be the primary's own name (ignoring case), the role is
    /// added: `IMG_1234-raw.DNG`.
    public static func extraOriginalPath(
        primaryPath: String, role: OriginalRole, cameraFormat: String?
    ) -> String {
        let slash = primaryPath.lastIndex(of: "/")
        let folder = slash.map { String(primaryPath[...$0]) } ?? ""
        let file = slash.map { String(primaryPath[primaryPath.index(after: $0)...]) } ?? primaryPath
        let (stem, primaryExt) = split(file)
        var ext: String
        switch role {
        case .raw:
            let name = cameraFormat?.lowercased() ?? ""
            ext = !name.isEmpty && name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) ? name : "dng"
        case .pairedVideo: ext = "mov"
        case .primary: ext = primaryExt
        }
        if !primaryExt.isEmpty && !primaryExt.contains(where: \.isLowercase) { ext = ext.uppercased() }
        let candidate = folder + stem + "." + ext
        guard candidate.lowercased() == primaryPath.lowercased() else { return candidate }
        return folder + stem + "-" + role.rawValue + "." + ext
    }

    /// The conversion characters strftime(3) defines (POSIX.1-2017 and the glibc additions
    /// %k %l %P %s), after the optional glibc flags `_ - 0 ^ #`, a width, and the `E`/`O`
    /// modifiers.
    static let conversions = Set("aAbBcCdDeFgGhHIjklmMnpPrRsStTuUVwWxXyYzZ%")

    /// Checks that every `%` conversion of `format` is one strftime(3) defines: an unknown one
    /// (`%Q`) is a usage error, never a folder named after it.
    /// - Throws: `ExportError.unknownConversion`.
    static func checkConversions(_ format: String, field: String) throws {
        var chars = format.makeIterator()
        while let c = chars.next() {
            guard c == "%" else { continue }
            var spec = "%"
            var next = chars.next()
            while let n = next, "_-0^#EO".contains(n) || n.isNumber {
                spec.append(n)
                next = chars.next()
            }
            guard let conversion = next, conversions.contains(conversion) else {
                throw ExportError.unknownConversion(spec + (next.map(String.init) ?? ""), field: field)
            }
        }
    }

    /// Formats the ISO 8601 date `iso` with strftime(3) (POSIX; C locale) in its own wall-clock
    /// time: a capture time `2024-12-31T23:30:00-05:00` gives `%Y` = 2024 and `%z` and `%Z` =
    /// -0500 (the zone's name is not known, only its offset), an import time (`…Z`) is UTC
    /// (+0000). A capture time whose offset is unknown gives empty `%z` and `%Z` — never a
    /// made-up +0000 or this machine's zone name (glibc strftime: nothing for %z when
    /// `tm_isdst` < 0; %Z is `tm_zone`). An unparsable date formats as `unknown-date`.
    public static func strftime(_ format: String, iso: String) -> String {
        guard let time = CaptureTime.fromISO(iso, source: ""), let fields = WallClock.parse(time.local) else {
            return "unknown-date"
        }
        var tm = fields.tm
        let zone: String
        if let offset = time.offsetMinutes {
            tm.tm_gmtoff = offset * 60
            tm.tm_isdst = 0
            zone = CaptureTime.offsetText(offset).replacingOccurrences(of: ":", with: "")
        } else {
            tm.tm_gmtoff = 0
            tm.tm_isdst = -1
            zone = ""
        }
        var buffer = [CChar](repeating: 0, count: 512)
        let n = zone.withCString { name -> Int in
            tm.tm_zone = name
            defer { tm.tm_zone = nil }
            return Foundation.strftime(&buffer, buffer.count, format, &tm)
        }
        guard n > 0 else { return "" }
        return String(decoding: buffer.prefix(n).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
