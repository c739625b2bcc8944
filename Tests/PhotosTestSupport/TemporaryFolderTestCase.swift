import Foundation
import XCTest

/// Base of the tests that work in a temporary folder: a fresh `dir` per test, removed after it
/// (with the PostgreSQL schemas of the libraries made inside it, `TestDatabase.dropSchemas`).
open class TemporaryFolderTestCase: XCTestCase {
    /// The test's own temporary folder, made fresh by setUp and removed by tearDown.
    public var dir = ""

    /// Folder-name label of the test's temporary folder.
    open var label: String { "photos-test" }

    /// Makes `dir`. Subclasses that do more call `super.setUpWithError()` first.
    /// - Throws: the error of creating the folder.
    open override func setUpWithError() throws {
        dir = NSTemporaryDirectory() + "\(label)-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    }
    open override func tearDown() {
        TestDatabase.dropSchemas(under: dir)
        try? FileManager.default.removeItem(atPath: dir)
    }
}
