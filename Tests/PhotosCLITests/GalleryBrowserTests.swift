import Foundation
import PhotosImaging
import PhotosTestSupport
import XCTest

/// `photos gallery` (issue 28) checked in a real browser: headless Chromium driven over the
/// DevTools protocol (`--remote-debugging-pipe`, by the standard-library Python client
/// Tests/Browser/cdp_probe.py), the gallery opened as file:// and served by
/// `python3 -m http.server`. The values asserted are the browser's own: image natural sizes,
/// the dialog's `open`, the focused element, scroll widths, computed colours, every request.
/// Skipped, saying so, when Chromium (Debian's `chromium`) or python3 is not installed.
final class GalleryBrowserTests: TemporaryFolderTestCase {
    override var label: String { "photos-gallery" }
    var lib: String { dir + "/lib" }

    @discardableResult
    func run(_ args: [String], status: Int32 = 0, file: StaticString = #filePath, line: UInt = #line) -> RunResult {
        let result = photos(["--library", lib] + args)
        XCTAssertEqual(result.status, status, "\(args): \(result.stderr)", file: file, line: line)
        return result
    }

    /// Every photo as `list --json` gives it.
    func listed() throws -> [[String: Any]] {
        try run(["list", "--json"]).stdout.split(separator: "\n").map {
            try XCTUnwrap(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }

    func summary(_ result: RunResult) throws -> [String: Any] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], result.stdout)
    }

    // MARK: the browser

    /// An executable on PATH (or at an absolute path), else nil.
    static func executable(_ names: [String]) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for name in names {
            if name.hasPrefix("/") { if FileManager.default.isExecutableFile(atPath: name) { return name } }
            for folder in path.split(separator: ":")
            where FileManager.default.isExecutableFile(atPath: "\(folder)/\(name)") {
                return "\(folder)/\(name)"
            }
        }
        return nil
    }

    /// Chromium and python3, or a skip naming what is missing.
    func browser() throws -> (chromium: String, python: String) {
        let env = ProcessInfo.processInfo.environment
        guard
            let chromium = Self.executable(
                [env["PHOTOS_TEST_CHROMIUM"], "chromium", "chromium-browser"].compactMap { $0 })
        else {
            throw XCTSkip(
                "Chromium is not installed (Debian package chromium, which .ci/run installs): the gallery's browser tests are skipped"
            )
        }
        guard let python = Self.executable(["python3"]) else {
            throw XCTSkip(
                "python3 is not installed: the gallery's browser tests (driven by Tests/Browser/cdp_probe.py) are skipped"
            )
        }
        return (chromium, python)
    }

    /// What one browser session saw.
    struct Probe {
        var results: [Any]
        var errors: [String]
        var failed: [String]
        var requests: [String]
    }

    /// Runs `steps` (cdp_probe.py's steps) in a fresh headless Chromium with a `width`×`height`
    /// viewport; with `serve`, URLs are relative to `python3 -m http.server` serving that folder.
    func probe(width: Int, height: Int = 900, serve: String? = nil, _ steps: [[String: Any]]) throws -> Probe {
        let (chromium, python) = try browser()
        var config: [String: Any] = ["chromium": chromium, "width": width, "height": height, "steps": steps]
        if let serve { config["serve"] = serve }
        let configPath = dir + "/probe-\(UUID().uuidString).json"
        try JSONSerialization.data(withJSONObject: config).write(to: URL(fileURLWithPath: configPath))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [packageRoot + "/Tests/Browser/cdp_probe.py", configPath]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let object = try XCTUnwrap(
            JSONSerialization.jsonObject(with: data) as? [String: Any], String(decoding: data, as: UTF8.self))
        if let error = object["driverError"] as? String { XCTFail("Chromium: \(error)") }
        XCTAssertEqual(process.terminationStatus, 0)
        return Probe(
            results: object["results"] as? [Any] ?? [], errors: object["errors"] as? [String] ?? [],
            failed: object["failed"] as? [String] ?? [], requests: object["requests"] as? [String] ?? [])
    }

    /// JS: the natural widths of the page's thumbnails, in page order.
    static let thumbnailWidths = "Array.from(document.querySelectorAll('a.ph img')).map(i => i.naturalWidth)"
    /// JS: once the lightbox image has loaded, [open, its photo, naturalWidth, naturalHeight, position text].
    static let lightbox = """
        new Promise(r => { const i = document.querySelector('#lb img'); const box = document.getElementById('lb');
          const done = () => r([box.open, i.dataset.photo || '', i.naturalWidth, i.naturalHeight,
            document.querySelector('.lb-pos').textContent]);
          if (!box.open || (i.complete && i.naturalWidth)) done(); else { i.onload = done; i.onerror = done; } })
        """
    /// JS: the WCAG 2.1 contrast ratio of each text element's computed colour against the
    /// first opaque background behind it: [[selector, ratio], ...].
    static let contrasts = """
        (() => {
          const rgb = s => s.match(/[\\d.]+/g).map(Number);
          const lum = c => { const f = v => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
            return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]); };
          const background = e => { for (; e; e = e.parentElement) { const c = rgb(getComputedStyle(e).backgroundColor);
            if (c.length < 4 || c[3] === 1) return c; } return [255, 255, 255]; };
          return ['h1', '.count', 'h2', '.cap .n', '.cap time', '.cap ul li', 'nav.pages a', '.rating'].map(s => {
            const e = document.querySelector(s); if (!e) return [s, 0];
            const a = lum(rgb(getComputedStyle(e).color)), b = lum(background(e));
            return [s, (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05)]; });
        })()
        """
    /// JS: [scrollWidth, clientWidth of the page, columns of the first grid].
    static let layout = """
        [document.documentElement.scrollWidth, document.documentElement.clientWidth,
         getComputedStyle(document.querySelector('ul.grid')).gridTemplateColumns.split(' ').length]
        """

    // MARK: tests

    /// The Samples with hostile names and tags, in Chromium from file:// at 1920 px: every
    /// thumbnail loads at its stored size, the lightbox opens on click and on Enter with the
    /// rendition of the right photo (its natural size the 2048-px rule's), arrows move, Escape
    /// closes and gives the focus back; the data's markup is text; no request leaves DEST;
    /// text contrast at least 4.5:1 in the light and the dark palette.
    func testSamplesGalleryInChromium() throws {
        _ = try browser()
        run(["import", "-q", samplesDir])
        var photos = try listed()
        XCTAssertEqual(photos.count, 6)
        let hostileTag = "<script>alert(1)</script>"
        let otherTag = "a\"b&c'd"
        let first = try XCTUnwrap(
            photos.first { $0["displayName"] as? String == "storm.jpg" }?["uniqueName"] as? String)
        run(["tag", "add", hostileTag, first])
        run(["tag", "add", otherTag, first])
        let hostileName = "it's \"<img src=x onerror=alert(2)>\" תמונה.jpg"
        let db = try TestCatalog(root: lib)
        try db.run("UPDATE photo SET display_name = ? WHERE unique_name = ?", [hostileName, first])
        photos = try listed()

        let out = dir + "/gallery"
        let summary = try summary(run(["gallery", out, "--title", "Samples & <friends>", "--json"]))
        XCTAssertEqual(summary["photos"] as? Int, 6)
        XCTAssertEqual(summary["written"] as? Int, 6)
        XCTAssertEqual(summary["failed"] as? Int, 0)
        XCTAssertEqual(summary["pages"] as? Int, 1)
        // The thumbnails are the library's bytes.
        for p in photos {
            let name = try XCTUnwrap(p["uniqueName"] as? String)
            let expected = run(["thumbnail", name, "-o", "-"]).stdoutBytes
            XCTAssertEqual(
                FileManager.default.contents(atPath: "\(out)/t/\(name).jpg").map { [UInt8]($0) }, expected, name)
        }
        // The order on the page, newest capture first: the links in DOM order.
        let screenshot = dir + "/gallery-1920.png"
        let probe = try probe(
            width: 1920, height: 1080,
            [
                ["navigate": "file://\(out)/index.html"],
                ["eval": Self.thumbnailWidths],
                ["eval": "Array.from(document.querySelectorAll('a.ph')).map(a => a.dataset.photo)"],
                ["click": "a.ph"],
                ["eval": Self.lightbox],
                ["key": "ArrowRight"], ["wait": 200],
                ["eval": Self.lightbox],
                ["key": "ArrowLeft"], ["wait": 200],
                ["eval": Self.lightbox],
                ["key": "Escape"], ["wait": 200],
                ["eval": "[document.getElementById('lb').open, document.activeElement.dataset.photo || '']"],
                ["eval": "document.querySelectorAll('a.ph')[2].focus() || 0"],
                ["key": "Enter"], ["wait": 200],
                ["eval": Self.lightbox],
                ["key": "Escape"], ["wait": 200],
                // The data as text, and no element the data made.
                ["eval": "Array.from(document.querySelectorAll('.cap ul li')).map(e => e.textContent)"],
                ["eval": "Array.from(document.querySelectorAll('.cap .n')).map(e => e.textContent)"],
                [
                    "eval":
                        "[...new Set(Array.from(document.querySelectorAll('*')).map(e => e.localName))].sort().join(' ')"
                ],
                ["eval": "Array.from(document.scripts).map(s => s.getAttribute('src'))"],
                [
                    "eval":
                        "Array.from(document.querySelectorAll('*')).flatMap(e => Array.from(e.attributes).map(a => a.name)).filter(n => n.startsWith('on')).length"
                ],
                ["eval": "[document.title, document.querySelector('h1').textContent]"],
                ["eval": Self.contrasts],
                ["screenshot": screenshot],
                ["media": "dark"],
                ["eval": Self.contrasts],
                ["eval": "getComputedStyle(document.body).backgroundColor"]
            ])
        XCTAssertEqual(probe.errors, [])
        XCTAssertEqual(probe.failed, [])
        XCTAssertFalse(probe.requests.isEmpty)
        for url in probe.requests {
            XCTAssertTrue(url.hasPrefix("file://\(out)/"), "a request outside the gallery: \(url)")
        }
        let r = probe.results
        guard r.count == 17 else { return XCTFail("\(r)") }
        let byName = Dictionary(uniqueKeysWithValues: photos.map { ($0["uniqueName"] as? String ?? "", $0) })
        let order = try XCTUnwrap(r[1] as? [String])
        XCTAssertEqual(Set(order), Set(byName.keys))
        XCTAssertEqual(
            r[0] as? [Int], order.map { byName[$0]?["thumbnailWidth"] as? Int ?? -1 }, "thumbnails at their stored size"
        )
        func rendition(_ name: String) -> [Int] {
            let w = byName[name]?["width"] as? Int ?? 0, h = byName[name]?["height"] as? Int ?? 0
            let size = Thumbnailer.thumbnailSize(width: w, height: h, maxEdge: 2048)
            return [size.width, size.height]
        }
        func box(_ value: Any) -> (open: Bool, photo: String, size: [Int], position: String) {
            let a = value as? [Any] ?? []
            guard a.count == 5 else { return (false, "", [], "") }
            return (
                a[0] as? Bool ?? false, a[1] as? String ?? "", [a[2] as? Int ?? 0, a[3] as? Int ?? 0],
                a[4] as? String ?? ""
            )
        }
        var b = box(r[2])
        XCTAssertTrue(b.open, "a click opens the lightbox")
        XCTAssertEqual(b.photo, order[0])
        XCTAssertEqual(b.size, rendition(order[0]))
        XCTAssertEqual(b.position, "1 / 6")
        b = box(r[3])
        XCTAssertEqual([b.photo, b.position], [order[1], "2 / 6"], "ArrowRight")
        XCTAssertEqual(b.size, rendition(order[1]))
        b = box(r[4])
        XCTAssertEqual([b.photo, b.position], [order[0], "1 / 6"], "ArrowLeft")
        let closed = r[5] as? [Any] ?? []
        XCTAssertEqual(closed.first as? Bool, false, "Escape closes")
        XCTAssertEqual(closed.last as? String, order[0], "the focus is back on the thumbnail")
        b = box(r[7])
        XCTAssertTrue(b.open, "Enter on a focused thumbnail opens the lightbox")
        XCTAssertEqual(b.photo, order[2])
        XCTAssertEqual(b.size, rendition(order[2]))
        let tags = try XCTUnwrap(r[8] as? [String])
        XCTAssertTrue(tags.contains(hostileTag), "\(tags)")
        XCTAssertTrue(tags.contains(otherTag), "\(tags)")
        XCTAssertTrue((r[9] as? [String] ?? []).contains(hostileName))
        XCTAssertEqual(
            r[10] as? String,
            "a bdi body button dialog div h1 h2 head header html img li link main meta p script section span time title ul",
            "only the page's own elements")
        XCTAssertEqual(r[11] as? [String], ["gallery.js"])
        XCTAssertEqual(r[12] as? Int, 0, "no event handler attributes")
        XCTAssertEqual(r[13] as? [String], ["Samples & <friends>", "Samples & <friends>"])
        for (scheme, value) in [("light", r[14]), ("dark", r[15])] {
            for pair in value as? [[Any]] ?? [] {
                let ratio = pair.count == 2 ? (pair[1] as? Double ?? 0) : 0
                // 0: no such element on this page (page links: the 2,500-photo test).
                if ratio != 0 { XCTAssertGreaterThanOrEqual(ratio, 4.5, "\(scheme): \(pair)") }
            }
        }
        XCTAssertEqual(r[16] as? String, "rgb(20, 20, 20)", "prefers-color-scheme: dark")
        XCTAssertEqual(
            FileManager.default.contents(atPath: screenshot)?.prefix(8).map { $0 }, [137, 80, 78, 71, 13, 10, 26, 10])
        if let keep = ProcessInfo.processInfo.environment["PHOTOS_GALLERY_SCREENSHOT"] {
            try? FileManager.default.removeItem(atPath: keep)
            try FileManager.default.copyItem(atPath: screenshot, toPath: keep)
        }
    }

    /// At 360 and 1920 px wide: no horizontal scrolling, the thumbnails in a grid of 2 and of
    /// 12 columns; the lightbox fits as well.
    func testLayoutAt360And1920() throws {
        _ = try browser()
        run(["import", "-q", samplesDir])
        let out = dir + "/gallery"
        run(["gallery", out, "-q", "--originals", "none"])
        for (width, columns) in [(360, 2), (1920, 12), (2560, 16)] {
            let probe = try probe(
                width: width,
                [
                    ["navigate": "file://\(out)/index.html"], ["eval": Self.layout], ["click": "a.ph"],
                    ["eval": Self.lightbox], ["eval": Self.layout],
                    // A swipe to the left shows the next photo, to the right the previous one.
                    ["swipe": [0.8, 0.2]], ["wait": 200], ["eval": Self.lightbox],
                    ["swipe": [0.2, 0.8]], ["wait": 200], ["eval": Self.lightbox]
                ])
            XCTAssertEqual(probe.errors, [])
            guard probe.results.count == 5, let before = probe.results[0] as? [Int],
                let open = probe.results[2] as? [Int]
            else { return XCTFail("\(probe.results)") }
            XCTAssertEqual((probe.results[1] as? [Any])?.last as? String, "1 / 6", "\(width) px")
            XCTAssertEqual((probe.results[3] as? [Any])?.last as? String, "2 / 6", "\(width) px: a swipe left")
            XCTAssertEqual((probe.results[4] as? [Any])?.last as? String, "1 / 6", "\(width) px: a swipe right")
            XCTAssertLessThanOrEqual(before[0], before[1], "\(width) px: no horizontal scrolling")
            XCTAssertEqual(before[2], columns, "\(width) px: columns")
            XCTAssertLessThanOrEqual(open[0], open[1], "\(width) px, lightbox open: no horizontal scrolling")
        }
    }

    /// A generated library of 2,500 photos, 200 a page: 13 pages, the count on each and the page
    /// links right, every thumbnail loaded, no console errors, no failed requests; served by
    /// `python3 -m http.server` as well as opened from disk.
    func testGalleryOf2500PhotosPagesAndServed() throws {
        _ = try browser()
        let input = dir + "/in"
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        for i in 0..<2_500 {
            let image = try PixelBuffer(width: 32, height: 24)
            for p in 0..<(32 * 24) {
                image.pixels[p * 3] = UInt8(i % 256)
                image.pixels[p * 3 + 1] = UInt8(i / 256 * 25)
                image.pixels[p * 3 + 2] = UInt8((p * 7) % 256)
            }
            let jpeg = try ImageDecoder.encodeJPEG(image, quality: 90)
            XCTAssertTrue(FileManager.default.createFile(atPath: "\(input)/g\(i).jpg", contents: Data(jpeg)))
        }
        run(["import", "-q", input])
        let out = dir + "/gallery"
        let s = try summary(run(["gallery", out, "--json", "--size", "0", "--originals", "none"]))
        XCTAssertEqual(s["photos"] as? Int, 2_500)
        XCTAssertEqual(s["pages"] as? Int, 13)
        XCTAssertTrue(FileManager.default.fileExists(atPath: out + "/page-13.html"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: out + "/page-14.html"))
        let nav =
            "Array.from(document.querySelector('nav.pages').querySelectorAll('li')).map(l => l.textContent).join(' ')"
        let links =
            "Array.from(document.querySelector('nav.pages').querySelectorAll('a')).map(a => a.getAttribute('href')).join(' ')"
        let loaded =
            "Array.from(document.querySelectorAll('a.ph img')).filter(i => i.complete && i.naturalWidth > 0).length"
        for serve in [nil, out] {
            let base = serve == nil ? "file://\(out)/" : ""
            let probe = try probe(
                width: 1280, serve: serve,
                [
                    ["navigate": base + "index.html"], ["eval": loaded], ["eval": nav], ["eval": links],
                    ["navigate": base + "page-7.html"], ["eval": loaded], ["eval": nav],
                    ["navigate": base + "page-13.html"], ["eval": loaded], ["eval": nav],
                    ["eval": Self.contrasts], ["media": "dark"], ["eval": Self.contrasts]
                ])
            XCTAssertEqual(probe.errors, [], serve ?? "file://")
            XCTAssertEqual(probe.failed, [], serve ?? "file://")
            for url in probe.requests {
                XCTAssertTrue(
                    url.hasPrefix(serve == nil ? "file://\(out)/" : "http://127.0.0.1:"), "outside the gallery: \(url)")
            }
            let r = probe.results
            guard r.count == 9 else { return XCTFail("\(r)") }
            for value in r[7...] {
                for pair in value as? [[Any]] ?? [] where pair.count == 2 {
                    let ratio = pair[1] as? Double ?? 0
                    if ratio != 0 || pair[0] as? String == "nav.pages a" {
                        XCTAssertGreaterThanOrEqual(ratio, 4.5, "\(pair)")
                    }
                }
            }
            XCTAssertEqual(r[0] as? Int, 200)
            XCTAssertEqual(r[1] as? String, "1 2 3 4 … 13 Next")
            XCTAssertEqual(
                r[2] as? String, "index.html page-2.html page-3.html page-4.html page-13.html page-2.html")
            XCTAssertEqual(r[3] as? Int, 200)
            XCTAssertEqual(r[4] as? String, "Previous 1 … 4 5 6 7 8 9 10 … 13 Next")
            XCTAssertEqual(r[5] as? Int, 100)
            XCTAssertEqual(r[6] as? String, "Previous 1 … 10 11 12 13")
        }
    }

    /// A HEIC and a JPEG with a Display P3 profile (Samples-formats), the PNG of Samples and the
    /// corpus's PNG with an ICC profile (jpeg-conformance/monkey16.png, when the corpus is there):
    /// the lightbox renditions' centre colour matches their thumbnails' within 4 levels, read
    /// from a canvas in Chromium (served over HTTP: a file:// image would taint the canvas).
    func testRenditionColoursMatchTheThumbnails() throws {
        _ = try browser()
        let formats = packageRoot + "/Samples-formats"
        var files = [formats + "/storm.heic", formats + "/ladybird-display-p3.jpg", samplesDir + "/kite.png"]
        // A PNG with an embedded ICC profile (16-bit, sRGB2014), when the corpus is there.
        if let corpusDir { files.append(corpusDir + "/jpeg-conformance/monkey16.png") }
        run(["import", "-q"] + files)
        let out = dir + "/gallery"
        run(["gallery", out, "-q"])
        let centre = """
            Promise.all(Array.from(document.querySelectorAll('a.ph')).map(a => Promise.all([a.querySelector('img').src, a.href]
              .map(src => new Promise(r => { const i = new Image(); i.onload = () => {
                const c = document.createElement('canvas'); c.width = i.naturalWidth; c.height = i.naturalHeight;
                const g = c.getContext('2d'); g.drawImage(i, 0, 0);
                const s = Math.max(1, Math.round(i.naturalWidth / 5));
                const d = g.getImageData(Math.floor(i.naturalWidth / 2 - s / 2), Math.floor(i.naturalHeight / 2 - s / 2), s, s).data;
                const m = [0, 0, 0]; for (let k = 0; k < d.length; k += 4) { m[0] += d[k]; m[1] += d[k + 1]; m[2] += d[k + 2]; }
                r(m.map(v => Math.round(v / (d.length / 4)))); }; i.onerror = () => r([]); i.src = src; })))
              .then(pair => [a.dataset.photo, pair[0], pair[1]])))
            """
        let probe = try probe(width: 1280, serve: out, [["navigate": "index.html"], ["eval": centre]])
        XCTAssertEqual(probe.errors, [])
        let rows = try XCTUnwrap(probe.results.first as? [[Any]])
        XCTAssertEqual(rows.count, files.count)
        for row in rows {
            let thumb = row[1] as? [Int] ?? [], shown = row[2] as? [Int] ?? []
            XCTAssertEqual(thumb.count, 3, "\(row)")
            XCTAssertEqual(shown.count, 3, "\(row)")
            for (a, b) in zip(thumb, shown) { XCTAssertLessThanOrEqual(abs(a - b), 4, "\(row)") }
        }
    }

    // MARK: without a browser

    /// --update after a tag change rewrites only the page that shows the photo (its files are
    /// not made again); after a delete, the photo's files are gone; --dry-run writes nothing.
    func testUpdateRewritesOnlyWhatChanged() throws {
        run(["import", "-q", samplesDir])
        let out = dir + "/gallery"
        var s = try summary(run(["gallery", out, "--json", "--per-page", "2", "--group", "none"]))
        XCTAssertEqual(s["pages"] as? Int, 3)
        XCTAssertEqual(s["written"] as? Int, 6)
        XCTAssertEqual(s["pagesWritten"] as? Int, 5, "3 pages, the stylesheet and the script")
        let pages = ["index.html", "page-2.html", "page-3.html"]
        let before = try pages.map { try XCTUnwrap(FileManager.default.contents(atPath: "\(out)/\($0)")) }
        // Which page shows which photo.
        let onPage3 = try XCTUnwrap(
            String(decoding: before[2], as: UTF8.self).components(separatedBy: "data-photo=\"").dropFirst().first?
                .prefix { $0 != "\"" })
        s = try summary(run(["gallery", out, "--json", "--per-page", "2", "--group", "none", "--update"]))
        XCTAssertEqual([s["written"] as? Int, s["skipped"] as? Int, s["pagesWritten"] as? Int], [0, 6, 0])
        run(["tag", "add", "new-tag", String(onPage3)])
        let dry = run(["gallery", out, "--per-page", "2", "--group", "none", "--update", "--dry-run"])
        XCTAssertTrue(dry.stdout.contains("would write page-3.html"), dry.stdout)
        XCTAssertFalse(
            String(decoding: try XCTUnwrap(FileManager.default.contents(atPath: out + "/page-3.html")), as: UTF8.self)
                .contains("new-tag"), "a dry run writes nothing")
        s = try summary(run(["gallery", out, "--json", "--per-page", "2", "--group", "none", "--update"]))
        XCTAssertEqual([s["written"] as? Int, s["skipped"] as? Int, s["pagesWritten"] as? Int], [0, 6, 1])
        let after = try pages.map { try XCTUnwrap(FileManager.default.contents(atPath: "\(out)/\($0)")) }
        XCTAssertEqual(after[0], before[0])
        XCTAssertEqual(after[1], before[1])
        XCTAssertTrue(String(decoding: after[2], as: UTF8.self).contains("<bdi>new-tag</bdi>"))

        // A delete: the photo's thumbnail, rendition and original go, and the pages shrink.
        let files = try FileManager.default.contentsOfDirectory(atPath: out + "/o").filter {
            $0.hasPrefix(onPage3 + ".")
        }
        XCTAssertEqual(files.count, 1)
        run(["delete", "--yes", "-q", String(onPage3)])
        s = try summary(run(["gallery", out, "--json", "--per-page", "2", "--group", "none", "--update"]))
        XCTAssertEqual([s["photos"] as? Int, s["written"] as? Int, s["removed"] as? Int], [5, 0, 3])
        for path in ["t/\(onPage3).jpg", "r/\(onPage3).jpg", "o/\(files[0])"] {
            XCTAssertFalse(FileManager.default.fileExists(atPath: "\(out)/\(path)"), path)
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: out + "/t").count, 5)
        // --size 0 --originals none: the renditions and originals go too.
        s = try summary(run(["gallery", out, "--json", "--size", "0", "--originals", "none", "--update"]))
        XCTAssertEqual(s["removed"] as? Int, 12, "5 renditions, 5 originals, page-2.html and page-3.html")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: out + "/r"), [])
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: out + "/o"), [])
    }

    /// `--share ID`: the gallery of a share's photos (its zone), and only those.
    func testGalleryOfAShare() throws {
        run(["import", "-q", samplesDir])
        let photos = try listed()
        let names = photos.compactMap { $0["uniqueName"] as? String }.sorted()
        let created = photos_(["share", "create", names[0], names[1], "--title", "Summer", "--json"])
        let share = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(created.stdout.utf8)) as? [String: Any])
        let id = try XCTUnwrap(share["id"] as? String)
        let out = dir + "/shared"
        let s = try summary(run(["gallery", out, "--share", String(id.prefix(8)), "--json", "--size", "0"]))
        XCTAssertEqual(s["photos"] as? Int, 2)
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: out + "/t").sorted(),
            [names[0] + ".jpg", names[1] + ".jpg"])
        let page = String(
            decoding: try XCTUnwrap(FileManager.default.contents(atPath: out + "/index.html")), as: UTF8.self)
        XCTAssertEqual(page.components(separatedBy: "class=\"ph\"").count - 1, 2)
        run(["gallery", dir + "/none", "--share", "ffffffff"], status: 66)
    }

    /// `photos` with the owner set (share create needs one).
    func photos_(_ args: [String]) -> RunResult {
        let result = photos(["--library", lib] + args, env: ["PHOTOS_OWNER": "owner@example.org"])
        XCTAssertEqual(result.status, 0, result.stderr)
        return result
    }

    /// The bad arguments and destinations: a usage error 64, DEST a file 73, an unknown tag 66.
    func testRefusals() throws {
        run(["import", "-q", samplesDir])
        XCTAssertTrue(
            run(["gallery", dir + "/g", "--originals", "move"], status: 64).stderr.contains("copy, link or none"))
        XCTAssertTrue(
            run(["gallery", dir + "/g", "--group", "week"], status: 64).stderr.contains("day, month, year or none"))
        run(["gallery", dir + "/g", "--size", "-1"], status: 64)
        XCTAssertTrue(FileManager.default.createFile(atPath: dir + "/file", contents: Data()))
        run(["gallery", dir + "/file"], status: 73)
        run(["gallery", dir + "/g2", "--tag", "no-such-tag"], status: 66)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/g2"), "nothing created for an unknown tag")
        run(["gallery", lib + "/inside"], status: 73)
        // A folder of DEST that is a symbolic link (here to a folder outside it) is refused, and
        // nothing is written through it.
        let outside = dir + "/outside"
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: dir + "/g3", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: dir + "/g3/t", withDestinationPath: outside)
        XCTAssertTrue(run(["gallery", dir + "/g3"], status: 73).stderr.contains("g3/t"))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: outside), [])
    }
}
