import Foundation
import XCTest
import PhotosTestSupport
@testable import PhotosImaging

/// Issue 31 B14 and B15: HEIF files of a few hundred bytes crashed libheif 1.15 in the importing
/// process (an item deriving from itself, two grids deriving from each other: stack overflow; a
/// grid whose output is far larger than its tiles, a grid of grids: out-of-bounds writes), and
/// `ispe` rewritten to 64×64 over a coded stream of its real size made a 15 KB HEIC take 463 MB.
/// heifcheck.c walks the item structure and the coded streams' own headers before libheif is
/// handed a byte. Each file here is built from the coded data of a real HEIC or AVIF (encoded by
/// libheif's x265/aom here) in a HEIF structure of the test's making, and each verdict is the
/// decoder's, in process.
final class HEIFStructureAttackTests: XCTestCase {
    typealias Item = HEIFBuilder.Item

    /// A real coded image: HEVC (hvcC) or AV1 (av1C) of `width` × `height`, its data and config.
    struct Coded {
        var type: String
        var config: [UInt8]
        var data: [UInt8]
        var width: Int
        var height: Int
        func item(_ id: Int, ispe: (Int, Int)? = nil) -> Item {
            Item(
                id: id, type: type, data: data,
                properties: [config, HEIFBuilder.ispe(ispe?.0 ?? width, ispe?.1 ?? height)])
        }
    }

    static func coded(av1: Bool = false, width: Int = 480, height: Int = 320) throws -> Coded {
        let pixels = [UInt8](repeating: 0, count: width * height * 3).enumerated().map { UInt8(($0.offset / 3) % 251) }
        let file = try HEIFWebPTests.heif(av1: av1, pixels: pixels, width: width, height: height)
        return Coded(
            type: av1 ? "av01" : "hvc1", config: try HEIFBuilder.firstBox(av1 ? "av1C" : "hvcC", in: file),
            data: try HEIFBuilder.codedData(file), width: width, height: height)
    }

    static func verdict(_ file: [UInt8]) -> ImageError? {
        do {
            _ = try HEIFWebPTests.thumbnail(file)
            return nil
        } catch {
            return error as? ImageError
        }
    }

    // MARK: the structure the builder makes decodes (positive controls)

    func testBuiltSingleImageAndGridDecode() throws {
        let hevc = try Self.coded()
        let single = HEIFBuilder.build(brand: "heic", primary: 1, items: [hevc.item(1)], references: [])
        let (one, _) = try HEIFWebPTests.thumbnail(single)
        XCTAssertEqual([one.width, one.height], [480, 320])
        // A 2×2 grid of four tiles (the same coded data each), output 900×600 (cropped from 960×640).
        let tiles = (1...4).map { hevc.item($0) }
        let grid = Item(
            id: 10, type: "grid", data: HEIFBuilder.grid(rows: 2, columns: 2, width: 900, height: 600),
            properties: [HEIFBuilder.ispe(900, 600)])
        let file = HEIFBuilder.build(
            brand: "heic", primary: 10, items: tiles + [grid], references: [("dimg", 10, [1, 2, 3, 4])])
        let (result, _) = try HEIFWebPTests.thumbnail(file)
        XCTAssertEqual([result.width, result.height], [900, 600])
        let av1 = try Self.coded(av1: true)
        let (avif, _) = try HEIFWebPTests.thumbnail(
            HEIFBuilder.build(brand: "avif", primary: 1, items: [av1.item(1)], references: []))
        XCTAssertEqual([avif.width, avif.height], [480, 320])
    }

    /// An odd-sized image, which libheif's encoder writes as a 1x1 grid of a tile one pixel
    /// larger (what heif-enc made of the bench corpus's 6028x3391 photo), decodes.
    func testAnOddSizedImageOfLibheifsEncoderDecodes() throws {
        let (width, height) = (301, 201)
        let pixels = [UInt8](repeating: 128, count: width * height * 3)
        let file = try HEIFWebPTests.heif(pixels: pixels, width: width, height: height)
        let (result, _) = try HEIFWebPTests.thumbnail(file)
        XCTAssertEqual([result.width, result.height], [width, height])
    }

    // MARK: B14: references

