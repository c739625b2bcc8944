import Foundation
import PhotosImaging
import PhotosTestSupport
import XCTest

/// Issue 25 item 1: poster frames of videos read with FFmpeg's libraries in process (CImageCodec video.c).
/// Inputs are made here with Debian's `ffmpeg` (lavfi colour sources, a few KB each) and the corpus's
/// camera-formats/video rows; tests skip with a message when `ffmpeg` is absent.
final class VideoPosterTests: XCTestCase {
    var dir = ""

    override func setUpWithError() throws {
        dir = NSTemporaryDirectory() + "photos-video-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    }

    override func tearDown() { try? FileManager.default.removeItem(atPath: dir) }

    func bytes(_ name: String) throws -> [UInt8] { Array(try Data(contentsOf: URL(fileURLWithPath: dir + "/" + name))) }

    func poster(_ bytes: [UInt8]) throws -> VideoPosterResult {
        try bytes.withUnsafeBytes { try VideoPoster.makeThumbnail(from: $0, options: ThumbnailOptions()) }
    }

    /// The decoded thumbnail's RGB pixel at (x, y).
    func pixel(_ result: VideoPosterResult, _ x: Int, _ y: Int) throws -> [Int] {
        let image = try result.thumbnail.withUnsafeBytes {
            try ImageDecoder.decode($0, format: .jpeg, targetEdge: 1000, maxPixels: 1_000_000)
        }
        let at = (y * image.pixels.width + x) * 3
        return (0..<3).map { Int(image.pixels.pixels[at + $0]) }
    }

    /// A 3 s clip, red 0–1 s, green 1–2 s, blue 2–3 s, keyframes every second (10 fps, GOP 10).
    func makeColourClip(_ name: String, extra: [String] = []) throws {
        try runFFmpeg(
            [
                "-f", "lavfi", "-i", "color=red:s=160x120:d=1:r=10", "-f", "lavfi", "-i",
                "color=lime:s=160x120:d=1:r=10",
                "-f", "lavfi", "-i", "color=blue:s=160x120:d=1:r=10", "-filter_complex",
                "[0][1][2]concat=n=3:v=1,format=yuv420p", "-c:v", "libx264", "-g", "10"
            ] + extra + [dir + "/" + name])
    }

    func testPosterIsTheFirstKeyframeAtOrAfterTenPercentOfAShortClip() throws {
        try makeColourClip("rgb.mp4", extra: ["-metadata", "creation_time=2024-05-01T10:20:30Z"])
        let result = try poster(try bytes("rgb.mp4"))
        // 10 % of 3 s is 0.3 s; the first keyframe at or after it is at 1 s: green.
        let centre = try pixel(result, 60, 45)
        XCTAssertLessThan(centre[0], 30)
        XCTAssertGreaterThan(centre[1], 220)
        XCTAssertLessThan(centre[2], 30)
        XCTAssertEqual(
            [result.width, result.height, result.thumbnailWidth, result.thumbnailHeight], [160, 120, 120, 90])
        XCTAssertEqual(result.duration, 3.0, accuracy: 0.05)
        XCTAssertEqual(result.codec, "h264")
        XCTAssertEqual(result.creationTime, "2024-05-01T10:20:30.000000Z")
        XCTAssertNil(result.quickTimeCreationDate)
        XCTAssertFalse(result.fromCover)
        XCTAssertTrue(try bytes("rgb.mp4").withUnsafeBytes { VideoPoster.isVideo($0) })
    }

    func testDisplayMatrixRotationGivesAnUprightPoster() throws {
        // 64×32 red with a white 16×16 square at the stored top-left.
        try runFFmpeg(
            [
                "-f", "lavfi", "-i", "color=red:s=64x32:d=2:r=10,format=yuv420p", "-vf",
                "drawbox=x=0:y=0:w=16:h=16:color=white:t=fill", "-c:v", "libx264", "-g", "5", dir + "/base.mp4"
            ])
        // ffmpeg's `rotate` tag (display matrix, counter-clockwise degrees): where ffmpeg itself shows the
        // white square after applying it, (corner x, corner y) as fractions of the upright thumbnail.
        let cases: [(tag: Int, clockwise: Int, size: [Int], white: (Int, Int))] = [
            (90, 270, [32, 64], (0, 1)), (180, 180, [64, 32], (1, 1)), (270, 90, [32, 64], (1, 0))
        ]
        for c in cases {
            try runFFmpeg(["-i", dir + "/base.mp4", "-c", "copy", "-metadata:s:v:0", "rotate=\(c.tag)", dir + "/r.mp4"])
            let result = try poster(try bytes("r.mp4"))
            XCTAssertEqual(result.rotation, c.clockwise, "rotate=\(c.tag)")
            XCTAssertEqual([result.width, result.height], c.size, "rotate=\(c.tag)")
            XCTAssertEqual([result.thumbnailWidth, result.thumbnailHeight], c.size, "rotate=\(c.tag)")
            let w = result.thumbnailWidth, h = result.thumbnailHeight
            for (cx, cy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                let p = try pixel(result, cx == 0 ? 3 : w - 4, cy == 0 ? 3 : h - 4)
                let white = (cx, cy) == c.white
                XCTAssertEqual(p[1] > 200, white, "rotate=\(c.tag) corner (\(cx), \(cy)): \(p)")
            }
        }
    }

    func testCoverArtIsThePoster() throws {
        try makeColourClip("rgb.mp4")
        try runFFmpeg(["-f", "lavfi", "-i", "color=yellow:s=32x32:d=1", "-frames:v", "1", dir + "/cover.png"])
        try runFFmpeg(
            [
                "-i", dir + "/rgb.mp4", "-i", dir + "/cover.png", "-map", "0", "-map", "1", "-c", "copy", "-c:v:1",
                "png",
                "-disposition:v:1", "attached_pic", dir + "/cover.mp4"
            ])
        let result = try poster(try bytes("cover.mp4"))
        XCTAssertTrue(result.fromCover)
        let centre = try pixel(result, 16, 16)
        XCTAssertGreaterThan(centre[0], 220)
        XCTAssertGreaterThan(centre[1], 220)
        XCTAssertLessThan(centre[2], 40)
    }

    func testQuickTimeCreationDateWithOffsetIsRead() throws {
        try makeColourClip(
            "dated.mov",
            extra: [
                "-movflags", "use_metadata_tags", "-metadata",
                "com.apple.quicktime.creationdate=2023-07-24T11:25:40+0300",
                "-metadata", "creation_time=2023-07-24T08:25:40Z"
            ])
        let result = try poster(try bytes("dated.mov"))
        XCTAssertEqual(result.quickTimeCreationDate, "2023-07-24T11:25:40+0300")
        // With use_metadata_tags the mdta key is written as given.
        XCTAssertEqual(result.creationTime, "2023-07-24T08:25:40Z")
        try makeColourClip("undated.mp4", extra: ["-map_metadata", "-1", "-fflags", "+bitexact"])
        let undated = try poster(try bytes("undated.mp4"))
        XCTAssertNil(undated.quickTimeCreationDate)
        XCTAssertNil(undated.creationTime)
    }

    func testCorpusVideos() throws {
        let corpus = try requireCorpus()
        let rows = try loadManifest(corpus + "/camera-formats").filter { $0.path.hasPrefix("camera-formats/video/") }
        XCTAssertEqual(rows.count, 3)
        for row in rows {
            let data = Array(try Data(contentsOf: URL(fileURLWithPath: corpus + "/" + row.path)))
            let result = try poster(data)
            XCTAssertTrue(data.withUnsafeBytes { VideoPoster.isVideo($0) }, row.path)
            // The MANIFEST gives the stored size; a -90 display matrix shows it turned.
            let turned = row.path.hasSuffix("with-gps.mov")
            let expected: [Int?] = turned ? [row.height, row.width] : [row.width, row.height]
            XCTAssertEqual([result.width, result.height] as [Int?], expected, row.path)
            XCTAssertEqual(max(result.thumbnailWidth, result.thumbnailHeight), 120, row.path)
        }
    }

    func testHEIFAndAVIFAreNotVideos() {
        func ftyp(_ major: String, _ brands: [String]) -> [UInt8] {
            let body = Array(major.utf8) + [0, 0, 0, 0] + brands.flatMap { Array($0.utf8) }
            let size = 8 + body.count
            return [0, 0, 0, UInt8(size)] + Array("ftyp".utf8) + body + [UInt8](repeating: 0, count: 16)
        }
        XCTAssertFalse(ftyp("heic", ["mif1", "heic"]).withUnsafeBytes { VideoPoster.isVideo($0) })
        XCTAssertFalse(ftyp("mif1", ["mif1", "avif", "isom"]).withUnsafeBytes { VideoPoster.isVideo($0) })
        XCTAssertFalse(ftyp("isom", ["mif1", "heic"]).withUnsafeBytes { VideoPoster.isVideo($0) })
        XCTAssertTrue(ftyp("isom", ["isom", "mp41"]).withUnsafeBytes { VideoPoster.isVideo($0) })
        XCTAssertTrue(ftyp("qt  ", ["qt  "]).withUnsafeBytes { VideoPoster.isVideo($0) })
        XCTAssertTrue(
            ([0x1A, 0x45, 0xDF, 0xA3] + [UInt8](repeating: 0, count: 8)).withUnsafeBytes { VideoPoster.isVideo($0) })
        XCTAssertTrue(
            (Array("RIFF".utf8) + [0, 0, 0, 0] + Array("AVI ".utf8)).withUnsafeBytes { VideoPoster.isVideo($0) })
        XCTAssertFalse(
            (Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WEBP".utf8)).withUnsafeBytes { VideoPoster.isVideo($0) })
    }

    func testTruncationsAndBitFlipsFailWithAOneLineReason() throws {
        try makeColourClip("rgb.mp4")
        let whole = try bytes("rgb.mp4")
        var failures = 0
        var inputs: [[UInt8]] = [0, 8, 40, whole.count / 4, whole.count / 2].map { Array(whole.prefix($0)) }
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for _ in 0..<40 {
            var damaged = whole
            for _ in 0..<8 {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                let at = Int(state >> 33) % damaged.count
                damaged[at] ^= UInt8(truncatingIfNeeded: 1 << (state >> 60 & 7))
            }
            inputs.append(damaged)
        }
        for input in inputs {
            do {
                let result = try poster(input)
                XCTAssertGreaterThan(result.thumbnailWidth, 0)
            } catch let error as ImageError {
                failures += 1
                let text = "\(error)"
                XCTAssertFalse(text.isEmpty)
                XCTAssertFalse(text.contains("\n"), text)
            }
        }
        // The truncations to 0, 8, 40 bytes and a quarter (before the moov box) cannot give a frame.
        XCTAssertGreaterThanOrEqual(failures, 4)
    }

    func testVersionsNameTheFFmpegLibraries() {
        let names = VideoPoster.libraryVersions.map(\.name)
        XCTAssertEqual(names, ["libavformat", "libavcodec", "libswscale", "libavutil"])
        XCTAssertTrue(VideoPoster.libraryVersions.allSatisfy { $0.version.split(separator: ".").count == 3 })
    }

    /// A Motion Photo built here: a JPEG still, an APP1 XMP packet with Google's Container:Directory naming
    /// the MotionPhoto item's length, and an MP4 appended after the JPEG's EOI.
    func testMotionPhotoEmbeddedVideoIsFoundByItsXMP() throws {
        try makeColourClip("clip.mp4")
        try runFFmpeg(["-f", "lavfi", "-i", "color=red:s=32x24:d=1", "-frames:v", "1", dir + "/still.jpg"])
        let video = try bytes("clip.mp4")
        let still = try bytes("still.jpg")
        let xmp = """
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">\
            <rdf:Description xmlns:Camera="http://ns.google.com/photos/1.0/camera/" \
            xmlns:Container="http://ns.google.com/photos/1.0/container/" \
            xmlns:Item="http://ns.google.com/photos/1.0/container/item/" Camera:MotionPhoto="1">\
            <Container:Directory><rdf:Seq><rdf:li rdf:parseType="Resource"><Container:Item Item:Mime="image/jpeg" \
            Item:Semantic="Primary" Item:Length="0"/></rdf:li><rdf:li rdf:parseType="Resource">\
            <Container:Item Item:Mime="video/mp4" Item:Semantic="MotionPhoto" Item:Length="\(video.count)"/>\
            </rdf:li></rdf:Seq></Container:Directory></rdf:Description></rdf:RDF></x:xmpmeta>
            """
        let payload = Array("http://ns.adobe.com/xap/1.0/".utf8) + [0] + Array(xmp.utf8)
        let segment: [UInt8] = [0xFF, 0xE1, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 255)] + payload
        let motion = Array(still.prefix(2)) + segment + Array(still.dropFirst(2)) + video
        let range = try XCTUnwrap(MotionPhoto.embeddedVideo(in: motion))
        XCTAssertEqual(Array(motion[range]), video)
        XCTAssertNil(MotionPhoto.embeddedVideo(in: still))
        // A length that does not land on a video is no Motion Photo.
        XCTAssertNil(MotionPhoto.embeddedVideo(in: Array(still.prefix(2)) + segment + Array(still.dropFirst(2))))
        // The older GCamera:MicroVideoOffset form.
        let micro =
            Array("http://ns.adobe.com/xap/1.0/".utf8) + [0]
            + Array(
                "<x:xmpmeta><rdf:Description GCamera:MicroVideo=\"1\" GCamera:MicroVideoOffset=\"\(video.count)\"/></x:xmpmeta>"
                    .utf8)
        let microSegment: [UInt8] = [0xFF, 0xE1, UInt8((micro.count + 2) >> 8), UInt8((micro.count + 2) & 255)] + micro
        let old = Array(still.prefix(2)) + microSegment + Array(still.dropFirst(2)) + video
        XCTAssertEqual(MotionPhoto.embeddedVideo(in: old).map { Array(old[$0]) }, video)
    }

    /// Issue 26 item 1: ISO 6709 as QuickTime and MP4 carry it (ISO 6709:2008 Annex H), parsed
    /// strictly: two integer digits of latitude, three of longitude, signs, the closing `/`.
    func testISO6709PositionsAreParsedStrictly() throws {
        let full = try XCTUnwrap(VideoPoster.position(iso6709: "+32.0929+034.8620+028.516/"))
        XCTAssertEqual([full.latitudeE7, full.longitudeE7], [320_929_000, 348_620_000])
        XCTAssertEqual(full.altitudeMM, 28_516)
        let south = try XCTUnwrap(VideoPoster.position(iso6709: "-33.8568+151.2153CRSWGS_84/"))
        XCTAssertEqual([south.latitudeE7, south.longitudeE7], [-338_568_000, 1_512_153_000])
        XCTAssertNil(south.altitudeMM)
        for bad in [
            "+32.0929+034.8620", "32.0929+034.8620/", "+32.0929+34.8620/", "+91.0000+034.8620/",
            "+32.0929+181.0000/", "+3205.57+03451.72/", "+32.+034.8620/", "+32.0929+034.8620x/", "", "/"
        ] {
            XCTAssertNil(VideoPoster.position(iso6709: bad), bad)
        }
    }

    /// The udta `©xyz` atom (libavformat's `location`) and Apple's mdta key are both read.
    func testAVideosLocationIsRead() throws {
        try makeColourClip("xyz.mp4", extra: ["-metadata", "location=+48.8584+002.2945+035.000/"])
        let xyz = try XCTUnwrap(try poster(try bytes("xyz.mp4")).position)
        XCTAssertEqual([xyz.latitudeE7, xyz.longitudeE7, xyz.altitudeMM], [488_584_000, 22_945_000, 35_000])
        try makeColourClip(
            "apple.mov",
            extra: [
                "-movflags", "use_metadata_tags", "-metadata",
                "com.apple.quicktime.location.ISO6709=-33.8568+151.2153+010.000/"
            ])
        let apple = try XCTUnwrap(try poster(try bytes("apple.mov")).position)
        XCTAssertEqual([apple.latitudeE7, apple.longitudeE7, apple.altitudeMM], [-338_568_000, 1_512_153_000, 10_000])
        try makeColourClip("none.mp4", extra: ["-map_metadata", "-1"])
        XCTAssertNil(try poster(try bytes("none.mp4")).position)
    }
}
