import Foundation
import XCTest

@testable import PhotosCore

/// `VerifyReferences` keeps content addresses in sorted per-shard lists searched by bisection:
/// for any mix of references (repeated ones, neighbours differing in one digit, other forms)
/// its answers are those of a set of the reference strings; and `isContentAddress` compares
/// as the strings do.
final class VerifyReferenceLookupTests: XCTestCase {
    /// 64 lowercase hex digits from `generator`.
    private func randomHex(_ generator: inout SystemRandomNumberGenerator) -> String {
        let digits = Array("0123456789abcdef")
        return String((0..<64).map { _ in digits[Int(generator.next() % 16)] })
    }

    func testLookupsAnswerAsASetOfTheStrings() {
        var generator = SystemRandomNumberGenerator()
        var inserted: [String] = []
        for _ in 0..<3000 {
            let hex = randomHex(&generator)
            inserted.append(String(hex.prefix(2)) + "/" + hex)
        }
        // Repeated references, and one in another shard's folder (no content address).
        inserted += inserted.prefix(50)
        let misplaced = "ff/00" + String(repeating: "1", count: 62)
        inserted.append(misplaced)
        var references = VerifyReferences()
        for reference in inserted.shuffled() { references.insert(reference) }
        references.sortForLookups()
        let oracle = Set(inserted)
        // Listed files: every inserted one, each with its last digit changed, its digits in
        // upper case, and ones never inserted.
        var listed = inserted
        for reference in inserted.prefix(500) {
            let last = reference.last == "0" ? "1" : "0"
            listed.append(String(reference.dropLast()) + last)
            listed.append(reference.uppercased())
        }
        for _ in 0..<500 {
            let hex = randomHex(&generator)
            listed.append(String(hex.prefix(2)) + "/" + hex)
        }
        listed.append("00/" + String(repeating: "0", count: 64))
        listed.append("ff/" + String(repeating: "f", count: 64))
        var found = 0
        for reference in listed {
            let (shard, name) = (String(reference.prefix(2)), String(reference.dropFirst(3)))
            let contained = Array(name.utf8).withUnsafeBufferPointer {
                references.contains(shard: shard, name: $0)
            }
            XCTAssertEqual(contained, oracle.contains(reference), reference)
            if contained { found += 1 }
        }
        // Each inserted reference (the repeated ones listed twice), none of the changed ones.
        XCTAssertEqual(found, inserted.count)
        XCTAssertTrue(references.folders.contains("ff"))
    }

    func testContentAddressComparesAsTheStrings() {
        let sha = "ab" + String(repeating: "3c", count: 31)
        XCTAssertTrue(Library.isContentAddress("ab/" + sha, of: sha))
        XCTAssertFalse(Library.isContentAddress("ac/" + sha, of: sha))
        XCTAssertFalse(Library.isContentAddress("ab-" + sha, of: sha))
        XCTAssertFalse(Library.isContentAddress("ab/" + sha.dropLast() + "d", of: sha))
        XCTAssertFalse(Library.isContentAddress("ab/" + sha + "0", of: sha))
        XCTAssertFalse(Library.isContentAddress("ab/", of: ""))
        XCTAssertFalse(Library.isContentAddress("a/a", of: "a"))
        // A bridged (non-native) string takes the byte-by-byte way, with the same answers.
        let bridged = NSString(string: "ab/" + sha) as String
        XCTAssertTrue(Library.isContentAddress(bridged, of: sha))
        XCTAssertFalse(Library.isContentAddress(NSString(string: "ab/" + sha.uppercased()) as String, of: sha))
    }
}
