import Foundation
import PhotosCore
import PhotosSQLite
import PhotosTestSupport
import XCTest

/// `Library.init` says what went wrong as a typed `LibraryError` naming the library, never with
/// an exit status (that is the CLI's).
final class LibraryOpenErrorTests: TemporaryFolderTestCase {
    func testAMissingLibraryIsNoLibraryAndNothingIsCreated() {
        let root = dir + "/missing"
        XCTAssertThrowsError(try Library(root: root, create: false)) {
            guard case .noLibrary(let library)? = $0 as? LibraryError else { return XCTFail("\($0)") }
            XCTAssertEqual(library, root)
        }
        XCTAssertThrowsError(try Library(root: root, create: true, dryRun: true)) {
            guard case .noLibrary? = $0 as? LibraryError else { return XCTFail("a dry run creates nothing: \($0)") }
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: root))
    }

    func testAFileInTheWayIsCannotCreateNamingIt() throws {
        let file = dir + "/file"
        try Data("x".utf8).write(to: URL(fileURLWithPath: file))
        XCTAssertThrowsError(try Library(root: file + "/lib", create: true)) {
            guard case let .cannotCreate(library, reason)? = $0 as? LibraryError else { return XCTFail("\($0)") }
            XCTAssertEqual(library, file + "/lib")
            XCTAssertEqual(reason, "\(file) exists and is not a folder")
        }
    }

    func testAnEmptyCatalogOpenedReadOnlyIsNotALibrary() throws {
        try TestDatabase.requireSQLite(because: "a photos.sqlite whose PRAGMA user_version is 0")
        let root = dir + "/lib"
        _ = try Library(root: root, create: true)
        let db = try Database(path: root + "/photos.sqlite")
        try db.execute("PRAGMA user_version = 0")
        XCTAssertThrowsError(try Library(root: root, create: false, readOnly: true)) {
            guard case .notALibrary(let path)? = $0 as? LibraryError else { return XCTFail("\($0)") }
            XCTAssertEqual(path, root + "/photos.sqlite")
        }
    }
}
