import Foundation

/// A photo's title and description (issue 26 item 6) as the catalog stores them
/// (`photo.title`, `photo.description`, schema 20): NFC, no leading or trailing white space or
/// NUL padding (EXIF ASCII values are NUL- and space-padded), no control characters but a
/// description's line breaks and tabs, at most `maxTitleBytes`/`maxDescriptionBytes` bytes of
/// UTF-8, never empty (no text is nil).
public enum PhotoText {
    /// The longest title, in UTF-8 bytes (the schema's CHECK).
    public static let maxTitleBytes = 2000
    /// The longest description, in UTF-8 bytes (the schema's CHECK).
    public static let maxDescriptionBytes = 65536

    /// EXIF ImageDescription values cameras write by themselves, compared after trimming and
    /// ignoring case: not a description. From the values PhotoPrism and digiKam drop
    /// (PhotoPrism `internal/meta/sanitize.go`), and what the corpus's cameras write.
    public static let cameraBoilerplate: Set<String> = [
        "olympus digital camera", "sony dsc", "samsung", "samsung camera pictures", "digital camera",
        "kodak digital still camera", "minolta dsc", "minolta digital camera", "konica minolta digital camera",
        "leica digital camera", "pentax digital camera", "digital image", "exif_jpeg_picture", "default",
        "camera", "dcim", "easyshare", "<untitled>", "untitled", "image", "jpeg", "picture", "photo",
        "created with gimp", "lg", "nikon", "canon", "fujifilm", "pentax", "casio", "sanyo", "ricoh",
        "huawei", "htc", "motorola"
    ]

    /// `text` as stored: NUL and white space trimmed, NFC, control characters (but line breaks
    /// and tabs when `multiline`) replaced by spaces, cut at a character boundary to `maxBytes`
    /// bytes; nil when nothing is left.
    public static func clean(_ text: String?, maxBytes: Int, multiline: Bool) -> String? {
        guard let text else { return nil }
        var scalars = String.UnicodeScalarView()
        for s in text.precomposedStringWithCanonicalMapping.unicodeScalars {
            if s == "\0" { continue }
            if multiline && (s == "\n" || s == "\t") {
                scalars.append(s)
            } else if multiline && s == "\r" {
                continue
            } else if s.properties.generalCategory == .control || s == "\u{2028}" || s == "\u{2029}" {
                scalars.append(" ")
            } else {
                scalars.append(s)
            }
        }
        var result = String(scalars).trimmingCharacters(in: .whitespacesAndNewlines)
        if result.utf8.count > maxBytes {
            var cut = ""
            for character in result {
                if cut.utf8.count + character.utf8.count > maxBytes { break }
                cut.append(character)
            }
            result = cut.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        return result.isEmpty ? nil : result
    }

    /// A title as stored (`clean`, one line).
    public static func title(_ text: String?) -> String? { clean(text, maxBytes: maxTitleBytes, multiline: false) }

    /// A description as stored (`clean`, line breaks kept).
    public static func description(_ text: String?) -> String? {
        clean(text, maxBytes: maxDescriptionBytes, multiline: true)
    }

    /// An EXIF ImageDescription (0x010E) as a description: nil for camera boilerplate
    /// (`cameraBoilerplate`) and for what is blank once cleaned.
    public static func exifDescription(_ text: String?) -> String? {
        guard let d = description(text) else { return nil }
        return cameraBoilerplate.contains(d.lowercased()) ? nil : d
    }

    /// True when `text` is a title as stored (the changeset reader's and merge's rule).
    public static func isTitle(_ text: String) -> Bool { title(text) == text }

    /// True when `text` is a description as stored.
    public static func isDescription(_ text: String) -> Bool { description(text) == text }

    /// The longest place name set by hand, bytes of UTF-8 (`photo.place_name` CHECK).
    public static let maxPlaceNameBytes = 200

    /// A place name as `photos place set` stores it (issue 26 item 3): one line, cleaned as a
    /// title is, at most `maxPlaceNameBytes`; nil when nothing is left.
    public static func placeName(_ text: String?) -> String? {
        clean(text, maxBytes: maxPlaceNameBytes, multiline: false)
    }

    /// True when `text` is stored as it is (`placeName(text) == text`).
    public static func isPlaceName(_ text: String) -> Bool { placeName(text) == text }
}
