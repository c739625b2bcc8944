import Foundation

/// Writes the XMP sidecar `photos export` puts next to each original: the tags as a `dc:subject`
/// `rdf:Bag`, the displayed rating as `xmp:Rating`, the capture time as `photoshop:DateCreated`,
/// and the uniqueName as `photos:uniqueName` in
/// the tool's own namespace (Adobe XMP Specification Part 1 §7 (serialization), §8.4 Dublin Core,
/// §8.5 XMP basic; the packet wrapper of Part 1 §7.3). `XMPSidecar.parse` reads it back.
public enum XMPWriter {
    /// The namespace of the tool's own properties.
    public static let photosNamespace = "https://photos.invalid/ns/1.0/"

    /// The sidecar text for `photo`.
    /// - Parameter photo: its `tags`, `rating` (the mean rounded half up, SPEC §3) and
    ///   `uniqueName` are written; a photo without ratings gets no `xmp:Rating`, one without
    ///   tags no `dc:subject`. The capture time is written as `photoshop:DateCreated` (IPTC
    ///   Photo Metadata "Date Created"; with the offset when known, no zone when not).
    /// - Returns: UTF-8 XML, ending with a newline.
    public static func sidecar(for photo: PhotoRecord) -> String {
        var attributes =
            "    xmlns:xmp=\"http://ns.adobe.com/xap/1.0/\"\n"
            + "    xmlns:dc=\"http://purl.org/dc/elements/1.1/\"\n"
            + (photo.captureDate == nil ? "" : "    xmlns:photoshop=\"http://ns.adobe.com/photoshop/1.0/\"\n")
            + "    xmlns:photos=\"\(photosNamespace)\"\n"
        if let date = photo.captureDate { attributes += "    photoshop:DateCreated=\"\(escape(date))\"\n" }
        if let rating = photo.rating { attributes += "    xmp:Rating=\"\(rating)\"\n" }
        attributes += "    photos:uniqueName=\"\(escape(photo.uniqueName))\""
        var text =
            "<?xpacket begin=\"\u{FEFF}\" id=\"W5M0MpCehiHzreSzNTczkc9d\"?>\n"
            + "<x:xmpmeta xmlns:x=\"adobe:ns:meta/\" x:xmptk=\"photos\">\n"
            + " <rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\">\n"
            + "  <rdf:Description rdf:about=\"\"\n" + attributes
        if photo.tags.isEmpty {
            text += "/>\n"
        } else {
            text += ">\n   <dc:subject>\n    <rdf:Bag>\n"
            for tag in photo.tags { text += "     <rdf:li>\(escape(tag))</rdf:li>\n" }
            text += "    </rdf:Bag>\n   </dc:subject>\n  </rdf:Description>\n"
        }
        text += " </rdf:RDF>\n</x:xmpmeta>\n<?xpacket end=\"w\"?>\n"
        return text
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
