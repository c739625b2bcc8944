import Foundation
import PhotosModel

/// How close two signatures must be for `photos duplicates` to take them for one picture
/// (issue 27 item 2): a Hamming distance between the DCT hashes and a mean-chroma distance
/// (`PerceptualSignature`).
public enum DuplicateThreshold: Equatable, Sendable {
    /// The same picture: recompressed, resized, another format, a crop of a few percent
    /// (hash distance ≤ `sameHashDistance`, chroma ≤ `sameColourDistance`).
    case same
    /// Similar pictures: light edits and filters (hash ≤ 16, chroma ≤ 12).
    case similar
    /// Hash distance at most N (0…32), with `same`'s chroma limit up to its distance and
    /// `similar`'s above.
    case distance(Int)

    /// `same`'s largest Hamming distance, measured on the corpus's transformation set
    /// (Benchmarks/duplicates.sh): recompressions and resizes stay within 4, 2 % crops and 5 %
    /// brightening within 8; different corpus photos are 18 or more apart.
    public static let sameHashDistance = 10
    /// `same`'s largest mean-chroma difference (levels of 0…255).
    public static let sameColourDistance = 6

    /// Parses `same`, `similar` or an integer 0…32.
    /// - Returns: nil for anything else.
    public init?(argument: String) {
        switch argument.lowercased() {
        case "same": self = .same
        case "similar": self = .similar
        default:
            guard argument.allSatisfy(\.isASCII), let n = Int(argument), (0...32).contains(n) else { return nil }
            self = .distance(n)
        }
    }

    /// The largest Hamming distance between hashes, 0…64.
    public var hashDistance: Int {
        switch self {
        case .same: return DuplicateThreshold.sameHashDistance
        case .similar: return 16
        case .distance(let n): return n
        }
    }

    /// The largest mean-chroma difference.
    public var colourDistance: Int {
        hashDistance <= DuplicateThreshold.sameHashDistance ? DuplicateThreshold.sameColourDistance : 12
    }

    /// `same`, `similar` or the number.
    public var name: String {
        switch self {
        case .same: return "same"
        case .similar: return "similar"
        case .distance(let n): return String(n)
        }
    }
}

