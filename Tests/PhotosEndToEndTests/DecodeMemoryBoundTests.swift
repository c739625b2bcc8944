import CImageCodec
import CImageCodecTesting
import Foundation
import XCTest
import PhotosTestSupport

/// Issue 9 item 2: memory is bounded by the bytes of the input, never by sizes it declares.
/// Tiny files that declare huge chunks, segments, images or inflated sizes go through a whole
/// `photos import` (default jobs) run as a child process; its peak RSS (VmHWM) stays
/// under 150 MB, and each file is refused with a one-line reason or imported.
final class DecodeMemoryBoundTests: BinaryTestCase {
    override var label: String { "photos-memory" }

    /// The peak resident set of the whole import, kilobytes (Linux ru_maxrss).
    static let limitKB = 150 * 1024

    // MARK: inputs

    static func be32(_ v: UInt32) -> [UInt8] {
        [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)]
    }

    /// CRC-32 of PNG chunks (PNG spec Annex D).
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for b in bytes {
            c ^= UInt32(b)
            for _ in 0..<8 { c = (c & 1) != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        }
        return c ^ 0xFFFF_FFFF
    }

    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let t = Array(type.utf8)
        return be32(UInt32(data.count)) + t + data + be32(crc32(t + data))
    }

    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    /// IHDR of a 1×1 8-bit RGB image and its one IDAT row (filter 0, black), and IEND.
    static let ihdr = chunk("IHDR", be32(1) + be32(1) + [8, 2, 0, 0, 0])
    static let idatAndEnd =
        chunk("IDAT", [0x78, 0x01, 0x63, 0x60, 0x60, 0x60, 0x00, 0x00, 0x00, 0x04, 0x00, 0x01])
        + chunk("IEND", [])

    /// The 57-byte PNG: a chunk that declares `length` bytes, followed by 16.
    static func declaredChunk(_ type: String, length: UInt32) -> [UInt8] {
        signature + ihdr + be32(length) + Array(type.utf8) + Array("Comment\0abcdefgh".utf8)
    }

    /// A zlib stream (RFC 1950/1951, one fixed-Huffman block) inflating to `prefix` then `zeros`
    /// zero bytes: each 258 zeros cost 13 bits, so 100 MB fit in about 630 KB.
    static func zlibBomb(prefix: [UInt8], zeros: Int) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]
        var acc: UInt32 = 0, bits = 0
        func put(_ value: UInt32, _ count: Int) { // LSB first
            acc |= value << bits
            bits += count
            while bits >= 8 { out.append(UInt8(acc & 0xFF)); acc >>= 8; bits -= 8 }
        }
        func huffman(_ code: UInt32, _ length: Int) { // Huffman codes go most significant bit first
            for i in stride(from: length - 1, through: 0, by: -1) { put((code >> UInt32(i)) & 1, 1) }
        }
        func literal(_ v: UInt8) { v < 144 ? huffman(0x30 + UInt32(v), 8) : huffman(0x190 + UInt32(v) - 144, 9) }
        put(1, 1); put(1, 2) // BFINAL, BTYPE = 01 fixed Huffman
        var a: UInt32 = 1, b: UInt32 = 0
        for v in prefix { literal(v); a = (a + UInt32(v)) % 65521; b = (b + a) % 65521 }
        var left = zeros
        if left > 0 { literal(0); left -= 1 }
        while left >= 258 { huffman(0xC5, 8); huffman(0, 5); left -= 258 } // length 258 (code 285), distance 1
        while left > 0 { literal(0); left -= 1 }
        for _ in 0..<zeros { b = (b + a) % 65521 } // a stays the same for zero bytes
        huffman(0, 7) // end of block (256)
        if bits > 0 { out.append(UInt8(acc & 0xFF)) }
        return out + be32(b << 16 | a)
    }

    /// A PNG whose `type` chunk (zTXt, iTXt, iCCP) inflates to `size` bytes.
    static func inflateBomb(_ type: String, size: Int) -> [UInt8] {
        let data: [UInt8]
        switch type {
        case "zTXt": data = Array("Comment".utf8) + [0, 0] + zlibBomb(prefix: [], zeros: size)
        case "iTXt": data = Array("XML:com.adobe.xmp".utf8) + [0, 1, 0, 0, 0] + zlibBomb(prefix: [], zeros: size)
        // profile header: its size
        default: data = Array("icc".utf8) + [0, 0] + zlibBomb(prefix: be32(UInt32(size)), zeros: size - 4)
        }
        return signature + ihdr + chunk(type, data) + idatAndEnd
    }

    /// A JPEG built by libjpeg (`pc_jpeg_encode_ex`), its frame then made to declare width × height.
    static func jpegDeclaring9999x10000(mode: Int32, width: Int = 9999, height: Int = 10000) throws -> [UInt8] {
        let pixels = [UInt8]((0..<(16 * 16)).flatMap { _ in [UInt8(10), 250, 130] })
        var messages = pc_messages()
        var output: UnsafeMutablePointer<UInt8>?
        var size = 0
        var options = pc_jpeg_encode_options(
            components: 3, quality: 75, mode: mode, h_samp: 0, v_samp: 0, restart_interval: 0, chroma_tables: 0)
        let status = pixels.withUnsafeBufferPointer {
            pc_jpeg_encode_ex($0.baseAddress, 16, 16, &options, &output, &size, &messages)
        }
        defer { pc_free(output) }
        guard status == PC_OK, let output else {
            throw SetUpFailure("libjpeg could not encode the test input: status \(status.rawValue)")
        }
        var d = Array(UnsafeBufferPointer(start: output, count: size))
        var i = 2
        while i + 9 < d.count, d[i] == 0xFF {
            if (0xC0...0xCF).contains(d[i + 1]), ![0xC4, 0xC8, 0xCC].contains(d[i + 1]) {
                d[i + 5] = UInt8(height >> 8); d[i + 6] = UInt8(height & 0xFF)
                d[i + 7] = UInt8(width >> 8); d[i + 8] = UInt8(width & 0xFF)
                return d
            }
            i += 2 + (Int(d[i + 2]) << 8 | Int(d[i + 3]))
        }
        throw SetUpFailure("no frame header in the encoded test input")
    }

    /// A sample JPEG with an APP1 Exif block whose IFD declares 65535 entries and an ASCII
    /// value of 4 GB, and a COM segment whose length runs past the end of the file.
    func jpegWithHugeDeclaredExif() throws -> [UInt8] {
        let sample = try XCTUnwrap(FileManager.default.contents(atPath: samplesDir + "/ladybird.jpg"))
        var tiff: [UInt8] = [0x4D, 0x4D, 0x00, 0x2A] + Self.be32(8)
        tiff += [0xFF, 0xFF] // 65535 entries declared
        tiff += [0x01, 0x0F, 0x00, 0x02] + Self.be32(0xFFFF_FFFF) + Self.be32(0x7FFF_FFF0) // Make: ASCII, 4 GB at 2 GB
        tiff += [0x87, 0x69, 0x00, 0x04] + Self.be32(1) + Self.be32(0xFFFF_FF00) // Exif IFD far outside
        let payload = Array("Exif\0\0".utf8) + tiff
        let app1: [UInt8] =
            [0xFF, 0xE1] + [UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)] + payload
        return [0xFF, 0xD8] + app1 + Array(sample.dropFirst(2))
    }

    // MARK: tests

    func testImportOfFilesDeclaringHugeSizesStaysUnder150MB() throws {
        let input = dir + "/in"
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        var files: [String: [UInt8]] = [:]
        for type in ["tEXt", "zTXt", "iTXt", "iCCP", "eXIf", "sPLT", "juNK", "IDAT"] {
            files["declared-\(type)-7fffffff.png"] = Self.declaredChunk(type, length: 0x7FFF_FFFF)
            files["declared-\(type)-3fffffff.png"] = Self.declaredChunk(type, length: 0x3FFF_FFFF)
        }
        XCTAssertEqual(files["declared-tEXt-7fffffff.png"]?.count, 57)
        for type in ["zTXt", "iTXt", "iCCP"] { files["bomb-\(type).png"] = Self.inflateBomb(type, size: 100_000_000) }
        files["arithmetic-progressive-9999x10000.jpg"] =
            try Self.jpegDeclaring9999x10000(mode: Int32(PC_PROGRESSIVE_SIMPLE.rawValue | PC_ARITHMETIC.rawValue))
        files["huffman-progressive-9999x10000.jpg"] = try Self.jpegDeclaring9999x10000(
            mode: Int32(PC_PROGRESSIVE_SIMPLE.rawValue))
        files["arithmetic-baseline-9999x10000.jpg"] = try Self.jpegDeclaring9999x10000(
            mode: Int32(PC_ARITHMETIC.rawValue))
        files["exif-declaring-4gb.jpg"] = try jpegWithHugeDeclaredExif()
        // An APP1 segment declaring 65533 bytes where 20 follow: skipped to the end, refused.
        files["app1-past-end.jpg"] =
            [0xFF, 0xD8, 0xFF, 0xE1, 0xFF, 0xFF] + Array("Exif\0\0MM\0*\0\0\0\u{8}\0\0\0\0\0\0".utf8)
        for (name, bytes) in files {
            XCTAssertTrue(FileManager.default.createFile(atPath: input + "/" + name, contents: Data(bytes)))
        }
        var paths = [input]
        let corpus = packageRoot + "/../shared/corpus/malformed"
        let corpusFiles = [
            "libpng_huge_tEXt_chunk.png", "libpng_huge_zTXt_chunk.png", "libpng_huge_iTXt_chunk.png",
            "libpng_huge_iCCP_chunk.png", "libpng_huge_eXIf_chunk.png", "libpng_huge_sPLT_chunk.png",
            "libpng_huge_juNK_unsafe_to_copy.png", "libpng_huge_IDAT.png", "pillow_png_decompression_dos.png"
        ]
        .map { corpus + "/" + $0 }.filter { FileManager.default.fileExists(atPath: $0) }
        paths += corpusFiles

        let result = try runMeasured(["--library", dir + "/lib", "import", "-q"] + paths)
        XCTAssertGreaterThan(result.maxRSSKB, 0, "VmHWM was read")
        XCTAssertLessThan(result.maxRSSKB, Self.limitKB, "peak RSS \(result.maxRSSKB) KB\n\(result.stderr)")
        XCTAssertNotEqual(result.status, 0, "some inputs must be refused")
        XCTAssertLessThan(result.status, 128, "no crash: \(result.stderr)")
        let lines = result.stderr.split(separator: "\n").map(String.init)
        func line(_ name: String) -> String? { lines.first { $0.contains("/" + name + ":") } }
        XCTAssertEqual(
            line("declared-tEXt-7fffffff.png").map { String($0.split(separator: ":", maxSplits: 1)[1]) },
            " error: PNG chunk tEXt declares 2147483647 bytes but only 12 follow in the file")
        for type in ["tEXt", "zTXt", "iTXt", "iCCP", "eXIf", "sPLT", "juNK", "IDAT"] {
            XCTAssertNotNil(line("declared-\(type)-3fffffff.png"), "\(type) refused\n\(result.stderr)")
        }
        XCTAssertEqual(
            line("arithmetic-progressive-9999x10000.jpg").map { String($0.split(separator: ":", maxSplits: 1)[1]) },
            " error: decoding this 9999x10000 progressive JPEG needs 291 MB, over the per-worker decode budget of 100 MB"
        )
        XCTAssertNotNil(line("huffman-progressive-9999x10000.jpg"))
        XCTAssertNotNil(line("app1-past-end.jpg"))
        // Imported: the inflate bombs (text skipped, the profile dropped), the EXIF file, the baseline arithmetic file.
        for name in [
            "bomb-zTXt.png", "bomb-iTXt.png", "bomb-iCCP.png", "exif-declaring-4gb.jpg",
            "arithmetic-baseline-9999x10000.jpg"
        ] {
            XCTAssertNil(line(name), "\(name) must be imported:\n\(result.stderr)")
        }
        let list = try run(["--library", dir + "/lib", "list", "--json"])
        XCTAssertEqual(list.status, 0)
        for name in ["bomb-zTXt.png", "bomb-iTXt.png", "bomb-iCCP.png", "exif-declaring-4gb.jpg"] {
            XCTAssertTrue(list.stdout.contains(name), "\(name) listed")
        }
        print("peak RSS of the import: \(result.maxRSSKB / 1024) MB")
    }

    /// With --max-pixels raised past the default, the decoded image at its DCT scale is what
    /// grows (SPEC §8): an arithmetic-coded baseline file (no warning when its data runs out)
    /// declaring 65500×65500 would decode to 192 MB at 1/8; refused against the budget.
    func testRaisedMaxPixelsStillKeepsTheDecodedImageWithinTheBudget() throws {
        let input = dir + "/in"
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        let file = input + "/arithmetic-baseline-65500x65500.jpg"
        let bytes = try Self.jpegDeclaring9999x10000(mode: Int32(PC_ARITHMETIC.rawValue), width: 65500, height: 65500)
        XCTAssertTrue(FileManager.default.createFile(atPath: file, contents: Data(bytes)))
        // dconly.c's own buffers (10 bytes per block) count too: 20000×20000 4:2:0 needs 108 MB.
        let progressive = try Self.jpegDeclaring9999x10000(
            mode: Int32(PC_PROGRESSIVE_SIMPLE.rawValue), width: 20000, height: 20000)
        XCTAssertTrue(
            FileManager.default.createFile(
                atPath: input + "/huffman-progressive-20000x20000.jpg", contents: Data(progressive)))
        let result = try runMeasured(["--library", dir + "/lib", "import", "-q", "--max-pixels", "5000000000", input])
        XCTAssertGreaterThan(result.maxRSSKB, 0)
        XCTAssertLessThan(result.maxRSSKB, Self.limitKB, "peak RSS \(result.maxRSSKB) KB")
        XCTAssertTrue(
            result.stderr.contains(
                "arithmetic-baseline-65500x65500.jpg: error: decoding this 65500x65500 JPEG needs 192 MB, over the per-worker decode budget of 100 MB"
            ),
            result.stderr)
        XCTAssertTrue(
            result.stderr.contains(
                "huffman-progressive-20000x20000.jpg: error: decoding this 20000x20000 progressive JPEG needs 108 MB, over the per-worker decode budget of 100 MB"
            ),
            result.stderr)
    }

    /// The measure itself: a decode that does need memory shows up in ru_maxrss (so the test above can fail).
    func testPeakRSSReadsTheChildsOwnUsage() throws {
        let input = dir + "/big"
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        // A real 2400×2400 4:4:4 progressive file at 8/8... decoded at 1/8 by dconly.c: small; the
        // same file's libjpeg decode (arithmetic) holds 2400×2400×6 bytes = 33 MB of coefficients.
        let w = 2400, h = 2400
        var pixels = [UInt8](repeating: 0, count: w * h * 3)
        for i in 0..<(w * h) {
            pixels[i * 3] = UInt8(i % 251); pixels[i * 3 + 1] = UInt8((i / w) % 256); pixels[i * 3 + 2] = 90
        }
        var messages = pc_messages()
        var output: UnsafeMutablePointer<UInt8>?
        var size = 0
        var options = pc_jpeg_encode_options(
            components: 3, quality: 90,
            mode: Int32(PC_PROGRESSIVE_SIMPLE.rawValue | PC_ARITHMETIC.rawValue),
            h_samp: 1, v_samp: 1, restart_interval: 0, chroma_tables: 0)
        let status = pixels.withUnsafeBufferPointer {
            pc_jpeg_encode_ex($0.baseAddress, Int32(w), Int32(h), &options, &output, &size, &messages)
        }
        defer { pc_free(output) }
        guard status == PC_OK, let output else {
            throw SetUpFailure("libjpeg could not encode the test input: status \(status.rawValue)")
        }
        XCTAssertTrue(
            FileManager.default.createFile(atPath: input + "/a.jpg", contents: Data(bytes: output, count: size)))
        let small = try runMeasured(["--help"])
        let big = try runMeasured(["--library", dir + "/lib", "import", "-q", input])
        XCTAssertEqual(big.status, 0, big.stderr)
        XCTAssertGreaterThan(big.maxRSSKB, small.maxRSSKB + 30 * 1024, "the 33 MB coefficient buffer shows")
    }
}
