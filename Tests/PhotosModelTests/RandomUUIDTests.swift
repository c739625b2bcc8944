import Foundation
import PhotosModel
import XCTest

/// The library's object identities are RFC 9562 version 4 UUIDs from a buffered CSPRNG
/// (`RandomUUID`): each distinct, with the version and variant bits set, in the forms the
/// catalog stores (photos upper case, other objects lower case).
final class RandomUUIDTests: XCTestCase {
    func testTenThousandAreDistinctVersionFourVariantOne() {
        // 10,000 UUIDs: the 4 KiB buffer is refilled 39 times.
        var seen = Set<UUID>()
        var bits = [Int](repeating: 0, count: 128)
        for _ in 0..<10_000 {
            let id = RandomUUID.make()
            seen.insert(id)
            let b = withUnsafeBytes(of: id.uuid) { Array($0) }
            XCTAssertEqual(b[6] >> 4, 4, "version (RFC 9562 §4.2)")
            XCTAssertEqual(b[8] >> 6, 0b10, "variant (RFC 9562 §4.1)")
            for i in 0..<128 where b[i / 8] & (0x80 >> (i % 8)) != 0 { bits[i] += 1 }
        }
        XCTAssertEqual(seen.count, 10_000)
        // Every bit but the 6 fixed ones is set in about half of them (mean 5,000, sd 50).
        let fixed: Set<Int> = [48, 49, 50, 51, 64, 65]
        for i in 0..<128 where !fixed.contains(i) {
            XCTAssertTrue((4_600...5_400).contains(bits[i]), "bit \(i): \(bits[i])")
        }
    }

    func testTheStringFormsAreTheCatalogs() {
        let upper = RandomUUID.make().uuidString
        XCTAssertEqual(upper.count, 36)
        XCTAssertEqual(upper, upper.uppercased())
        XCTAssertEqual(Array(upper)[14], "4")
        let lower = newObjectUUID()
        XCTAssertEqual(lower, lower.lowercased())
        XCTAssertNotNil(UUID(uuidString: lower))
        XCTAssertEqual(Array(lower)[14], "4")
    }
}
