import Foundation
import PhotosImaging

/// Writes the XMP sidecar `photos export` puts next to each original (Adobe XMP Specification
/// Part 1 §7 serialization with the packet wrapper of §7.3; Part 2 for the EXIF and Photoshop
/// schemas; Metadata Working Group Guidelines 2.0 §5.4 for dates and §5.5 for keywords).
/// `XMPSidecar.parse` reads every property back:
/// - `photoshop:DateCreated` and `exif:DateTimeOriginal`: the capture time in ISO 8601 with its
///   offset when known (`2024-06-01T14:30:00.250+02:00`), without a zone when not (MWG §5.4:
///   both carry the same value; the zone is omitted when unknown rather than invented);
/// - `dc:subject` (an `rdf:Bag`): every tag without `/` as it is, and of each tag with `/` every
///   level, the ancestors and the leaf (`Places/France/Paris` gives `Places`, `France`, `Paris`),
///   as Lightroom writes it by default ("Include on Export: Parents"), so that readers of
///   `dc:subject` alone (PhotoPrism) keep `Places` and `France` (issue 32 item 1); a tag
///   that `lr:hierarchicalSubject` cannot carry unchanged (`A|B`, `A / B`, `A//B`: `isPath`)
///   whole, as a flat keyword;
/// - `lr:hierarchicalSubject` (an `rdf:Bag`, only when some tag has `/`): every tag but those,
///   with `|` between the levels (`Places|France|Paris`, `beach`), as Lightroom writes it (so that a flat
///   tag equal to a level, `Paris`, reads back as a tag of its own: `XMPSidecar+Identity.swift`);
/// - `xmp:Rating`: the displayed rating, the mean of the photo's ratings rounded half up
///   (SPEC §3; ratings 4 and 5 give 5, 2 and 3 give 3), 0 (unrated) when the photo has none;
/// - `photos:uniqueName` in the tool's own namespace `photosNamespace`: the photo's identity,
///   which a later import into an empty (or any) library restores when no photo has it yet.
/// - `photos:tags` (an `rdf:Bag`, only when a tag is an ancestor of another: `Places` beside
///   `Places/France`): every tag as it is, since the reader drops ancestor paths (Lightroom and
///   digiKam list them as projections) unless this list still agrees (`XMPSidecar.exactTags`).
/// - `exif:GPSLatitude`, `exif:GPSLongitude` (Part 2 §3.2.4.4 GPSCoordinate, `DD,MM.mmmmmmmmk`:
///   eight decimals of minutes keep the catalog's 1e-7 degrees), `exif:GPSAltitude` (a rational
///   in millimetres, `146000/1000`) and `exif:GPSAltitudeRef` (0 above, 1 below sea level), and
///   `exif:GPSVersionID` `2.3.0.0`, when the photo has a position (issue 26 item 1).
/// - `dc:title` and `dc:description` (Part 1 §8.4, Lang Alt: one `x-default` item), when the
///   photo has them (issue 26 item 6).
public enum XMPWriter {
    /// The namespace URI of the tool's own properties (`photos:uniqueName`). `.invalid` is a
    /// reserved top-level domain (RFC 2606 §2), so the URI can never name anyone else's schema;
    /// XMP only needs it to be a unique URI (Part 1 §6.2).
    public static let photosNamespace = "https://photos.invalid/ns/1.0/"

