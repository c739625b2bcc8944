/// A PNG writer for tests (PNG spec §5, §10): zlib streams of stored deflate blocks (RFC 1950,
/// RFC 1951 §3.2.4), so any chunk needing zlib data (IDAT, iCCP) is written without a compressor.
enum TinyPNG {
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for b in bytes {
            c ^= UInt32(b)
            for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        }
        return ~c
    }

    static func be32(_ v: UInt32) -> [UInt8] {
        [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
    }

    /// A zlib stream of stored blocks holding `data`.
    static func zlibStored(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]
        var p = 0
        repeat {
            let n = min(65_535, data.count - p)
            let last: UInt8 = p + n == data.count ? 1 : 0
            out += [last, UInt8(n & 0xFF), UInt8(n >> 8), UInt8(~n & 0xFF), UInt8((~n >> 8) & 0xFF)]
            out += data[p..<(p + n)]
            p += n
        } while p < data.count
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in data { a = (a + UInt32(byte)) % 65_521; b = (b + a) % 65_521 }
        return out + be32(b << 16 | a)
    }

    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let body = Array(type.utf8) + data
        return be32(UInt32(data.count)) + body + be32(crc32(body))
    }

    /// An 8-bit PNG of colour type 2 (3 channels), 0 (1), 6 (4) or 4 (2) from interleaved pixels,
    /// with `extra` chunks (e.g. iCCP, gAMA, cHRM, sRGB) before IDAT.
    static func make(width: Int, height: Int, channels: Int, pixels: [UInt8], extra: [(String, [UInt8])] = [])
        -> [UInt8]
    {
        let colorType: UInt8 = [1: 0, 2: 4, 3: 2, 4: 6][channels] ?? 2
        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        png += chunk("IHDR", be32(UInt32(width)) + be32(UInt32(height)) + [8, colorType, 0, 0, 0])
        for (type, data) in extra { png += chunk(type, data) }
        var raw: [UInt8] = []
        raw.reserveCapacity((width * channels + 1) * height)
        for y in 0..<height {
            raw.append(0)
            raw += pixels[(y * width * channels)..<((y + 1) * width * channels)]
        }
        png += chunk("IDAT", zlibStored(raw))
        png += chunk("IEND", [])
        return png
    }

    /// An iCCP chunk's data: name, NUL, method 0, the zlib-compressed profile.
    static func iCCP(_ profile: [UInt8], name: String = "ICC") -> [UInt8] {
        Array(name.utf8) + [0, 0] + zlibStored(profile)
    }

    /// A flat image of one pixel value.
    static func flat(_ value: [UInt8], width: Int = 300, height: Int = 200, extra: [(String, [UInt8])] = []) -> [UInt8]
    {
        var pixels: [UInt8] = []
        pixels.reserveCapacity(width * height * value.count)
        for _ in 0..<(width * height) { pixels += value }
        return make(width: width, height: height, channels: value.count, pixels: pixels, extra: extra)
    }
}
