import Foundation
import XCTest

/// `Samples/storm.jpg` with an APP1 Exif segment inserted first, holding DateTimeOriginal
/// (`date`, "YYYY:MM:DD HH:MM:SS") and, when given, OffsetTimeOriginal (`offset`, "±HH:MM")
/// (EXIF 2.32 §4.6.5; little-endian TIFF, IFD0 → Exif IFD): a real photo whose capture time a
/// test chooses.
/// - Throws: `XCTUnwrap`'s error when the sample cannot be read.
public func stormJPEG(date: String, offset: String?) throws -> Data {
    func u16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
    func u32(_ v: Int) -> [UInt8] { u16(v & 0xFFFF) + u16(v >> 16) }
    let entries = offset == nil ? 1 : 2
    let exifIFD = 8 + 2 + 12 + 4
    let dataStart = exifIFD + 2 + 12 * entries + 4
    var block: [UInt8] = [0x49, 0x49, 42, 0] + u32(8)
    block += u16(1) + u16(0x8769) + u16(4) + u32(1) + u32(exifIFD) + u32(0)
    block += u16(entries) + u16(0x9003) + u16(2) + u32(20) + u32(dataStart)
    if offset != nil { block += u16(0x9011) + u16(2) + u32(7) + u32(dataStart + 20) }
    block += u32(0) + Array(date.utf8) + [0]
    if let offset { block += Array(offset.utf8) + [0] }
    let payload = Array("Exif\0\0".utf8) + block
    let segment: [UInt8] =
        [0xFF, 0xE1, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)] + payload
    let storm = try XCTUnwrap(FileManager.default.contents(atPath: samplesDir + "/storm.jpg"))
    return Data(storm.prefix(2)) + Data(segment) + storm.dropFirst(2)
}
