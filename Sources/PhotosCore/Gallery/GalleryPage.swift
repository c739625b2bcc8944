import Foundation
import PhotosImaging

/// One HTML page of a gallery: a header with the title and count, page navigation, the photos
/// of the page under their date headings, and the lightbox dialog `gallery.js` fills.
///
/// Every string from the library (names, tags, dates, the title) goes through `GalleryPage.text`
/// (HTML escaping of `& < > " '`, inside `<bdi>` so that right-to-left text does not reorder its
/// neighbours); every URL is built from a uniqueName (`Gallery.safeName`) and percent-encoded.
/// A name such as `<script>alert(1)</script>` is therefore shown as text, and no element of a
/// page comes from the data.
struct GalleryPage {
    var title: String
    var grouping: GalleryGrouping
    /// Photos in the whole gallery.
    var total: Int
    var pageCount: Int
    /// Whether `r/` holds renditions (`--size` > 0).
    var renditions: Bool
    var originals: GalleryOriginals
    /// Long edge of the renditions, pixels.
    var size = 2048

    /// `index.html` for the first page (0), `page-N.html` (N from 2) for the others.
    static func fileName(_ page: Int) -> String { page == 0 ? "index.html" : "page-\(page + 1).html" }

    /// `s` escaped for HTML text and attribute values (both quotes included).
    static func escaped(_ s: String) -> String {
        // Most strings need nothing: no byte to escape, no control character (0x00-0x1F but tab and
        // newline, DEL; C1 controls are U+0080-U+009F, whose UTF-8 starts with 0xC2).
        if !s.utf8.contains(where: { b in
            b == 0x26 || b == 0x3C || b == 0x3E || b == 0x22 || b == 0x27 || (b < 0x20 && b != 0x09 && b != 0x0A)
                || b == 0x7F || b == 0xC2
        }) {
            return s
        }
        var out = ""
        out.reserveCapacity(s.utf8.count)
        for c in s.unicodeScalars {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default:
                // Control characters (C0 but tab and newline, DEL, C1) are not text: a U+FFFD shows them.
                if (c.value < 0x20 && c != "\t" && c != "\n") || (0x7F...0x9F).contains(c.value) {
                    out += "\u{FFFD}"
                } else {
                    out.unicodeScalars.append(c)
                }
            }
        }
        return out
    }

    /// Library text as page text: escaped, isolated for bidirectional text.
    static func text(_ s: String) -> String { "<bdi>" + escaped(s) + "</bdi>" }

    /// A relative URL of a file in DEST, percent-encoded (RFC 3986 unreserved characters and '/' kept).
    static func url(_ path: String) -> String {
        // The paths of uniqueNames need no encoding (ASCII letters, digits, '-', '.', '_', '/').
        func plain(_ b: UInt8) -> Bool {
            (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == 0x2D || b == 0x2E
                || b == 0x5F || b == 0x7E || b == 0x2F
        }
        if path.utf8.allSatisfy(plain) { return path }
        var out = ""
        for b in path.utf8 {
            if plain(b) {
                out.unicodeScalars.append(Unicode.Scalar(b))
            } else {
                out += "%" + String(b >> 4, radix: 16, uppercase: true) + String(b & 15, radix: 16, uppercase: true)
            }
        }
        return out
    }

    /// The heading a photo goes under: its capture date's day, month or year (own local time),
    /// or "No capture date".
    func group(of item: Gallery.Item) -> String {
        guard let date = item.captureDate else { return "No capture date" }
        switch grouping {
        case .day: return String(date.prefix(10))
        case .month: return String(date.prefix(7))
        case .year: return String(date.prefix(4))
        case .none: return ""
        }
    }

    /// The size of a photo's rendition (`Thumbnailer.thumbnailSize` of its upright size).
    func renditionSize(_ item: Gallery.Item) -> (width: Int, height: Int) {
        Thumbnailer.thumbnailSize(width: item.width, height: item.height, maxEdge: size)
    }

    /// The page `page` (0-based) holding `items`.
    func render(page: Int, items: [Gallery.Item]) -> String {
        var html = """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta name="referrer" content="no-referrer">
            <title>\(GalleryPage.escaped(title))\(pageCount > 1 ? " – page \(page + 1) of \(pageCount)" : "")</title>
            <link rel="icon" href="data:,">
            <link rel="stylesheet" href="gallery.css">
            </head>
            <body>
            <header>
            <h1>\(GalleryPage.text(title))</h1>
            <p class="count">\(total) photo\(total == 1 ? "" : "s")\(pageCount > 1 ? " · page \(page + 1) of \(pageCount)" : "")</p>
            </header>

            """
        html += navigation(page: page)
        html += "<main>\n"
        var open = false
        var heading: String?
        for item in items {
            let g = group(of: item)
            if heading != g || !open {
                if open { html += "</ul>\n</section>\n" }
                html += "<section class=\"group\">\n"
                if !g.isEmpty {
                    html +=
                        "<h2>\(item.captureDate == nil ? GalleryPage.escaped(g) : "<time datetime=\"\(GalleryPage.escaped(g))\">\(GalleryPage.escaped(g))</time>")</h2>\n"
                }
                html += "<ul class=\"grid\">\n"
                open = true
                heading = g
            }
            html += cell(item)
        }
        if open { html += "</ul>\n</section>\n" }
        if items.isEmpty { html += "<p>No photos.</p>\n" }
        html += "</main>\n"
        html += navigation(page: page)
        html += """
            <dialog id="lb" class="lb" aria-label="Photo">
            <div class="lb-bar">
            <button type="button" class="lb-prev" aria-label="Previous photo">&larr;</button>
            <button type="button" class="lb-next" aria-label="Next photo">&rarr;</button>
            <span class="lb-pos"></span>
            <a class="lb-orig" hidden>Original</a>
            <button type="button" class="lb-close" aria-label="Close">&times;</button>
            </div>
            <div class="lb-img"><img alt=""></div>
            <div class="lb-cap"></div>
            </dialog>
            <script src="gallery.js"></script>
            </body>
            </html>

            """
        return html
    }

    /// The page links: previous, the first, the last and up to three pages each side of this
    /// one (gaps shown as '…'), next; empty for a gallery of one page.
    func navigation(page: Int) -> String {
        guard pageCount > 1 else { return "" }
        var html = "<nav class=\"pages\" aria-label=\"Pages\"><ul>\n"
        if page > 0 { html += "<li><a href=\"\(GalleryPage.fileName(page - 1))\" rel=\"prev\">Previous</a></li>\n" }
        var last = -1
        for p in 0..<pageCount where p == 0 || p == pageCount - 1 || abs(p - page) <= 3 {
            if p > last + 1 { html += "<li>…</li>\n" }
            if p == page {
                html += "<li><a href=\"\(GalleryPage.fileName(p))\" aria-current=\"page\">\(p + 1)</a></li>\n"
            } else {
                html += "<li><a href=\"\(GalleryPage.fileName(p))\">\(p + 1)</a></li>\n"
            }
            last = p
        }
        if page < pageCount - 1 {
            html += "<li><a href=\"\(GalleryPage.fileName(page + 1))\" rel=\"next\">Next</a></li>\n"
        }
        return html + "</ul></nav>\n"
    }

    /// Formats a browser shows without help (an original of another one always has a rendition
    /// when renditions are made at all).
    static func browserShows(_ format: ImageFormat) -> Bool { format != .heif }

    /// One photo's cell: its thumbnail as a link to the rendition (or, without renditions, the
    /// original a browser can show, else the thumbnail), and its caption.
    func cell(_ item: Gallery.Item) -> String {
        let u = item.uniqueName
        let thumb = "t/\(u).jpg"
        let original = originals == .none ? nil : "o/\(u).\(Gallery.fileExtension(item.format))"
        let target: String
        let w: Int, h: Int
        if renditions {
            target = "r/\(u).jpg"
            (w, h) = renditionSize(item)
        } else if let original, GalleryPage.browserShows(item.format) {
            target = original
            (w, h) = (item.width, item.height)
        } else {
            target = thumb
            (w, h) = (item.thumbnailWidth, item.thumbnailHeight)
        }
        let when = item.captureDate.map { String($0.prefix(16)).replacingOccurrences(of: "T", with: " ") }
        var alt = item.displayName
        if let when { alt += ", " + when }
        var html = "<li><a class=\"ph\" href=\"\(GalleryPage.url(target))\" data-photo=\"\(GalleryPage.escaped(u))\""
        html += " data-w=\"\(w)\" data-h=\"\(h)\""
        if let original { html += " data-orig=\"\(GalleryPage.url(original))\"" }
        html +=
            "><img src=\"\(GalleryPage.url(thumb))\" width=\"\(item.thumbnailWidth)\" height=\"\(item.thumbnailHeight)\""
        html += " alt=\"\(GalleryPage.escaped(alt))\"></a>\n"
        html += "<div class=\"cap\"><span class=\"n\">\(GalleryPage.text(item.displayName))</span>"
        if let when, let date = item.captureDate {
            html +=
                "<time datetime=\"\(GalleryPage.escaped(String(date.prefix(19))))\">\(GalleryPage.escaped(when))</time>"
        }
        if let rating = item.rating {
            let stars = String(repeating: "★", count: rating) + String(repeating: "☆", count: max(0, 5 - rating))
            html += " <span class=\"rating\" role=\"img\" aria-label=\"rating \(rating) of 5\">\(stars)</span>"
        }
        if !item.tags.isEmpty {
            html += "<ul aria-label=\"tags\">"
            for tag in item.tags { html += "<li>\(GalleryPage.text(tag))</li>" }
            html += "</ul>"
        }
        return html + "</div></li>\n"
    }
}