    /// The sidecar text for `photo`.
    /// - Parameter photo: its `tags`, `rating`, capture time (`captureDate`, which carries the
    ///   offset when known) and `uniqueName` are written; a photo without ratings gets no
    ///   `xmp:Rating`, one without tags no `dc:subject`, one without a capture time no date.
    /// - Returns: UTF-8 XML, ending with a newline.
    public static func sidecar(for photo: PhotoRecord) -> String {
        let date = photo.captureDate // ISO 8601 with the offset when known (PhotoRecord)
        let hierarchical = photo.tags.filter { $0.contains("/") && isPath($0) }
        var flat: [String] = []
        var seen = Set<String>()
        for tag in photo.tags {
            let keywords = tag.contains("/") && isPath(tag) ? XMPSidecar.levels(tag, separator: "/") : [tag]
            for keyword in keywords where seen.insert(keyword).inserted { flat.append(keyword) }
        }
        var attributes =
            "    xmlns:xmp=\"http://ns.adobe.com/xap/1.0/\"\n"
            + "    xmlns:dc=\"http://purl.org/dc/elements/1.1/\"\n"
            + (date == nil && photo.position == nil
                ? ""
                : "    xmlns:photoshop=\"http://ns.adobe.com/photoshop/1.0/\"\n"
                    + "    xmlns:exif=\"http://ns.adobe.com/exif/1.0/\"\n")
            + (hierarchical.isEmpty ? "" : "    xmlns:lr=\"\(XMPSidecar.lightroomNS)\"\n")
            + "    xmlns:photos=\"\(photosNamespace)\"\n"
        if let date {
            attributes += "    photoshop:DateCreated=\"\(escape(date))\"\n"
            attributes += "    exif:DateTimeOriginal=\"\(escape(date))\"\n"
        }
        if let position = photo.position {
            attributes += "    exif:GPSVersionID=\"2.3.0.0\"\n"
            attributes += "    exif:GPSLatitude=\"\(coordinate(position.latitude, positive: "N", negative: "S"))\"\n"
            attributes += "    exif:GPSLongitude=\"\(coordinate(position.longitude, positive: "E", negative: "W"))\"\n"
            if let millimetres = position.altitudeMM {
                attributes += "    exif:GPSAltitudeRef=\"\(millimetres < 0 ? 1 : 0)\"\n"
                attributes += "    exif:GPSAltitude=\"\(abs(millimetres))/1000\"\n"
            }
        }
        // 0 (unrated, Part 2 §8.4) when the photo has none, so that a rating embedded in the
        // original does not come back on re-import (the sidecar's xmp:Rating wins).
        attributes += "    xmp:Rating=\"\(photo.rating ?? 0)\"\n"
        attributes += "    photos:uniqueName=\"\(escape(photo.uniqueName))\""
        var text =
            "<?xpacket begin=\"\u{FEFF}\" id=\"W5M0MpCehiHzreSzNTczkc9d\"?>\n"
            + "<x:xmpmeta xmlns:x=\"adobe:ns:meta/\" x:xmptk=\"photos\">\n"
            + " <rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\">\n"
            + "  <rdf:Description rdf:about=\"\"\n" + attributes
        // dc:subject always, an empty Bag for a photo without tags: the sidecar states the
        // photo's whole tag list, and its import takes it instead of adding the original's
        // embedded keywords (`XMPSidecar.merged`), so a tag removed in the library stays removed.
        text += ">\n" + bag("dc:subject", flat)
        if let title = photo.title { text += alt("dc:title", title) }
        if let description = photo.description { text += alt("dc:description", description) }
        if !hierarchical.isEmpty {
            text += bag(
                "lr:hierarchicalSubject",
                photo.tags.filter(isPath).map { XMPSidecar.levels($0, separator: "/").joined(separator: "|") })
        }
        if photo.tags.contains(where: { tag in photo.tags.contains { $0.hasPrefix(tag + "/") } }) {
            text += bag("photos:tags", photo.tags)
        }
        text += "  </rdf:Description>\n"
        text += " </rdf:RDF>\n</x:xmpmeta>\n<?xpacket end=\"w\"?>\n"
        return text
    }

    /// A coordinate in the XMP GPSCoordinate form `DD,MM.mmmmmmmmk` (Part 2 §3.2.4.4), k the
    /// direction: `positive` for ≥ 0, `negative` below.
    static func coordinate(_ degrees: Double, positive: String, negative: String) -> String {
        let magnitude = abs(degrees)
        var whole = magnitude.rounded(.down)
        var minutes = ((magnitude - whole) * 60 * 1e8).rounded() / 1e8
        if minutes >= 60 {
            whole += 1
            minutes -= 60
        }
        return String(format: "%d,%.8f", Int(whole), minutes) + (degrees < 0 ? negative : positive)
    }

    /// True when `tag` reads back unchanged from `lr:hierarchicalSubject`: it has no `|` (the
    /// separator there) and its `/`-separated levels are neither empty nor padded with white
    /// space (the reader trims levels and drops empty ones, `XMPSidecar.levels`). Any other tag
    /// (`A|B`, `A / B`, `A//B`, `/A`) is written as it is in `dc:subject` only, where the reader
    /// takes it as one flat keyword, so the round trip keeps its name.
    static func isPath(_ tag: String) -> Bool {
        !tag.contains("|") && XMPSidecar.levels(tag, separator: "/").joined(separator: "/") == tag
    }

    /// `value` as the Lang Alt property `name` (Part 1 §8.2.2.4): an `rdf:Alt` of one
    /// `x-default` item.
    static func alt(_ name: String, _ value: String) -> String {
        "   <\(name)>\n    <rdf:Alt>\n     <rdf:li xml:lang=\"x-default\">\(escape(value))</rdf:li>\n"
            + "    </rdf:Alt>\n   </\(name)>\n"
    }

    /// `items` as the property `name`'s `rdf:Bag` (Part 1 §7.7), one `rdf:li` per line.
    static func bag(_ name: String, _ items: [String]) -> String {
        var text = "   <\(name)>\n    <rdf:Bag>\n"
        for item in items { text += "     <rdf:li>\(escape(item))</rdf:li>\n" }
        return text + "    </rdf:Bag>\n   </\(name)>\n"
    }

    /// `text` escaped for XML 1.0 character data and attribute values: `&`, `<`, `>`, `"`, `'`
    /// as entities, tab/newline/carriage return as character references (so attribute
    /// normalization keeps them), and characters XML 1.0 does not allow (§2.2 Char: the other
    /// C0 controls, U+FFFE, U+FFFF) replaced by U+FFFD.
    public static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for s in text.unicodeScalars {
            switch s {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            case "\t": out += "&#x9;"
            case "\n": out += "&#xA;"
            case "\r": out += "&#xD;"
            default:
                if s.value < 0x20 || s.value == 0xFFFE || s.value == 0xFFFF {
                    out += "\u{FFFD}"
                } else {
                    out.unicodeScalars.append(s)
                }
            }
        }
        return out
    }
}
