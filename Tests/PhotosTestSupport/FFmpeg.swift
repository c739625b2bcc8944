import Foundation
import XCTest

/// Runs Debian's `ffmpeg` (package `ffmpeg`) quietly with `arguments`, overwriting outputs, and
/// fails the calling test when it exits non-zero: the way tests make video inputs (lavfi colour
/// sources, a few KB each).
/// - Throws: `XCTSkip` when `/usr/bin/ffmpeg` is not installed; `Process.run`'s error when it
///   cannot start.
public func runFFmpeg(_ arguments: [String], file: StaticString = #filePath, line: UInt = #line) throws {
    guard FileManager.default.isExecutableFile(atPath: "/usr/bin/ffmpeg") else {
        throw XCTSkip("ffmpeg is not installed (Debian package ffmpeg): video inputs cannot be made")
    }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
    process.arguments = ["-nostdin", "-loglevel", "error", "-y"] + arguments
    try process.run()
    process.waitUntilExit()
    XCTAssertEqual(
        process.terminationStatus, 0, "ffmpeg \(arguments.joined(separator: " "))", file: file, line: line)
}
