import Foundation
import PhotosCore
import PhotosTestSupport
import XCTest

@testable import PhotosCLI

/// A process that opened a library before `photos catalog move` switched the folder to another
/// catalog (it waited for the move's write lock, or was reading) must not write into the old
/// catalog, where the write would be lost: every write checks, under the lock, that the folder
/// still points at the catalog it opened, and is refused with `LibraryError.catalogMoved` (75).
final class WritesAfterACatalogMoveAreRefusedTests: BinaryTestCase {
    override var label: String { "photos-write-after-move" }

    private var drops: [@Sendable () -> Void] = []

    override func tearDown() {
        for drop in drops { drop() }
        drops = []
        super.tearDown()
    }

    private func ok(_ args: [String], file: StaticString = #filePath, line: UInt = #line) throws {
        let r = try run(args)
        XCTAssertEqual(r.status, 0, "\(args): \(r.stderr)", file: file, line: line)
    }

    private func assertCatalogMoved(_ library: Library, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try library.write {}, file: file, line: line) { error in
            guard case .catalogMoved(let root)? = error as? LibraryError else {
                return XCTFail("expected catalogMoved, got \(error)", file: file, line: line)
            }
            XCTAssertEqual(root, library.root, file: file, line: line)
            XCTAssertEqual(CLIError(error, libraryPath: root).status, .tempFail, file: file, line: line)
        }
    }

    /// The folder's SQLite catalog renamed aside and a new one made in its place (what a move
    /// back to SQLite leaves): the process holding the old file may not write.
    func testAWriterHoldingAReplacedSQLiteCatalogIsRefused() throws {
        try TestDatabase.requireSQLite(
            because: "it renames photos.sqlite aside under a process that has it open (a move back to SQLite)")
        let lib = dir + "/lib"
        try ok(["--library", lib, "import", "-q", samplesDir])
        guard FileManager.default.fileExists(atPath: lib + "/photos.sqlite") else {
            throw SetUpFailure("the import made no SQLite catalog in \(lib)")
        }
        let stale = try CompositionRoot.openLibrary(root: lib, create: false, busyTimeout: 5)
        try stale.write {} // the folder still uses it
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: lib + "/photos.sqlite" + suffix)
        {
            XCTAssertEqual(rename(lib + "/photos.sqlite" + suffix, lib + "/photos.sqlite.moved-1" + suffix), 0)
        }
        try ok(["--library", lib, "init"])
        assertCatalogMoved(stale)
        // A fresh open uses and writes the new catalog.
        let fresh = try CompositionRoot.openLibrary(root: lib, create: false, busyTimeout: 5)
        try fresh.write {}
    }

    /// A real move, both directions: a library object opened before each one is refused after
    /// it, and the old catalog gets no new history transaction.
    func testAWriterOpenedBeforeAMoveIsRefusedInBothDirections() throws {
        let made = try TestDatabase.makeSchema()
        drops.append(made.drop)
        let lib = dir + "/lib"
        try ok(["--library", lib, "import", "-q", samplesDir])
        let startsOnSQLite = FileManager.default.fileExists(atPath: lib + "/photos.sqlite")
        let targets = startsOnSQLite ? [made.connectionString, "sqlite"] : ["sqlite", made.connectionString]
        for target in targets {
            let stale = try CompositionRoot.openLibrary(root: lib, create: false, busyTimeout: 5)
            try stale.write {}
            let before = try stale.currentHistoryToken()
            try ok(["--library", lib, "-q", "catalog", "move", "--to", target])
            assertCatalogMoved(stale)
            XCTAssertEqual(try stale.currentHistoryToken(), before)
            let fresh = try CompositionRoot.openLibrary(root: lib, create: false, busyTimeout: 5)
            try fresh.write {}
        }
    }
}