/// Pairs of 64-bit hashes within a Hamming distance, by multi-index hashing (Norouzi, Punjani &
/// Fleet, "Fast Search in Hamming Space with Multi-Index Hashing", CVPR 2012): the hash is cut
/// into 4 blocks of 16 bits, each indexed in a table of 65,536 buckets (counting sort: two
/// arrays, no per-bucket allocation). By the pigeonhole principle two hashes within distance r
/// agree within ⌊r/4⌋ on at least one block, so each hash probes, in each table, the buckets
/// within ⌊r/4⌋ of its block (1 for r ≤ 3, 17 for r ≤ 7, 137 for r ≤ 11, 697 for r ≤ 15) and
/// verifies the full distance of what it finds. Chosen over a BK-tree because its cost per query
/// is a fixed number of bucket reads, not a tree walk whose pruning fades at radii above a few
/// bits, and the tables are flat arrays (4 × (256 KiB + 4 bytes a hash)); 16-bit blocks are
/// Norouzi's m = 64 / log₂ n for n near 65,536 and stay within a factor of two of the best for
/// 10,000…1,000,000 photos.
public enum HammingIndex {
    /// Every pair (i, j), i < j, of `hashes` whose Hamming distance is at most `radius`
    /// (0…64), each once, with the distance.
    /// - Parameters:
    ///   - hashes: the hashes.
    ///   - radius: the largest distance.
    ///   - accept: a further test of a pair found within `radius` (the chroma distance).
    /// - Returns: the pairs, by i then j.
    public static func pairs(
        _ hashes: [UInt64], within radius: Int, accept: (Int, Int) -> Bool = { _, _ in true }
    ) -> [(i: Int, j: Int, distance: Int)] {
        let n = hashes.count
        guard n > 1 else { return [] }
        let blocks = 4
        let sub = max(0, radius) / blocks
        // Keys within `sub` bits of 0: the XOR masks each probe applies.
        var masks: [UInt16] = [0]
        if sub >= 1 {
            var frontier: [(UInt16, Int)] = [(0, -1)]
            for _ in 0..<sub {
                var next: [(UInt16, Int)] = []
                for (mask, last) in frontier {
                    for bit in (last + 1)..<16 {
                        let m = mask | UInt16(1) << UInt16(bit)
                        masks.append(m)
                        next.append((m, bit))
                    }
                }
                frontier = next
            }
        }
        var tables: [(offsets: [Int32], items: [Int32])] = []
        for b in 0..<blocks {
            var offsets = [Int32](repeating: 0, count: 65_537)
            for h in hashes { offsets[Int(UInt16(truncatingIfNeeded: h >> UInt64(16 * b))) + 1] += 1 }
            for k in 0..<65_536 { offsets[k + 1] += offsets[k] }
            var fill = offsets
            var items = [Int32](repeating: 0, count: n)
            for (i, h) in hashes.enumerated() {
                let key = Int(UInt16(truncatingIfNeeded: h >> UInt64(16 * b)))
                items[Int(fill[key])] = Int32(i)
                fill[key] += 1
            }
            tables.append((offsets, items))
        }
        var result: [(i: Int, j: Int, distance: Int)] = []
        var seen = Set<Int>()
        for i in 0..<n {
            seen.removeAll(keepingCapacity: true)
            let h = hashes[i]
            for b in 0..<blocks {
                let key = UInt16(truncatingIfNeeded: h >> UInt64(16 * b))
                let table = tables[b]
                for mask in masks {
                    let k = Int(key ^ mask)
                    for slot in Int(table.offsets[k])..<Int(table.offsets[k + 1]) {
                        let j = Int(table.items[slot])
                        guard j > i else { continue }
                        let d = (h ^ hashes[j]).nonzeroBitCount
                        if d <= radius, seen.insert(j).inserted, accept(i, j) { result.append((i, j, d)) }
                    }
                }
            }
        }
        return result.sorted { ($0.i, $0.j) < ($1.i, $1.j) }
    }
}

/// One photo of a duplicate group.
public struct DuplicateMember {
    /// The photo.
    public var photo: PhotoRecord
    /// Hamming distance of its hash to the keeper's (0 for the keeper).
    public var distance: Int
    /// Mean-chroma distance to the keeper's.
    public var colourDistance: Int
}

/// Photos that are the same picture (or similar ones), with the one to keep.
public struct DuplicateGroup {
    /// The members, the keeper first, then by distance to it and uniqueName.
    public var members: [DuplicateMember]
    /// The largest hash distance between two members linked in the group (the group is the
    /// connected set of pairs within the threshold).
    public var distance: Int
    /// Why the keeper is kept: the first rule of `DuplicateKeeper` that sets it apart from the
    /// next member.
    public var reason: String

    /// The suggested keeper.
    public var keeper: PhotoRecord { members[0].photo }

    /// `{"keeper","reason","distance","members":[{"uniqueName","displayName","width","height","format","distance","colourDistance"}]}`.
    public var json: JSONValue {
        .object([
            ("keeper", .string(keeper.uniqueName)), ("reason", .string(reason)), ("distance", .int(distance)),
            (
                "members",
                .array(
                    members.map {
                        .object([
                            ("uniqueName", .string($0.photo.uniqueName)),
                            ("displayName", .string($0.photo.displayName)), ("width", .int($0.photo.width)),
                            ("height", .int($0.photo.height)), ("format", .string($0.photo.format.rawValue)),
                            ("distance", .int($0.distance)), ("colourDistance", .int($0.colourDistance))
                        ])
                    })
            )
        ])
    }
}

/// What `photos duplicates` found.
public struct DuplicateReport {
    /// The groups, by their keeper's uniqueName.
    public var groups: [DuplicateGroup] = []
    /// Photos selected by the filter.
    public var photos = 0
    /// Of them, those without a signature of the current algorithm (imported before it, videos,
    /// or synced from another library): `thumbnails --rebuild` computes them.
    public var withoutSignature = 0
    /// Of them, the low-information ones (near-uniform or tiny), never grouped.
    public var lowInformation = 0
}

