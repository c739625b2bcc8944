import Foundation
import PhotosFiles
import PhotosImaging
import PhotosModel
import PhotosTestSupport
import XCTest

@testable import PhotosCore

/// Issue 25 item 1: a video imports as a photo of format `video` whose thumbnail is its poster
/// frame, with the capture time of QuickTime creationdate → creation_time → mtime; a truncated
/// video fails alone. Inputs are made with Debian's `ffmpeg` (a few KB each). Both backends.
final class VideoImportTests: ImportTestCase {

    /// A 3 s clip at `path`, red 0–1 s, green 1–2 s, blue 2–3 s, keyframes every second.
    func makeColourClip(_ path: String, extra: [String] = []) throws {
        try runFFmpeg(
            [
                "-f", "lavfi", "-i", "color=red:s=160x120:d=1:r=10", "-f", "lavfi", "-i",
                "color=lime:s=160x120:d=1:r=10", "-f", "lavfi", "-i", "color=blue:s=160x120:d=1:r=10",
                "-filter_complex", "[0][1][2]concat=n=3:v=1,format=yuv420p", "-c:v", "libx264", "-g", "10"
            ] + extra + [path])
    }

    /// `photos merge` brings a video in as a video: kind, duration and codec (it once made every
    /// merged video a still with no duration).
    func testMergeCarriesAVideosKindDurationAndCodec() throws {
        try FileManager.default.createDirectory(atPath: tmp.file("in"), withIntermediateDirectories: true)
        try makeColourClip(tmp.file("in/clip.mp4"))
        let a = try makeLibrary()
        XCTAssertEqual(try runImport(a, [tmp.file("in")]).imported, 1)
        let b = try Library(root: tmp.file("lib-b"), create: true)
        XCTAssertEqual(try b.merge(from: a).photos, 1)
        var merged: [PhotoRecord] = []
        try b.forEachPhoto(matching: PhotoFilter()) { merged.append($0) }
        XCTAssertEqual(merged.map(\.displayName), ["clip.mp4"])
        XCTAssertEqual(merged.first?.format, .video)
        XCTAssertEqual(merged.first?.kind, "video")
        XCTAssertEqual(merged.first?.durationMS, 3000)
        XCTAssertEqual(merged.first?.videoCodec, "h264")
    }

    /// A container's claimed duration is stored only within the changeset reader's bound.
    func testADurationBeyondTheBoundIsNotStored() {
        XCTAssertEqual(PhotoRow.durationMilliseconds(seconds: 3.0004), 3000)
        XCTAssertEqual(PhotoRow.durationMilliseconds(seconds: Double(Int32.max)), Int(Int32.max) * 1000)
        XCTAssertNil(PhotoRow.durationMilliseconds(seconds: Double(Int32.max) + 1))
        XCTAssertNil(PhotoRow.durationMilliseconds(seconds: 9.2e12))
        XCTAssertNil(PhotoRow.durationMilliseconds(seconds: -1))
        XCTAssertNil(PhotoRow.durationMilliseconds(seconds: .nan))
        XCTAssertNil(PhotoRow.durationMilliseconds(seconds: .infinity))
    }

