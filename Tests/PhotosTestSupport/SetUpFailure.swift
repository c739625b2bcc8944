import Foundation

/// What a test throws when its own set-up fails — a file of the repository's `Samples/` is
/// missing, the command it means to interrupt finished first, its input could not be made —
/// so that the test fails, with this message, instead of being skipped (issue 30 item 7). A
/// skip (`XCTSkip`) is only for a documented precondition outside the repository that is
/// absent: `../shared/corpus`, `PHOTOS_TEST_DATABASE_URL`, root, a tool or a kernel feature.
public struct SetUpFailure: Error, CustomStringConvertible {
    /// `set-up failed: ` and what failed.
    public let description: String

    /// - Parameter message: what failed, naming the file or step.
    public init(_ message: String) { description = "set-up failed: " + message }
}

/// Checks that every file `names` (paths relative to `Samples/`) is in the repository.
/// - Throws: `SetUpFailure` naming the first one missing.
public func requireSamples(_ names: [String]) throws {
    for name in names where !FileManager.default.fileExists(atPath: samplesDir + "/" + name) {
        throw SetUpFailure("Samples/\(name) is missing from the repository")
    }
}
