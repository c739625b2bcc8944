import Foundation
import PhotosTestSupport
import XCTest

@testable import PhotosFiles

/// `FileScanner.Walk.nextEntry()`: each file comes with the number of entries of its folder
/// that share its base name ignoring case (issue 24 item 2, what the importer holds a RAW+JPEG
/// pair by), sidecars and hidden names left out; a file given as an argument is alone.
final class PairingSiblingsScanTests: TemporaryFolderTestCase {
    override var label: String { "photos-pairing-siblings" }

    func testEntriesCountTheirFoldersNamesOfOneBaseIgnoringCase() throws {
        for name in [
            "IMG_1.CR2", "img_1.jpg", "IMG_1.HEIC", "IMG_1.xmp", "IMG_1.CR2.xmp", ".IMG_1.jpg", "IMG_2.JPG", "notes",
            "IMG_3.tar.gz", "IMG_3.tar.bz2"
        ] {
            XCTAssertTrue(FileManager.default.createFile(atPath: dir + "/" + name, contents: Data([1])))
        }
        let walk = try FileScanner().stream([dir])
        var got: [String: Int] = [:]
        while let e = walk.nextEntry() { got[PathName.lastComponent(e.path)] = e.siblings }
        XCTAssertEqual(
            got,
            [
                "IMG_1.CR2": 3, "img_1.jpg": 3, "IMG_1.HEIC": 3, "IMG_1.xmp": 1, "IMG_1.CR2.xmp": 1, "IMG_2.JPG": 1,
                "notes": 1, "IMG_3.tar.gz": 2, "IMG_3.tar.bz2": 2
            ])
        let one = try FileScanner().stream([dir + "/IMG_1.CR2"])
        XCTAssertEqual(one.nextEntry()?.siblings, 1, "an argument file is alone")
        XCTAssertEqual(FileScanner.pairingBase("IMG_1234.CR2"), "img_1234")
        XCTAssertEqual(FileScanner.pairingBase(".hidden"), ".hidden")
    }
}
