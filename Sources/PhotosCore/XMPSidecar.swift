import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// What `photos` reads from an XMP sidecar: the keywords of `dc:subject` and `xmp:Rating`
/// (Adobe XMP Specification Part 1 §8.4 (Dublin Core) and §8.5 (XMP basic); the form digiKam,
/// darktable and Lightroom write).
public struct XMPSidecar: Equatable {
    /// `dc:subject` bag items, in document order, trimmed, empty ones dropped.
    public var subjects: [String] = []
    /// `xmp:Rating` when it is 1…5 (0 means unrated and -1 rejected: neither is a rating).
    public var rating: Int?

    public init(subjects: [String] = [], rating: Int? = nil) {
        self.subjects = subjects
        self.rating = rating
    }

    /// The sidecar paths tried for an image, in order: `IMG.jpg.xmp`, `IMG.xmp` (and the
    /// upper-case `.XMP` forms).
    public static func candidatePaths(for imagePath: String) -> [String] {
        let stem = (imagePath as NSString).deletingPathExtension
        return [imagePath + ".xmp", imagePath + ".XMP", stem + ".xmp", stem + ".XMP"]
    }

    /// Reads the first sidecar that exists for `imagePath`: an XMP one (`candidatePaths`), else
    /// the JSON one `photos export --sidecar json` writes (`IMG.jpg.json`, the SPEC §5a photo
    /// object, read by `parseJSON`).
    /// - Returns: nil when there is none.
    /// - Throws: `PhotosError` 65 when the sidecar exists but is not well-formed XML (or JSON).
    public static func load(for imagePath: String) throws -> XMPSidecar? {
        for candidate in candidatePaths(for: imagePath) where candidate != imagePath {
            guard let data = FileManager.default.contents(atPath: candidate) else { continue }
            return try parse(data, path: candidate)
        }
        let json = imagePath + ".json"
        if let data = FileManager.default.contents(atPath: json) {
            return try parseJSON(data, path: json)
        }
        return nil
    }

    /// True when `path` is a sidecar rather than a file to import: an `.xmp` file, or a `.json`
    /// file beside the image it describes (`IMG.jpg.json` next to `IMG.jpg`).
    public static func isSidecar(_ path: String) -> Bool {
        let ext = (path as NSString).pathExtension.lowercased()
        if ext == "xmp" { return true }
        guard ext == "json" else { return false }
        var st = stat()
        return stat((path as NSString).deletingPathExtension, &st) == 0 && (st.st_mode & S_IFMT) == S_IFREG
    }

    /// Reads a JSON sidecar: the SPEC §5a photo object's `tags` (strings) become subjects and
    /// its `rating` (1…5; the displayed, rounded rating) the rating. Other keys are ignored, so
    /// a JSON file of another shape (e.g. another tool's) gives an empty sidecar.
    /// - Throws: `PhotosError` 65 naming `path` when the text is not a JSON object.
    public static func parseJSON(_ data: Data, path: String) throws -> XMPSidecar {
        let object: JSONSidecarObject
        do {
            object = try JSONDecoder().decode(JSONSidecarObject.self, from: data)
        } catch {
            throw PhotosError.dataError("\(path): not a readable JSON sidecar (expected a JSON object)")
        }
        var result = XMPSidecar()
        result.subjects = object.tags.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.filter { !$0.isEmpty }
        if let rating = object.rating, rating.isFinite, (1...5).contains(Int(rating.rounded())) {
            result.rating = Int(rating.rounded())
        }
        return result
    }

    /// Parses XMP packet bytes.
    /// - Throws: `PhotosError` 65 naming `path` when the XML is malformed.
    public static func parse(_ data: Data, path: String) throws -> XMPSidecar {
        let delegate = Delegate()
        let parser = XMLParser(data: data)
        parser.shouldProcessNamespaces = true
        parser.delegate = delegate
        // An unterminated document can end without a parse error; an open element means it was cut short.
        guard parser.parse(), delegate.depth == 0, delegate.sawElement else {
            let reason = parser.parserError.map { "\($0.localizedDescription)" } ?? "malformed or truncated XML"
            throw PhotosError.dataError("\(path): not a readable XMP sidecar: \(reason)")
        }
        var result = XMPSidecar()
        result.subjects = delegate.subjects
        if let text = delegate.rating, let value = Double(text.trimmingCharacters(in: .whitespaces)) {
            let rounded = Int(value.rounded())
            if (1...5).contains(rounded) { result.rating = rounded }
        }
        return result
    }

    /// The keys of a JSON sidecar that matter; a key of another type is ignored, not an error.
    private struct JSONSidecarObject: Decodable {
        var tags: [String] = []
        var rating: Double?
        enum CodingKeys: String, CodingKey { case tags, rating }
        init(from decoder: Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            tags = ((try? container.decodeIfPresent([String].self, forKey: .tags)) ?? nil) ?? []
            rating = (try? container.decodeIfPresent(Double.self, forKey: .rating)) ?? nil
        }
    }

    private static let dcNS = "http://purl.org/dc/elements/1.1/"
    private static let xmpNS = "http://ns.adobe.com/xap/1.0/"
    private static let rdfNS = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"

    private final class Delegate: NSObject, XMLParserDelegate {
        var subjects: [String] = []
        var rating: String?
        var depth = 0
        var sawElement = false
        private var inSubject = 0
        private var inItem = false
        private var inRatingElement = false
        private var text = ""

        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?,
                    qualifiedName: String?, attributes: [String: String] = [:]) {
            depth += 1
            sawElement = true
            if namespaceURI == XMPSidecar.rdfNS && name == "Description" {
                // xmp:Rating as an attribute of rdf:Description; the attribute name carries the prefix.
                for (key, value) in attributes where key == "xmp:Rating" || key.hasSuffix(":Rating") && key.hasPrefix("xmp") {
                    rating = value
                }
            }
            if namespaceURI == XMPSidecar.dcNS && name == "subject" { inSubject += 1 }
            if inSubject > 0 && namespaceURI == XMPSidecar.rdfNS && name == "li" { inItem = true; text = "" }
            if namespaceURI == XMPSidecar.xmpNS && name == "Rating" { inRatingElement = true; text = "" }
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            if inItem || inRatingElement { text += string }
        }

        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            depth -= 1
            if inItem && namespaceURI == XMPSidecar.rdfNS && name == "li" {
                let item = text.trimmingCharacters(in: .whitespacesAndNewlines)
                if !item.isEmpty { subjects.append(item) }
                inItem = false
            }
            if namespaceURI == XMPSidecar.dcNS && name == "subject" { inSubject -= 1 }
            if inRatingElement && namespaceURI == XMPSidecar.xmpNS && name == "Rating" {
                rating = text
                inRatingElement = false
            }
        }
    }
}
