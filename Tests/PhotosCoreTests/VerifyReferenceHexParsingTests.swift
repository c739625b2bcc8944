import XCTest
@testable import PhotosCore

/// A content address's 64 digits are taken (`VerifyReferences.Address(hex:)`) exactly when each
/// is a lowercase hex digit, with its value: every byte value at the first, a middle and the last
/// position of a word, among digits of every value.
final class VerifyReferenceHexParsingTests: XCTestCase {
    func testEveryByteValueAtEachPlaceIsTakenOnlyAsALowercaseHexDigit() {
        let digits = Array("0123456789abcdef".utf8)
        let base = (0..<64).map { digits[($0 * 7) % 16] }
        for position in [0, 5, 15, 16, 37, 63] {
            for byte in 0...255 {
                var hex = base
                hex[position] = UInt8(byte)
                let address = hex.withUnsafeBufferPointer { VerifyReferences.Address(hex: $0) }
                guard let value = digits.firstIndex(of: UInt8(byte)) else {
                    XCTAssertNil(address, "byte \(byte) at \(position)")
                    continue
                }
                guard let address else {
                    XCTFail("byte \(byte) at \(position) refused")
                    continue
                }
                let words = [address.words.0, address.words.1, address.words.2, address.words.3]
                // Each digit's nibble where it stands: four bits, most significant first.
                for (i, digit) in hex.enumerated() {
                    let expected = UInt64(i == position ? value : digits.firstIndex(of: digit) ?? 99)
                    XCTAssertEqual((words[i / 16] >> UInt64(60 - 4 * (i % 16))) & 0xF, expected, "digit \(i)")
                }
            }
        }
    }
}
