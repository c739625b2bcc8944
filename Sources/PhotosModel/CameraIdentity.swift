/// The camera that made a photo, and the lens it was made with (issue 24 item 1): EXIF Make
/// (tag 0x010F), Model (0x0110) and LensModel (0xA434) of the file (CIPA DC-008-2019 §4.6.4 A
/// and §4.6.5 G), else XMP `tiff:Make`, `tiff:Model`, `exifEX:LensModel` or `aux:Lens`, else,
/// for a camera RAW, LibRaw's names. The catalog's `photo.camera_make`, `camera_model` and
/// `lens_model` (schema 18), NULL where a part is unknown.
///
/// Every part is text as a camera wrote it ("NIKON CORPORATION", "NIKON D70"), cleaned by
/// `clean(_:)`: NULs and padding spaces trimmed (EXIF ASCII is NUL-terminated and Canon pads
/// its Model with spaces), at most `maxBytes` bytes of UTF-8. At least one part is known.
public struct CameraIdentity: Sendable, Hashable {
    /// The maker as the camera names itself ("Canon", "NIKON CORPORATION"); nil when unknown.
    public var make: String?
    /// The model ("Canon EOS 350D DIGITAL", "NIKON D70"); nil when unknown.
    public var model: String?
    /// The lens ("EF-S18-55mm f/3.5-5.6"); nil when unknown.
    public var lens: String?

    /// The longest part kept, in bytes of UTF-8 (128): EXIF gives no bound, but every Make,
    /// Model and LensModel of the corpus and of exiftool's sample images is under 64; a longer
    /// part is cut at a character boundary so a hostile file cannot fill the catalog.
    public static let maxBytes = 128

    /// A camera identity of the parts given, each cleaned (`clean(_:)`).
    /// - Returns: nil when no part is left (nothing known).
    public init?(make: String?, model: String?, lens: String?) {
        let (m, d, l) = (Self.clean(make), Self.clean(model), Self.clean(lens))
        guard m != nil || d != nil || l != nil else { return nil }
        (self.make, self.model, self.lens) = (m, d, l)
    }

    /// A part as stored: leading and trailing spaces, NULs and other C0 controls removed, at
    /// most `maxBytes` bytes of UTF-8 (cut at a character boundary, then trimmed again).
    /// - Returns: nil when nothing is left.
    public static func clean(_ text: String?) -> String? {
        guard let text else { return nil }
        // A NUL ends EXIF ASCII (CIPA DC-008 §4.6.2 "ASCII"): what follows it is padding.
        let head = text.prefix { $0 != "\0" }
        let kept = head.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }
        var s = String(String.UnicodeScalarView(kept))
        if s.utf8.count > maxBytes {
            var cut = ""
            for c in s {
                if cut.utf8.count + c.utf8.count > maxBytes { break }
                cut.append(c)
            }
            s = cut
        }
        let trimmed = s.drop { $0 == " " }.reversed().drop { $0 == " " }.reversed()
        let result = String(trimmed)
        return result.isEmpty ? nil : result
    }

    /// True when `text` is a part as `clean(_:)` leaves it (non-empty, no controls, no padding,
    /// at most `maxBytes` bytes): what a changeset or another library may give.
    public static func isClean(_ text: String) -> Bool { clean(text) == text }

    /// The camera as one line: the make and model — the model alone when it already begins with
    /// the make ("Canon EOS 350D DIGITAL", not "Canon Canon EOS 350D DIGITAL"; digiKam shows it
    /// so too) — then ", " and the lens when known: `NIKON CORPORATION NIKON D70, 18-70mm`.
    public var text: String {
        var body: String
        switch (make, model) {
        case let (m?, d?): body = d.lowercased().hasPrefix(m.lowercased()) ? d : "\(m) \(d)"
        case let (m?, nil): body = m
        case let (nil, d?): body = d
        case (nil, nil): body = ""
        }
        if let lens { body = body.isEmpty ? lens : "\(body), \(lens)" }
        return body
    }

    /// True when the camera's maker is known: a JPEG with a make is a camera's JPEG (the
    /// duplicates keeper's "RAW over camera JPEG" rule, issue 27 item 2).
    public var hasMake: Bool { make != nil }

    /// `text` with its ASCII letters A–Z in lower case and every other character kept: the
    /// folding SQLite's lower() does and PostgreSQL's does under `COLLATE "C"`, so `--camera`
    /// selects the same rows on both backends.
    public static func asciiLowercased(_ text: String) -> String {
        String(
            decoding: text.utf8.map { (0x41...0x5A).contains($0) ? $0 + 0x20 : $0 }, as: UTF8.self)
    }

    /// Each part from the first identity that has it (a sidecar's make with the file's lens).
    /// - Returns: nil when none of them knows any part.
    public static func merged(_ identities: CameraIdentity?...) -> CameraIdentity? {
        CameraIdentity(
            make: identities.lazy.compactMap { $0?.make }.first,
            model: identities.lazy.compactMap { $0?.model }.first,
            lens: identities.lazy.compactMap { $0?.lens }.first)
    }

    /// True when `name` can be a RAW container name as `photo.camera_format` holds it: 2 to 8
    /// lower-case ASCII letters and digits ("nef", "cr3", "3fr"), the names `pc_raw_sniff` gives.
    public static func isRawFormatName(_ name: String) -> Bool {
        (2...8).contains(name.utf8.count)
            && name.utf8.allSatisfy { (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) }
    }
}