/// A rule of the keeper chain (issue 27 items 2 and 3), as `--keep` names it.
public enum KeeperRule: String, CaseIterable, Sendable {
    /// More pixels (width × height, upright).
    case pixels
    /// A RAW original over a camera JPEG (a JPEG whose capture time came from its EXIF) over any
    /// other format.
    case raw
    /// The earliest capture time (photos without one after those with one).
    case earliest
    /// The earliest import.
    case firstImported = "first-imported"

    /// The default chain, in order: `pixels`, `raw`, `earliest`, `first-imported`.
    public static let defaultChain: [KeeperRule] = allCases

    /// `rules` first, then the rules of the default chain they leave out, in its order: the
    /// chain a `--keep` list stands for (each rule once).
    public static func chain(_ rules: [KeeperRule]) -> [KeeperRule] {
        var chain: [KeeperRule] = []
        for rule in rules + defaultChain where !chain.contains(rule) { chain.append(rule) }
        return chain
    }
}

/// The keeper rule of issue 27 item 2, in order: more pixels; then a RAW original over a camera
/// JPEG (a JPEG whose stored camera identity names a make: EXIF Make, XMP `tiff:Make`; issue 24
/// item 1) over any other format; then the earliest
/// capture time (photos without one after those with one); then the earliest import; then the
/// smaller uniqueName (so that the choice never depends on the order photos were read).
/// `duplicates --keep RULE,…` puts its rules first (`KeeperRule.chain`).
public enum DuplicateKeeper {
    /// 0 for RAW, 1 for a camera JPEG (a JPEG with a camera make), 2 otherwise.
    static func formatRank(_ p: PhotoRecord) -> Int {
        if p.format == .raw { return 0 }
        if p.format == .jpeg, p.camera?.hasMake == true { return 1 }
        return 2
    }

    /// The comparison of one rule: negative when a goes first, 0 when equal.
    static func compare(_ rule: KeeperRule, _ a: PhotoRecord, _ c: PhotoRecord) -> Int {
        switch rule {
        case .pixels: return b(c.width * c.height, a.width * a.height)
        case .raw: return b(formatRank(a), formatRank(c))
        case .earliest:
            switch (a.captureInstant, c.captureInstant) {
            case let (x?, y?): return x < y ? -1 : x > y ? 1 : 0
            case (.some, nil): return -1
            case (nil, .some): return 1
            case (nil, nil): return 0
            }
        case .firstImported: return b(a.importedAt, c.importedAt)
        }
    }

    static func b<T: Comparable>(_ x: T, _ y: T) -> Int { x < y ? -1 : x > y ? 1 : 0 }

    /// Orders `photos` keeper first by `rules` (`KeeperRule.chain`: the default chain unless
    /// `--keep` named rules), then by uniqueName; the reason names the rule that put the first
    /// before the second.
    /// - Returns: the photos in keeper order and the reason.
    public static func order(_ photos: [PhotoRecord], rules: [KeeperRule] = KeeperRule.defaultChain) -> (
        photos: [PhotoRecord], reason: String
    ) {
        let chain = KeeperRule.chain(rules)
        let sorted = photos.sorted { a, c in
            for rule in chain {
                let r = compare(rule, a, c)
                if r != 0 { return r < 0 }
            }
            return a.uniqueName < c.uniqueName
        }
        guard sorted.count > 1 else { return (sorted, "") }
        let (k, next) = (sorted[0], sorted[1])
        for rule in chain where compare(rule, k, next) != 0 {
            switch rule {
            case .pixels:
                return (sorted, "more pixels (\(k.width)×\(k.height) against \(next.width)×\(next.height))")
            case .earliest:
                return (sorted, "earliest capture (\(k.captureDate ?? "-") against \(next.captureDate ?? "none"))")
            case .firstImported:
                return (sorted, "earliest import (\(k.importedAt) against \(next.importedAt))")
            case .raw:
                let kind = formatRank(k) == 0 ? "a RAW original" : "a camera JPEG"
                return (
                    sorted, "\(kind) (RAW over camera JPEG over other formats; the next is \(next.format.rawValue))"
                )
            }
        }
        return (sorted, "smallest uniqueName (otherwise equal)")
    }
}