    func testVideosImportWithTheGreenPosterAndTheirCaptureTimeSourceAndATruncatedOneFailsAlone() throws {
        try FileManager.default.createDirectory(atPath: tmp.file("in"), withIntermediateDirectories: true)
        try makeColourClip(tmp.file("in/utc.mp4"), extra: ["-metadata", "creation_time=2024-05-01T10:20:30Z"])
        try makeColourClip(
            tmp.file("in/apple.mov"),
            extra: [
                "-metadata", "creation_time=2024-05-01T10:20:30Z", "-metadata",
                "com.apple.quicktime.creationdate=2024-05-01T12:20:30+0200", "-movflags", "use_metadata_tags"
            ])
        try makeColourClip(tmp.file("in/plain.mkv"))
        let mtime = 1_700_000_000
        var times = [timespec(tv_sec: mtime, tv_nsec: 0), timespec(tv_sec: mtime, tv_nsec: 0)]
        XCTAssertEqual(utimensat(AT_FDCWD, tmp.file("in/plain.mkv"), &times, 0), 0)
        let whole = Array(try Data(contentsOf: URL(fileURLWithPath: tmp.file("in/utc.mp4"))))
        _ = try tmp.write("in/cut.mp4", Array(whole.prefix(whole.count / 3)))
        _ = try tmp.write("in/fake.mov", Array("not a movie at all".utf8))

        let library = try makeLibrary()
        let summary = try runImport(library, [tmp.file("in")])
        XCTAssertEqual(summary.imported, 3, "\(summary.failures)")
        XCTAssertEqual(summary.failed, 2)
        XCTAssertEqual(Set(summary.failures.map { PathName.lastComponent($0.path) }), ["cut.mp4", "fake.mov"])
        for failure in summary.failures { XCTAssertFalse(failure.reason.contains("\n"), failure.reason) }

        var photos: [String: PhotoRecord] = [:]
        try library.forEachPhoto(matching: PhotoFilter()) { photos[$0.displayName] = $0 }
        XCTAssertEqual(photos.keys.sorted(), ["apple.mov", "plain.mkv", "utc.mp4"])
        for (name, photo) in photos {
            XCTAssertEqual(photo.format, .video, name)
            XCTAssertEqual(
                [photo.width, photo.height, photo.thumbnailWidth, photo.thumbnailHeight], [160, 120, 120, 90])
            let thumbnail = try library.thumbnailData(of: photo)
            let image = try thumbnail.withUnsafeBytes {
                try ImageDecoder.decode($0, format: .jpeg, targetEdge: 1000, maxPixels: 1_000_000)
            }
            let at = (45 * image.pixels.width + 60) * 3
            let centre = (0..<3).map { Int(image.pixels.pixels[at + $0]) }
            XCTAssertLessThan(centre[0], 30, "\(name) \(centre)")
            XCTAssertGreaterThan(centre[1], 220, "\(name) \(centre)")
            XCTAssertLessThan(centre[2], 30, "\(name) \(centre)")
        }
        for photo in photos.values {
            XCTAssertEqual(photo.kind, "video", photo.displayName)
            XCTAssertEqual(photo.durationMS, 3000, photo.displayName)
            XCTAssertEqual(photo.videoCodec, "h264", photo.displayName)
        }
        let json = try XCTUnwrap(photos["utc.mp4"]).json.serialized()
        XCTAssertTrue(json.contains(#""kind":"video","duration":3,"videoCodec":"h264""#), json)
        var filter = PhotoFilter()
        filter.kinds = ["video"]
        var videos: [String] = []
        try library.forEachPhoto(matching: filter) { videos.append($0.displayName) }
        XCTAssertEqual(videos.sorted(), ["apple.mov", "plain.mkv", "utc.mp4"])
        filter.kinds = ["still", "motion"]
        videos = []
        try library.forEachPhoto(matching: filter) { videos.append($0.displayName) }
        XCTAssertEqual(videos, [])
        let stats = try library.stats()
        XCTAssertEqual(stats.kinds.map { "\($0.kind)=\($0.photos)" }, ["still=0", "video=3", "motion=0", "live=0"])
        XCTAssertEqual(stats.durationMS, 9000)
        XCTAssertEqual(photos["apple.mov"]?.captureDate, "2024-05-01T12:20:30+02:00")
        XCTAssertEqual(photos["apple.mov"]?.captureSource, "quicktime-creationdate")
        XCTAssertEqual(photos["utc.mp4"]?.captureDate, "2024-05-01T10:20:30+00:00")
        XCTAssertEqual(photos["utc.mp4"]?.captureSource, "creation-time")
        XCTAssertEqual(photos["plain.mkv"]?.captureSource, "file-mtime")
        XCTAssertEqual(photos["plain.mkv"]?.captureDate, CaptureTime.fromFileTime(mtime)?.iso)
    }

    /// Issue 25 item 3: a JPEG with an MP4 appended and Google's XMP (Container:Directory) is one
    /// photo of kind `motion`, its original stored byte for byte, the still's thumbnail.
    func testAMotionPhotoImportsAsKindMotionByteForByte() throws {
        try FileManager.default.createDirectory(atPath: tmp.file("in"), withIntermediateDirectories: true)
        try makeColourClip(tmp.file("clip.mp4"))
        try runFFmpeg(["-f", "lavfi", "-i", "color=red:s=32x24:d=1", "-frames:v", "1", tmp.file("still.jpg")])
        let video = Array(try Data(contentsOf: URL(fileURLWithPath: tmp.file("clip.mp4"))))
        let still = Array(try Data(contentsOf: URL(fileURLWithPath: tmp.file("still.jpg"))))
        let xmp = """
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">\
            <rdf:Description rdf:about="" xmlns:Camera="http://ns.google.com/photos/1.0/camera/" \
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
        _ = try tmp.write("in/PXL_motion.jpg", motion)
        _ = try tmp.write("in/plain.jpg", still)

        let library = try makeLibrary()
        let summary = try runImport(library, [tmp.file("in")])
        XCTAssertEqual(summary.imported, 2, "\(summary.failures)")
        var photos: [String: PhotoRecord] = [:]
        try library.forEachPhoto(matching: PhotoFilter()) { photos[$0.displayName] = $0 }
        let photo = try XCTUnwrap(photos["PXL_motion.jpg"])
        XCTAssertEqual(photo.format, .jpeg)
        XCTAssertEqual(photo.kind, "motion")
        XCTAssertEqual(photo.durationMS, 3000)
        XCTAssertEqual(photo.videoCodec, "h264")
        XCTAssertEqual([photo.width, photo.height], [32, 24])
        let stored = Array(
            try Data(contentsOf: URL(fileURLWithPath: library.externalData.path(for: photo.fileReference))))
        XCTAssertEqual(stored, motion)
        XCTAssertEqual(photos["plain.jpg"]?.kind, "still")
        XCTAssertNil(photos["plain.jpg"]?.durationMS)
        var filter = PhotoFilter()
        filter.kinds = ["motion"]
        var names: [String] = []
        try library.forEachPhoto(matching: filter) { names.append($0.displayName) }
        XCTAssertEqual(names, ["PXL_motion.jpg"])
    }

    /// Issue 26 item 1: a video's ISO 6709 location is its photo's position (after a sidecar's
    /// and EXIF's, which a video has none of); the corpus iPhone clip gives exiftool's reading.
    func testAVideosLocationIsItsPosition() throws {
        try FileManager.default.createDirectory(atPath: tmp.file("in"), withIntermediateDirectories: true)
        try makeColourClip(tmp.file("in/paris.mp4"), extra: ["-metadata", "location=+48.8584+002.2945+035.000/"])
        try makeColourClip(tmp.file("in/nowhere.mp4"), extra: ["-map_metadata", "-1"])
        let corpus = corpusPath + "/camera-formats/video/mei_with-gps.mov"
        let haveCorpus = FileManager.default.fileExists(atPath: corpus)
        if haveCorpus { try FileManager.default.copyItem(atPath: corpus, toPath: tmp.file("in/mei.mov")) }
        let library = try makeLibrary()
        let summary = try runImport(library, [tmp.file("in")])
        XCTAssertEqual(summary.imported, haveCorpus ? 3 : 2, "\(summary.failures)")
        var photos: [String: PhotoRecord] = [:]
        try library.forEachPhoto(matching: PhotoFilter()) { photos[$0.displayName] = $0 }
        let paris = try XCTUnwrap(photos["paris.mp4"]?.position)
        XCTAssertEqual([paris.latitudeE7, paris.longitudeE7, paris.altitudeMM], [488_584_000, 22_945_000, 35_000])
        XCTAssertNil(photos["nowhere.mp4"]?.position)
        guard haveCorpus else { throw XCTSkip("../shared/corpus is absent: the corpus iPhone clip was not checked") }
        // exiftool: GPS Coordinates 32.0929 N, 34.8620 E (camera-formats/MANIFEST.tsv).
        let mei = try XCTUnwrap(photos["mei.mov"]?.position)
        XCTAssertEqual([mei.latitudeE7, mei.longitudeE7], [320_929_000, 348_620_000])
    }
}
