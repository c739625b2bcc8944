import Foundation
import XCTest

/// Writes a flat-colour HEIC of `width` × `height` pixels (8-bit 4:2:0, full-range Y′CbCr
/// `y`, `cb`, `cr`) to `path` with `heif-enc` (Debian `libheif-examples`, installed by
/// .ci/run): x265 preset ultrafast, quality 50, no thumbnail, a single (non-grid) image. The
/// input is a Y4M file (YUV4MPEG2, C420jpeg) written beside it and removed after.
/// - Throws: `XCTSkip` when heif-enc is not installed; an error with its stderr when it fails.
/// `noiseRows` > 0 makes the first that many rows of luma pseudo-random (xorshift64, fixed seed),
/// so the file has the size of a real photo (400 rows of 8064: about 2.3 MB) instead of a few KB.
/// `avif`: an AVIF instead (libaom through heif-enc -A, speed 9).
public func encodeFlatHEIC(
    width: Int, height: Int, y: UInt8, cb: UInt8, cr: UInt8, noiseRows: Int = 0, avif: Bool = false, to path: String
) throws {
    let tool = "/usr/bin/heif-enc"
    guard FileManager.default.isExecutableFile(atPath: tool) else {
        throw XCTSkip("heif-enc is not installed (Debian libheif-examples)")
    }
    let y4m = path + ".y4m"
    defer { try? FileManager.default.removeItem(atPath: y4m) }
    var data = Data("YUV4MPEG2 W\(width) H\(height) F25:1 Ip A1:1 C420jpeg\nFRAME\n".utf8)
    var luma = [UInt8](repeating: y, count: width * height)
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15
    for i in 0..<(min(noiseRows, height) * width) {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        luma[i] = UInt8(truncatingIfNeeded: state)
    }
    data.append(contentsOf: luma)
    data.append(Data(repeating: cb, count: (width / 2) * (height / 2)))
    data.append(Data(repeating: cr, count: (width / 2) * (height / 2)))
    try data.write(to: URL(fileURLWithPath: y4m))
    let process = Process()
    process.executableURL = URL(fileURLWithPath: tool)
    process.arguments =
        avif
        ? ["-A", "-q", "50", "-p", "speed=9", y4m, "-o", path] : ["-q", "50", "-p", "preset=ultrafast", y4m, "-o", path]
    let err = Pipe()
    process.standardError = err
    process.standardOutput = FileHandle.nullDevice
    try process.run()
    let message = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
        throw NSError(
            domain: "heif-enc", code: Int(process.terminationStatus),
            userInfo: [NSLocalizedDescriptionKey: String(decoding: message, as: UTF8.self)])
    }
}