    func testAnItemDerivingFromItselfIsRefused() throws {
        let hevc = try Self.coded()
        let grid = Item(
            id: 10, type: "grid", data: HEIFBuilder.grid(rows: 1, columns: 1, width: 480, height: 320),
            properties: [HEIFBuilder.ispe(480, 320)])
        let file = HEIFBuilder.build(
            brand: "heic", primary: 10, items: [hevc.item(1), grid], references: [("dimg", 10, [10])])
        XCTAssertLessThan(file.count, 1000 + hevc.data.count)
        XCTAssertEqual(Self.verdict(file), .corrupt("HEIF file is corrupt: item 10 references itself (iref dimg)"))
    }

    func testTwoGridsDerivingFromEachOtherAreRefused() throws {
        let hevc = try Self.coded()
        let a = Item(
            id: 10, type: "grid", data: HEIFBuilder.grid(rows: 1, columns: 1, width: 480, height: 320),
            properties: [HEIFBuilder.ispe(480, 320)])
        var b = a
        b.id = 11
        let file = HEIFBuilder.build(
            brand: "heic", primary: 10, items: [hevc.item(1), a, b],
            references: [("dimg", 10, [11]), ("dimg", 11, [10])])
        XCTAssertEqual(
            Self.verdict(file),
            .corrupt("HEIF file is corrupt: item 10 references itself through other items (a cycle in iref)"))
        // The same cycle through a thumbnail reference: tile 1 is the thumbnail of grid 10.
        let g = Item(
            id: 10, type: "grid", data: HEIFBuilder.grid(rows: 1, columns: 1, width: 480, height: 320),
            properties: [HEIFBuilder.ispe(480, 320)])
        let thumb = HEIFBuilder.build(
            brand: "heic", primary: 10, items: [hevc.item(1), g], references: [("dimg", 10, [1]), ("thmb", 1, [10])])
        XCTAssertEqual(
            Self.verdict(thumb),
            .corrupt("HEIF file is corrupt: item 1 references itself through other items (a cycle in iref)"))
    }

    func testAGridOfGridsIsRefused() throws {
        let hevc = try Self.coded()
        let inner = Item(
            id: 10, type: "grid", data: HEIFBuilder.grid(rows: 1, columns: 1, width: 480, height: 320),
            properties: [HEIFBuilder.ispe(480, 320)])
        let outer = Item(
            id: 20, type: "grid", data: HEIFBuilder.grid(rows: 1, columns: 2, width: 960, height: 320),
            properties: [HEIFBuilder.ispe(960, 320)])
        let file = HEIFBuilder.build(
            brand: "heic", primary: 20, items: [hevc.item(1), inner, outer],
            references: [("dimg", 10, [1]), ("dimg", 20, [10, 10])])
        XCTAssertEqual(
            Self.verdict(file),
            .corrupt("HEIF file is corrupt: tile 10 of grid 20 is not a coded image (a grid of derived images)"))
    }

    func testAGridLargerThanItsTilesOrNotMatchingThemIsRefused() throws {
        let hevc = try Self.coded()
        func file(_ payload: [UInt8], ispe: (Int, Int), tiles: [Int]) -> [UInt8] {
            let grid = Item(id: 10, type: "grid", data: payload, properties: [HEIFBuilder.ispe(ispe.0, ispe.1)])
            return HEIFBuilder.build(
                brand: "heic", primary: 10, items: [hevc.item(1), grid], references: [("dimg", 10, tiles)])
        }
        // Output 4000×4000 from one 480×320 tile: libheif wrote past the tile into its output.
        XCTAssertEqual(
            Self.verdict(
                file(HEIFBuilder.grid(rows: 1, columns: 1, width: 4000, height: 4000), ispe: (4000, 4000), tiles: [1])),
            .corrupt("HEIF file is corrupt: grid 10's output is larger than its 1 tiles cover"))
        // The grid's output and its ispe disagree (ispe small, output large): the budget read ispe.
        XCTAssertEqual(
            Self.verdict(
                file(
                    HEIFBuilder.grid(rows: 2, columns: 2, width: 960, height: 640), ispe: (64, 64), tiles: [1, 1, 1, 1])
            ),
            .corrupt("HEIF file is corrupt: grid 10's output is 960x640, its ispe says 64x64"))
        // Three tiles for a 2×2 grid.
        XCTAssertEqual(
            Self.verdict(
                file(HEIFBuilder.grid(rows: 2, columns: 2, width: 960, height: 640), ispe: (960, 640), tiles: [1, 1, 1])
            ),
            .corrupt("HEIF file is corrupt: grid 10 has 3 tiles, not rows x columns"))
        // A 480x320 tile for a 64x64 output: a decode of 480x320 budgeted as 64x64.
        XCTAssertEqual(
            Self.verdict(
                file(HEIFBuilder.grid(rows: 1, columns: 1, width: 64, height: 64), ispe: (64, 64), tiles: [1])),
            .corrupt("HEIF file is corrupt: the tiles of grid 10 are far larger than its output"))
        // A column of tiles wholly outside the output.
        XCTAssertEqual(
            Self.verdict(
                file(HEIFBuilder.grid(rows: 1, columns: 3, width: 900, height: 320), ispe: (900, 320), tiles: [1, 1, 1])
            ),
            .corrupt("HEIF file is corrupt: the tiles of grid 10 are far larger than its output"))
        // A payload of 5 bytes.
        XCTAssertEqual(
            Self.verdict(file([0, 0, 0, 0, 1], ispe: (480, 320), tiles: [1])),
            .corrupt("HEIF file is corrupt: grid 10 has a short or unknown ImageGrid payload"))
    }

