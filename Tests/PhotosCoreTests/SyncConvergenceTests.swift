import Foundation
import PhotosCore
import PhotosModel
import PhotosTestSupport
import XCTest

/// SplitMix64 (Steele, Lea, Flood 2014): a seeded generator, so that a failing run replays.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Convergence (issue 11 item 2): peers doing random operations (import, tag add/remove/rename/
/// delete, rate, delete, share create/add, purge) and syncing in random orders end with the
/// identical catalog by identity, the same original files, and a clean verify on every peer.
final class SyncConvergenceTests: SyncTestCase {
    let names = ["Beach", "Trip", "Sea", "Family", "Ünïcode"]

    func testRandomOperationsAndSyncsConverge() throws {
        try converge(seed: 0x5EED_0011, peers: 4, operations: 320)
    }

    func testThreePeersConvergeWithAnotherSeed() throws {
        try converge(seed: 42, peers: 3, operations: 300)
    }

    private func converge(seed: UInt64, peers count: Int, operations: Int) throws {
        var rng = SeededGenerator(seed: seed)
        let peers = try (0..<count).map { try library("peer\($0)") }
        var syncs = 0
        for _ in 0..<operations {
            let peer = peers[Int.random(in: 0..<count, using: &rng)]
            let roll = Int.random(in: 0..<100, using: &rng)
            if roll < 25 {
                let other = peers[Int.random(in: 0..<count, using: &rng)]
                if other !== peer {
                    _ = try peer.sync(from: other)
                    syncs += 1
                }
                continue
            }
            // A local operation; one that is refused (a tag or share that is not there) changes nothing.
            try? operate(on: peer, roll: roll, rng: &rng)
        }
        XCTAssertGreaterThan(syncs, 40)
        // Until quiet: every peer pulls from every other, twice round.
        for _ in 0..<3 {
            for a in peers { for b in peers where a !== b { _ = try a.sync(from: b) } }
        }
        let reference = try CanonicalDump.of(peers[0].root)
        XCTAssertGreaterThan(reference.filter { $0.hasPrefix("photo|") }.count, 5)
        for peer in peers {
            let dump = try CanonicalDump.of(peer.root)
            XCTAssertEqual(
                dump.filter { !reference.contains($0) } + ["--- peer0 only:"] + reference.filter { !dump.contains($0) },
                ["--- peer0 only:"], "peer \(peer.root) differs from peer0")
            try assertVerifyClean(peer)
            let tags = try peer.tags()
            let keys = tags.map { $0.zone + "/" + $0.name }
            XCTAssertEqual(keys.count, Set(keys).count, "duplicate tags left on \(peer.root)")
        }
    }

    private func randomPhoto(_ library: Library, _ rng: inout SeededGenerator) throws -> PhotoRecord? {
        let all = try photos(library)
        return all.isEmpty ? nil : all[Int.random(in: 0..<all.count, using: &rng)]
    }

    private func operate(on peer: Library, roll: Int, rng: inout SeededGenerator) throws {
        let name = try TagName(parsing: names[Int.random(in: 0..<names.count, using: &rng)])
        switch roll {
        case 25..<37:
            try importPhotos(peer, count: 1, tags: Bool.random(using: &rng) ? [name.rawValue] : [])
        case 37..<52:
            if let p = try randomPhoto(peer, &rng) { _ = try peer.addTag(name, to: [p], author: "user") }
        case 52..<58:
            if let p = try randomPhoto(peer, &rng) { _ = try peer.removeTag(name, from: [p], author: "user") }
        case 58..<63:
            let new = try TagName(parsing: names[Int.random(in: 0..<names.count, using: &rng)])
            _ = try peer.renameTag(name, to: new, author: "user")
        case 63..<67:
            _ = try peer.deleteTag(name, author: "user")
        case 67..<80:
            if let p = try randomPhoto(peer, &rng) {
                // Two authors on every peer: the same author rating the same photo on two peers
                // meets the one-rating-per-author rule when they sync.
                let who = ["ann", "bob"][Int.random(in: 0..<2, using: &rng)]
                _ = try peer.setRating(
                    try XCTUnwrap(RatingValue(rawValue: Int.random(in: 1...5, using: &rng))), of: p,
                    author: HistoryAuthor(given: who, user: who))
            }
        case 80..<86:
            if let p = try randomPhoto(peer, &rng) { try peer.deletePhotos([p], author: "user") }
        case 86..<92:
            if let p = try randomPhoto(peer, &rng) { try peer.createShare(photos: [p], author: "user") }
        case 92..<97:
            let shares = try peer.shares()
            if !shares.isEmpty, let p = try randomPhoto(peer, &rng) {
                _ = try peer.addToShare(
                    shares[Int.random(in: 0..<shares.count, using: &rng)], photos: [p], author: "user")
            }
        default:
            let shares = try peer.shares()
            if !shares.isEmpty {
                _ = try peer.purge(zone: ZoneID(rawValue: shares[Int.random(in: 0..<shares.count, using: &rng)].id))
            }
        }
    }
}
