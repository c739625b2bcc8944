import Foundation
import PhotosCore
import PhotosModel
import PhotosTestSupport
import XCTest

/// One photo per original across sync (SYNC.md "One photo per original"): the same bytes
/// imported on two peers separately become one photo, the one with the smaller uniqueName, on
/// every peer, in whichever order they sync; the other's tags and ratings move to it.
final class SyncSameOriginalTests: SyncTestCase {
    /// The orders in which two peers exchange changesets.
    enum Order: CaseIterable {
        /// a's changeset to b, then b's back to a.
        case aFirst
        /// b's changeset to a, then a's back to b.
        case bFirst
        /// Both export before either applies, then each applies the other's.
        case crossed
    }

    func testSameOriginalConvergesToOnePhotoInEveryOrder() throws {
        for order in Order.allCases {
            try converge(order)
        }
    }

    /// A third peer that synced the loser (with its tags and ratings) from b before the pair
    /// met ends with the same single photo.
    func testThirdPeerThatHeldTheLoserConverges() throws {
        let (a, b, original) = try twoPeers("third")
        let c = try library("third-c")
        let loser = try XCTUnwrap(
            [try onlyPhoto(a), try onlyPhoto(b)].max { $0.uniqueName < $1.uniqueName })
        let loserPeer = loser.uniqueName == (try onlyPhoto(a)).uniqueName ? a : b
        let winnerPeer = loserPeer === a ? b : a
        _ = try c.applyChangeset(at: try export(loserPeer))
        // c tags the loser too before the pair meets; that goes to the loser's peer.
        _ = try c.addTag(try TagName(parsing: "Gamma"), to: [try onlyPhoto(c)], author: "user")
        _ = try loserPeer.applyChangeset(at: try export(c))
        _ = try winnerPeer.applyChangeset(at: try export(loserPeer))
        _ = try loserPeer.applyChangeset(at: try export(winnerPeer))
        _ = try c.applyChangeset(at: try export(winnerPeer))
        _ = try c.applyChangeset(at: try export(loserPeer))
        _ = try winnerPeer.applyChangeset(at: try export(c))
        _ = try loserPeer.applyChangeset(at: try export(c))
        try assertOnePhoto(
            [a, b, c], of: original, tags: ["Alpha", "Beta", "Gamma"], label: "third peer")
    }

    /// Imports one original into a and b under different display names, with tags and ratings
    /// of their own (ann on a, bob on b, cy on both: b's later).
    private func twoPeers(_ name: String) throws -> (Library, Library, String) {
        let a = try library(name + "-a")
        let b = try library(name + "-b")
        let original = try distinctJPEG()
        let copy = (original as NSString).deletingLastPathComponent + "/\(name)-other-name.jpg"
        try? FileManager.default.removeItem(atPath: copy)
        try FileManager.default.copyItem(atPath: original, toPath: copy)
        for (peer, path, tag) in [(a, original, "Alpha"), (b, copy, "Beta")] {
            var options = ImportOptions(paths: [path])
            options.jobs = 1
            options.tags = [tag]
            XCTAssertEqual(try Importer(library: peer, libraryRoot: peer.root, options: options).run().imported, 1)
        }
        XCTAssertNotEqual(try onlyPhoto(a).uniqueName, try onlyPhoto(b).uniqueName)
        XCTAssertNotEqual(try onlyPhoto(a).displayName, try onlyPhoto(b).displayName)
        try rate(a, 4, "ann")
        try rate(a, 1, "cy")
        try rate(b, 2, "bob")
        // Strictly later than a's rating by cy: history timestamps, and so the stamps of local
        // changes, have one-second resolution (ties would go to the larger library id).
        usleep(1_100_000)
        try rate(b, 5, "cy")
        return (a, b, try XCTUnwrap(try photos(a).first?.sha256))
    }

    private func converge(_ order: Order) throws {
        let (a, b, original) = try twoPeers("\(order)")
        switch order {
        case .aFirst:
            _ = try b.applyChangeset(at: try export(a))
            _ = try a.applyChangeset(at: try export(b))
        case .bFirst:
            _ = try a.applyChangeset(at: try export(b))
            _ = try b.applyChangeset(at: try export(a))
        case .crossed:
            let fromA = try export(a)
            let fromB = try export(b)
            _ = try b.applyChangeset(at: fromA)
            _ = try a.applyChangeset(at: fromB)
        }
        // One more round each way: what each apply decided reaches the other.
        _ = try b.applyChangeset(at: try export(a))
        _ = try a.applyChangeset(at: try export(b))
        try assertOnePhoto([a, b], of: original, tags: ["Alpha", "Beta"], label: "\(order)")
    }

    private func assertOnePhoto(_ peers: [Library], of original: String, tags: [String], label: String) throws {
        let survivor = try peers.flatMap { try photos($0) }.map(\.uniqueName).min()
        for peer in peers {
            let all = try photos(peer)
            XCTAssertEqual(all.map(\.uniqueName), [survivor].compactMap { $0 }, "\(label): \(peer.root)")
            XCTAssertEqual(all.map(\.sha256), [original], label)
            let dump = try CanonicalDump.of(peer.root)
            let rows = dump.map { $0.split(separator: "|").map(Self.unwrap) }
            let tagNames = Dictionary(
                rows.filter { $0.count == 4 && $0[0] == "tag" }.map { ($0[1], $0[2]) }, uniquingKeysWith: { a, _ in a })
            let linked = rows.filter { $0.count == 3 && $0[0] == "link" }.compactMap { tagNames[$0[2]] }
            XCTAssertEqual(linked.sorted(), tags, "\(label): \(peer.root)")
            let photo = try XCTUnwrap(all.first)
            let ratings = try peer.ratings(of: photo).map { "\($0.author ?? "-")=\($0.value)" }.sorted()
            XCTAssertEqual(ratings, ["ann=4", "bob=2", "cy=5"], "\(label): \(peer.root)")
            try assertVerifyClean(peer)
        }
        for peer in peers.dropFirst() {
            XCTAssertEqual(try CanonicalDump.of(peer.root), try CanonicalDump.of(peers[0].root), label)
        }
    }

    /// A dump field as text (`CanonicalDump` gives every column as plain text).
    private static func unwrap(_ field: Substring) -> String { String(field) }

    private func onlyPhoto(_ library: Library) throws -> PhotoRecord {
        let all = try photos(library)
        XCTAssertEqual(all.count, 1)
        return try XCTUnwrap(all.first)
    }

    private func rate(_ library: Library, _ value: Int, _ who: String) throws {
        _ = try library.setRating(
            try XCTUnwrap(RatingValue(rawValue: value)), of: try onlyPhoto(library),
            author: HistoryAuthor(given: who, user: who))
    }
}
