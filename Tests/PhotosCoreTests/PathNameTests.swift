import PhotosFiles
import XCTest

/// `PathName` gives NSString's answers for a path's last component, parent and extension, and
/// an answer (not a trap) where swift-corelibs-foundation 6.3.1 traps: a one-character path.
final class PathNameTests: XCTestCase {
    func testComponentsParentsAndExtensions() {
        // input, last component, parent, extension
        let cases: [(String, String, String, String)] = [
            ("", "", "", ""),
            ("/", "/", "/", ""),
            ("a", "a", "", ""),
            (".", ".", "", ""),
            ("a/", "a", "", ""),
            ("ab", "ab", "", ""),
            ("/a", "a", "/", ""),
            ("a/b", "b", "a", ""),
            ("/a/b", "b", "/a", ""),
            ("a//b", "b", "a", ""),
            ("a/b/", "b", "a", ""),
            ("/a/b//", "b", "/a", ""),
            ("a.jpg", "a.jpg", "", "jpg"),
            ("dir/B.JPG", "B.JPG", "dir", "JPG"),
            ("x/a.tar.gz", "a.tar.gz", "x", "gz"),
            (".jpg", ".jpg", "", ""),
            ("a/.jpg", ".jpg", "a", ""),
            ("a.", "a.", "", ""),
            ("a..", "a..", "", ""),
            ("..", "..", "", ""),
            ("a./b", "b", "a.", ""),
            ("a.j/g", "g", "a.j", ""),
            ("a.b c", "a.b c", "", "b c"),
            ("./a.png", "a.png", ".", "png"),
            ("/photos/日本.HEIC", "日本.HEIC", "/photos", "HEIC"),
            ("/ab/abcdef0123.partial", "abcdef0123.partial", "/ab", "partial")
        ]
        for (path, last, parent, ext) in cases {
            XCTAssertEqual(PathName.lastComponent(path), last, "last component of \(path.debugDescription)")
            XCTAssertEqual(PathName.parent(path), parent, "parent of \(path.debugDescription)")
            XCTAssertEqual(PathName.pathExtension(path), ext, "extension of \(path.debugDescription)")
        }
    }

    func testDeletingTheExtension() {
        let cases: [(String, String)] = [
            ("/x/a.jpg", "/x/a"), ("a.b/", "a"), ("x/a.tar.gz", "x/a.tar"), ("a", "a"), (".jpg", ".jpg"),
            ("x/.jpg", "x/.jpg"), ("a.", "a."), ("", ""), ("/", "/"), ("a//b.XMP", "a/b"), ("日本.HEIC", "日本")
        ]
        for (path, stem) in cases {
            XCTAssertEqual(PathName.deletingPathExtension(path), stem, "stem of \(path.debugDescription)")
        }
    }
}