    func testTilesOfDifferentSizesAreRefused() throws {
        let big = try Self.coded(), small = try Self.coded(width: 240, height: 160)
        let grid = Item(
            id: 10, type: "grid", data: HEIFBuilder.grid(rows: 1, columns: 2, width: 720, height: 320),
            properties: [HEIFBuilder.ispe(720, 320)])
        let file = HEIFBuilder.build(
            brand: "heic", primary: 10, items: [small.item(1), big.item(2), grid], references: [("dimg", 10, [1, 2])])
        XCTAssertEqual(
            Self.verdict(file), .corrupt("HEIF file is corrupt: the tiles of grid 10 are not all one size (tile 2)"))
    }

    func testReferenceChainsDeeperThanTheLimitAreRefused() throws {
        let hevc = try Self.coded()
        var items = [hevc.item(1)]
        var references: [(String, Int, [Int])] = []
        for k in 0..<6 {
            items.append(Item(id: 10 + k, type: "iden", data: [], properties: [HEIFBuilder.ispe(480, 320)]))
            references.append(("dimg", 10 + k, [k == 5 ? 1 : 11 + k]))
        }
        let file = HEIFBuilder.build(brand: "heic", primary: 10, items: items, references: references)
        XCTAssertEqual(
            Self.verdict(file), .corrupt("HEIF file is corrupt: item references nest deeper than 4 (at item 15)"))
    }

    func testMissingItemsAndDataOutsideTheFileAreRefused() throws {
        let hevc = try Self.coded()
        XCTAssertEqual(
            Self.verdict(HEIFBuilder.build(brand: "heic", primary: 9, items: [hevc.item(1)], references: [])),
            .corrupt("HEIF file is corrupt: the primary item 9 (pitm) does not exist"))
        XCTAssertEqual(
            Self.verdict(
                HEIFBuilder.build(brand: "heic", primary: 1, items: [hevc.item(1)], references: [("auxl", 1, [7])])),
            .corrupt("HEIF file is corrupt: item 1 references item 7, which does not exist (iref auxl)"))
        XCTAssertEqual(
            Self.verdict(
                HEIFBuilder.build(
                    brand: "heic", primary: 1, items: [hevc.item(1)], references: [], extentLength: [1: 1 << 30])
            ),
            .corrupt("HEIF file is corrupt: data of item 1 runs past the end of the file"))
        var cut = HEIFBuilder.build(brand: "heic", primary: 1, items: [hevc.item(1)], references: [])
        cut.removeLast(hevc.data.count / 2)
        XCTAssertEqual(
            Self.verdict(cut), .corrupt("HEIF file is corrupt: data of item 1 runs past the end of the file"))
    }

    // MARK: B15: the size that bounds memory is the coded stream's