extension Library {
    /// Groups the photos `filter` selects that are the same picture (or, with a looser
    /// `threshold`, similar ones) by their perceptual signatures (issue 27 item 2): pairs within
    /// the threshold found by `HammingIndex` (not quadratic), groups the connected sets of
    /// pairs, each ordered by `DuplicateKeeper`. Low-information photos and photos without a
    /// signature are counted and never grouped. Reads only.
    /// - Parameters:
    ///   - filter: the photos (as `list`); its sort and limit are not used.
    ///   - threshold: how close.
    ///   - rules: the keeper chain (`KeeperRule.chain`; `--keep RULE,…`).
    /// - Returns: the groups and counts.
    /// - Throws: the store's error; `LibraryError` for an unknown share.
    public func findDuplicates(
        matching filter: PhotoFilter, threshold: DuplicateThreshold, rules: [KeeperRule] = KeeperRule.defaultChain
    ) throws -> DuplicateReport {
        var report = DuplicateReport()
        let signatures = try metadataStore.perceptualSignatures()
        var photos: [PhotoRecord] = []
        var hashes: [UInt64] = []
        var chroma: [PerceptualSignature] = []
        var selection = filter
        selection.limit = nil
        try forEachPhoto(matching: selection) { photo in
            report.photos += 1
            guard let signature = signatures[photo.rowID] else {
                report.withoutSignature += 1
                return
            }
            guard !signature.lowInformation else {
                report.lowInformation += 1
                return
            }
            photos.append(photo)
            hashes.append(signature.hash)
            chroma.append(signature)
        }
        let colour = threshold.colourDistance
        let pairs = HammingIndex.pairs(hashes, within: threshold.hashDistance) {
            chroma[$0].colourDistance(to: chroma[$1]) <= colour
        }
        // Union-find over the pairs (path halving).
        var parent = Array(0..<photos.count)
        func root(_ x: Int) -> Int {
            var x = x
            while parent[x] != x {
                parent[x] = parent[parent[x]]
                x = parent[x]
            }
            return x
        }
        var largest: [Int: Int] = [:]
        for pair in pairs {
            let (a, c) = (root(pair.i), root(pair.j))
            if a != c { parent[max(a, c)] = min(a, c) }
        }
        for pair in pairs { largest[root(pair.i), default: 0] = max(largest[root(pair.i)] ?? 0, pair.distance) }
        var members: [Int: [Int]] = [:]
        for pair in pairs {
            members[root(pair.i), default: []].append(pair.i)
            members[root(pair.i), default: []].append(pair.j)
        }
        for (r, list) in members {
            let indexes = Array(Set(list))
            let ordered = DuplicateKeeper.order(indexes.map { photos[$0] }, rules: rules)
            let index = Dictionary(uniqueKeysWithValues: indexes.map { (photos[$0].uniqueName, $0) })
            guard let keeperIndex = index[ordered.photos[0].uniqueName] else { continue }
            let k = chroma[keeperIndex]
            var group = ordered.photos.map { p -> DuplicateMember in
                let s = chroma[index[p.uniqueName] ?? keeperIndex]
                return DuplicateMember(
                    photo: p, distance: k.hashDistance(to: s), colourDistance: k.colourDistance(to: s))
            }
            let keeper = group.removeFirst()
            group.sort { ($0.distance, $0.photo.uniqueName) < ($1.distance, $1.photo.uniqueName) }
            report.groups.append(
                DuplicateGroup(members: [keeper] + group, distance: largest[r] ?? 0, reason: ordered.reason))
        }
        report.groups.sort { $0.keeper.uniqueName < $1.keeper.uniqueName }
        return report
    }
}
