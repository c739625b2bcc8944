/// Motion Photos (issue 25 item 3): a JPEG still with an MP4 appended after it, located by the still's XMP.
public enum MotionPhoto {
    /// The byte range of the video embedded in a Motion Photo, nil when the file is not one.
    ///
    /// Rules: Google's Motion Photo format 1.0 (XMP `Container:Directory` with an item whose
    /// `Item:Semantic` is `MotionPhoto` and whose `Item:Length` is the video's size, the video being the
    /// file's last bytes), the older `GCamera:MicroVideoOffset` (bytes from the end of the file), and
    /// Samsung's trailer (`MotionPhoto_Data` followed by the MP4). The range is taken only when its bytes
    /// are a video by content (`VideoPoster.isVideo`), so a wrong length never yields one.
    /// - Parameter bytes: the whole JPEG file.
    /// - Returns: the embedded video's range within `bytes`.
    public static func embeddedVideo(in bytes: [UInt8]) -> Range<Int>? {
        guard bytes.count > 16, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return nil }
        let xmp = xmpPacket(bytes)
        var lengths: [Int] = []
        if let xmp {
            if let value = attribute("MicroVideoOffset", in: xmp) { lengths.append(value) }
            // Every item's length is tried: only the MotionPhoto item's lands on a video (checked below).
            lengths += attributes("Item:Length", in: xmp)
        }
        for length in lengths where length > 16 && length < bytes.count {
            let range = (bytes.count - length)..<bytes.count
            if isVideo(bytes, range) { return range }
        }
        // Samsung: the marker text, then the MP4 to the end of the file.
        let marker = Array("MotionPhoto_Data".utf8)
        if let at = find(marker, in: bytes, from: 2) {
            let range = (at + marker.count)..<bytes.count
            if isVideo(bytes, range) { return range }
        }
        return nil
    }

    static func isVideo(_ bytes: [UInt8], _ range: Range<Int>) -> Bool {
        guard range.count >= 16 else { return false }
        return bytes[range].withUnsafeBytes { VideoPoster.isVideo($0) }
    }

    static func find(_ needle: [UInt8], in bytes: [UInt8], from: Int) -> Int? {
        guard let first = needle.first, bytes.count >= needle.count else { return nil }
        var at = from
        while at + needle.count <= bytes.count {
            if bytes[at] == first, Array(bytes[at..<(at + needle.count)]) == needle { return at }
            at += 1
        }
        return nil
    }

    /// The XMP packet of a JPEG's first APP1 segment whose identifier is `http://ns.adobe.com/xap/1.0/`
    /// (XMP Specification Part 3 §1.1.3), read segment by segment up to the first SOS.
    static func xmpPacket(_ bytes: [UInt8]) -> String? {
        let identifier = Array("http://ns.adobe.com/xap/1.0/".utf8) + [0]
        var at = 2
        while at + 4 <= bytes.count, bytes[at] == 0xFF {
            let marker = bytes[at + 1]
            if marker == 0xDA || marker == 0xD9 { return nil }
            let length = Int(bytes[at + 2]) << 8 | Int(bytes[at + 3])
            guard length >= 2, at + 2 + length <= bytes.count else { return nil }
            let body = (at + 4)..<(at + 2 + length)
            if marker == 0xE1, body.count > identifier.count,
                Array(bytes[body.lowerBound..<(body.lowerBound + identifier.count)]) == identifier
            {
                return String(decoding: bytes[(body.lowerBound + identifier.count)..<body.upperBound], as: UTF8.self)
            }
            at += 2 + length
        }
        return nil
    }

    /// The integer value of the first `name="N"` attribute (or `<name>N</name>` element) in `xmp`.
    static func attribute(_ name: String, in xmp: String) -> Int? { attributes(name, in: xmp).first }

    /// The integer values of every `name="N"` attribute and `<name>N</name>` element in `xmp`, in order.
    static func attributes(_ name: String, in xmp: String) -> [Int] {
        let text = Array(xmp.utf8)
        var values: [Int] = []
        for (open, close) in [
            (Array("\(name)=\"".utf8), UInt8(ascii: "\"")), (Array("\(name)>".utf8), UInt8(ascii: "<"))
        ] {
            var at = 0
            while let start = find(open, in: text, from: at) {
                let from = start + open.count
                guard let end = text[from...].firstIndex(of: close) else { break }
                if let value = Int(String(decoding: text[from..<end], as: UTF8.self)) { values.append(value) }
                at = end
            }
        }
        return values
    }
}
