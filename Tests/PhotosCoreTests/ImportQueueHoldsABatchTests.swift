import Foundation
import PhotosFiles
import PhotosImaging
import PhotosTestSupport
import XCTest

@testable import PhotosCore

/// The import workers go on preparing a whole batch while the importing thread commits the
/// previous one (and waits for its syncfs): the queue between them holds `batchSize` prepared
/// files, not `2 × jobs` (with which one worker stopped after two files), and what a queued file
/// keeps is small: no raw XMP packet, no IPTC keyword list (merged into its metadata already).
final class ImportQueueHoldsABatchTests: TemporaryFolderTestCase {
    /// Waits (at most 30 s, polling) until `queue` holds `count` items; returns what it holds.
    private func waitFor(_ queue: BoundedQueue<(String, Importer.Outcome, Int)>, count: Int) -> Int {
        let deadline = Date().addingTimeInterval(30)
        while queue.count < count && Date() < deadline { usleep(10_000) }
        return queue.count
    }

    func testOneWorkerPreparesAWholeBatchWhileNothingIsTaken() throws {
        for i in 0..<12 {
            let bytes = try MetadataFixture.jpeg(seed: i)
            try Data(bytes).write(to: URL(fileURLWithPath: dir + "/p\(i).jpg"))
        }
        let pipeline = ImportPipeline(
            files: try FileScanner().stream([dir]), jobs: 1, queueCapacity: 8, catalog: nil, busyTimeout: 1,
            store: nil, thumbnail: ThumbnailOptions())
        defer {
            pipeline.stop.set()
            while !pipeline.queue.pop(until: Date().addingTimeInterval(5)).finished {}
        }
        XCTAssertEqual(waitFor(pipeline.queue, count: 8), 8)
        usleep(200_000)
        XCTAssertEqual(pipeline.queue.count, 8, "the queue holds at most queueCapacity prepared files")
    }

    func testTheQueueIsNeverSmallerThanTwoPerWorker() throws {
        for i in 0..<6 {
            try Data(try MetadataFixture.jpeg(seed: i)).write(to: URL(fileURLWithPath: dir + "/p\(i).jpg"))
        }
        let pipeline = ImportPipeline(
            files: try FileScanner().stream([dir]), jobs: 2, queueCapacity: 1, catalog: nil, busyTimeout: 1,
            store: nil, thumbnail: ThumbnailOptions())
        defer {
            pipeline.stop.set()
            while !pipeline.queue.pop(until: Date().addingTimeInterval(5)).finished {}
        }
        XCTAssertEqual(waitFor(pipeline.queue, count: 4), 4)
    }

    func testAPreparedFileKeepsItsMergedKeywordsButNotTheRawPacket() throws {
        let packet = MetadataFixture.packet(subjects: ["harbour", "boats"])
        let bytes = try MetadataFixture.jpeg(
            segments: [MetadataFixture.xmpSegment(packet), MetadataFixture.iptcSegment(["quay"])])
        let path = dir + "/tagged.jpg"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let outcome = Importer.prepare(
            path: path, reader: nil, claimed: Claims(), store: nil, thumbnail: ThumbnailOptions(),
            sidecarsPossible: false)
        guard case .prepared(let item) = outcome else { return XCTFail("not prepared: \(outcome)") }
        XCTAssertNil(item.result.metadata.xmp)
        XCTAssertEqual(item.result.metadata.iptcKeywords, [])
        XCTAssertEqual(Set(item.sidecar?.subjects ?? []), ["harbour", "boats", "quay"])
    }
}
