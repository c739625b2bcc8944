import Foundation
import PhotosCore
import XCTest

/// Base class for in-process import tests: a temporary folder per test, a library at
/// `tmp/lib`, and `runImport` with two workers (the default the tests were written for).
open class ImportTestCase: XCTestCase {
    /// This test's temporary folder, removed after it.
    public var tmp: TempDir!

    override open func setUpWithError() throws {
        try super.setUpWithError()
        tmp = try TempDir()
    }

    override open func tearDown() {
        tmp.cleanup()
        super.tearDown()
    }

    /// Creates (or opens) the library at `tmp/lib`.
    /// - Throws: what `Library.init` throws.
    public func makeLibrary() throws -> Library { try Library(root: tmp.file("lib"), create: true) }

    /// Imports `paths` into `tmp/lib` (into `library` when given) with `--jobs 2`, after
    /// `configure` adjusts the options.
    /// - Throws: what `Importer.run` throws.
    public func runImport(_ library: Library?, _ paths: [String], configure: (inout ImportOptions) -> Void = { _ in })
        throws -> ImportSummary
    {
        var options = ImportOptions(paths: paths)
        options.jobs = 2
        configure(&options)
        return try Importer(library: library, libraryRoot: tmp.file("lib"), options: options).run()
    }
}
