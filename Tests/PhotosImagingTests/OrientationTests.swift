import XCTest
@testable import PhotosImaging

final class OrientationTests: XCTestCase {
    /// Stored 2 wide × 3 high, pixel value = letter:   a b / c d / e f
    let stored: [Character] = ["a", "b", "c", "d", "e", "f"]

    func render(_ orientation: Int) throws -> (Int, Int, String) {
        let rgb = stored.flatMap { c -> [UInt8] in
            let v = UInt8(c.asciiValue!); return [v, v, v]
        }
        let out = try Orientation(exif: orientation).apply(to: try PixelBuffer(width: 2, height: 3, rgb: rgb))
        var text = ""
        for y in 0..<out.height {
            if y > 0 { text += "/" }
            for x in 0..<out.width { text.append(Character(UnicodeScalar(out.pixel(x: x, y: y).0))) }
        }
        return (out.width, out.height, text)
    }

    func testEachOrientation() throws {
        // EXIF 2.32 Table 4, as the transform that makes the image upright.
        let expected: [Int: (Int, Int, String)] = [
            1: (2, 3, "ab/cd/ef"),
            2: (2, 3, "ba/dc/fe"), // mirror horizontal
            3: (2, 3, "fe/dc/ba"), // rotate 180
            4: (2, 3, "ef/cd/ab"), // mirror vertical
            5: (3, 2, "ace/bdf"), // transpose
            6: (3, 2, "eca/fdb"), // rotate 90 CW
            7: (3, 2, "fdb/eca"), // transverse
            8: (3, 2, "bdf/ace") // rotate 90 CCW
        ]
        for orientation in 1...8 {
            let got = try render(orientation)
            let want = expected[orientation]!
            XCTAssertEqual(got.0, want.0, "orientation \(orientation) width")
            XCTAssertEqual(got.1, want.1, "orientation \(orientation) height")
            XCTAssertEqual(got.2, want.2, "orientation \(orientation)")
        }
    }

    func testOutOfRangeLeavesImage() throws {
        XCTAssertEqual(try render(0).2, "ab/cd/ef")
        XCTAssertEqual(try render(9).2, "ab/cd/ef")
    }
}
