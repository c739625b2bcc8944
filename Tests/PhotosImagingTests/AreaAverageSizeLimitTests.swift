import CImageCodec
import XCTest

/// `pc_area_average` (resample.c) refuses, before reading a byte, sizes whose span offsets
/// would not fit an int or whose working floats (`src_height × width × 3`) would overflow a
/// size: with them it would allocate short buffers and read past the source.
final class AreaAverageSizeLimitTests: XCTestCase {
    /// Runs `pc_area_average` on a 1×1 source and output whose declared sizes are the ones given.
    private func result(sourceWidth: Int32, sourceHeight: Int32, width: Int32, height: Int32) -> Int32 {
        var source: [UInt8] = [10, 20, 30]
        var out: [UInt8] = [0, 0, 0]
        return pc_area_average(&source, sourceWidth, sourceHeight, &out, width, height)
    }

    func testRefusesSizesWhoseSpanCountsPassAnInt() {
        XCTAssertEqual(result(sourceWidth: 2_000_000_000, sourceHeight: 1, width: 200_000_000, height: 1), 0)
        XCTAssertEqual(result(sourceWidth: 1, sourceHeight: 2_000_000_000, width: 1, height: 200_000_000), 0)
        XCTAssertEqual(result(sourceWidth: Int32.max, sourceHeight: 1, width: 1, height: 1), 0)
    }

    func testRefusesWorkingFloatsWhoseByteCountOverflows() {
        // 1,431,586,686 rows × 1,073,793,636 columns × 3 × 4 bytes is 2^64 + 11,936: wrapped,
        // an 11,936-byte buffer that the horizontal pass would write gigabytes into.
        XCTAssertEqual(result(sourceWidth: 1, sourceHeight: 1_431_586_686, width: 1_073_793_636, height: 1), 0)
    }

    func testStillResamplesOrdinarySizes() {
        var source: [UInt8] = [0, 0, 0, 200, 100, 50]
        var out: [UInt8] = [0, 0, 0]
        XCTAssertEqual(pc_area_average(&source, 2, 1, &out, 1, 1), 1)
        XCTAssertEqual(out, [100, 50, 25])
    }
}
