import Foundation
import PhotosTestSupport
import XCTest

/// `kill -9` while `photos sync --apply` runs (issue 11): the library is either as before or as
/// after the changeset, `verify` finds nothing but orphan originals (which `--repair` removes),
/// and the same apply run again completes.
final class SyncApplyCrashTests: BinaryTestCase {
    override var label: String { "photos-sync-crash" }

    func testKillDashNineDuringApplyLeavesBeforeOrAfterAndApplyCompletes() throws {
        let (input, _) = try makeInput(copies: 6)
        let owner = dir + "/owner", changeset = dir + "/cs"
        XCTAssertEqual(try run(["--library", owner, "import", "-q", "--tag", "Trip", input]).status, 0)
        XCTAssertEqual(try run(["--library", owner, "sync", "--export", changeset]).status, 0)
        // What a complete apply gives, on a library of its own.
        let reference = dir + "/reference"
        XCTAssertEqual(try run(["--library", reference, "init", "-q"]).status, 0)
        XCTAssertEqual(try run(["--library", reference, "sync", "--apply", changeset]).status, 0)
        let after = try CanonicalDump.of(reference)
        var outcomes: [String] = []
        for (i, delay) in [0.02, 0.1, 0.25, 0.5, 1.0].enumerated() {
            let lib = dir + "/peer\(i)"
            XCTAssertEqual(try run(["--library", lib, "init", "-q"]).status, 0)
            let before = try CanonicalDump.of(lib)
            try killDashNine(["--library", lib, "sync", "--apply", changeset], after: delay)
            let verify = try run(["--library", lib, "verify", "--json"])
            let report = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(verify.stdout.utf8)) as? [String: Any])
            let kinds = Set(((report["details"] as? [[String: Any]]) ?? []).compactMap { $0["kind"] as? String })
            XCTAssertTrue(kinds.isSubset(of: ["orphan-file", "temporary-file"]), "kill at \(delay) s: \(verify.stdout)")
            XCTAssertEqual(try run(["--library", lib, "verify", "--repair", "-q"]).status, 0)
            let state = try CanonicalDump.of(lib)
            XCTAssertTrue(state == before || state == after, "kill at \(delay) s left a state between before and after")
            outcomes.append(state == before ? "before" : "after")
            let again = try run(["--library", lib, "sync", "--apply", changeset])
            XCTAssertEqual(again.status, 0, again.stderr)
            XCTAssertEqual(try CanonicalDump.of(lib), after, "apply after the kill at \(delay) s")
            XCTAssertEqual(try run(["--library", lib, "verify"]).status, 0)
        }
        XCTAssertTrue(outcomes.contains("before"), "no kill landed before the commit: \(outcomes)")
    }
}