    func testIspeRewrittenToASmallSizeIsRefusedForHEVCAndAV1() throws {
        for av1 in [false, true] {
            let coded = try Self.coded(av1: av1)
            let file = HEIFBuilder.build(
                brand: av1 ? "avif" : "heic", primary: 1, items: [coded.item(1, ispe: (64, 64))], references: [])
            let stream =
                av1 ? "AV1 sequence header codes 480x320 pixels" : "HEVC SPS codes 480x320 pixels (480x320 shown)"
            XCTAssertEqual(
                Self.verdict(file), .corrupt("HEIF file is corrupt: item 1's \(stream), its ispe says 64x64"),
                "av1 \(av1)")
        }
        // The real encoder's file, its ispe rewritten in place (what the attack did).
        for av1 in [false, true] {
            var file = try HEIFWebPTests.heif(av1: av1)
            let at = try XCTUnwrap(file.firstRange(of: Array("ispe".utf8))).upperBound + 4
            file.replaceSubrange(at..<(at + 8), with: HEIFBuilder.u32(64) + HEIFBuilder.u32(64))
            XCTAssertEqual(Self.verdict(file)?.isCorrupt, true, "av1 \(av1)")
        }
    }

    /// An SPS in the item's own data (which the decoder takes over hvcC's) coding another size.
    func testAnInBandSPSOfAnotherSizeIsRefused() throws {
        let big = try Self.coded(), small = try Self.coded(width: 240, height: 160)
        // hvcC's NAL arrays (ISO/IEC 14496-15 §8.3.3.1.2): the SPS (type 33) of the big one.
        let config = Array(big.config.dropFirst(8))
        var at = 23
        var sps: [UInt8] = []
        for _ in 0..<Int(config[22]) {
            let type = config[at] & 0x3F
            let count = Int(config[at + 1]) << 8 | Int(config[at + 2])
            at += 3
            for _ in 0..<count {
                let length = Int(config[at]) << 8 | Int(config[at + 1])
                if type == 33 { sps = Array(config[(at + 2)..<(at + 2 + length)]) }
                at += 2 + length
            }
        }
        XCTAssertFalse(sps.isEmpty)
        var item = small.item(1)
        item.data = HEIFBuilder.u32(sps.count) + sps + big.data
        let file = HEIFBuilder.build(brand: "heic", primary: 1, items: [item], references: [])
        XCTAssertEqual(
            Self.verdict(file),
            .corrupt(
                "HEIF file is corrupt: item 1's HEVC SPS codes 480x320 pixels (480x320 shown), its ispe says 240x160"))
    }

    func testAnAlphaPlaneOfAnotherSizeIsRefused() throws {
        let big = try Self.coded(), small = try Self.coded(width: 240, height: 160)
        var alpha = small.item(2)
        alpha.properties.append(HEIFBuilder.fullBox("auxC", Array("urn:mpeg:hevc:2015:auxid:1".utf8) + [0]))
        let file = HEIFBuilder.build(
            brand: "heic", primary: 1, items: [big.item(1), alpha], references: [("auxl", 2, [1])])
        XCTAssertEqual(
            Self.verdict(file), .corrupt("HEIF file is corrupt: alpha plane 2 is not the size of its image 1"))
    }

    /// Every one-byte change of a small grid file, and every truncation: a verdict, no crash.
    func testMutationsOfAGridFileGiveAVerdict() throws {
        let hevc = try Self.coded(width: 64, height: 64)
        let grid = Item(
            id: 10, type: "grid", data: HEIFBuilder.grid(rows: 1, columns: 2, width: 128, height: 64),
            properties: [HEIFBuilder.ispe(128, 64)])
        let file = HEIFBuilder.build(
            brand: "heic", primary: 10, items: [hevc.item(1), hevc.item(2), grid], references: [("dimg", 10, [1, 2])])
        XCTAssertNil(Self.verdict(file))
        let structure = file.count - hevc.data.count * 2
        var refused = 0
        for position in 0..<structure {
            for value: UInt8 in [0x00, 0xFF, file[position] &+ 1] where value != file[position] {
                var mutated = file
                mutated[position] = value
                if Self.verdict(mutated) != nil { refused += 1 }
            }
        }
        for length in stride(from: 0, to: structure, by: 7) where Self.verdict(Array(file.prefix(length))) != nil {
            refused += 1
        }
        XCTAssertGreaterThan(refused, structure)
    }
}

extension ImageError {
    var isCorrupt: Bool {
        if case .corrupt = self { return true }
        return false
    }
}
