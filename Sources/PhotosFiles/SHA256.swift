import CCrypto
import Foundation

/// Streaming SHA-256 (FIPS 180-4) over OpenSSL's libcrypto, which uses the CPU's SHA
/// extensions where present. One instance hashes one stream; it is not shared between threads.
public final class SHA256Hasher {
    private let context: OpaquePointer

    /// Starts a new digest.
    /// - Throws: `FileError` (.crypto) when libcrypto cannot allocate a context.
    public init() throws {
        guard let ctx = EVP_MD_CTX_new() else {
            throw FileError(.crypto, "libcrypto: cannot allocate a SHA-256 context")
        }
        guard EVP_DigestInit_ex(ctx, EVP_sha256(), nil) == 1 else {
            EVP_MD_CTX_free(ctx)
            throw FileError(.crypto, "libcrypto: SHA-256 unavailable")
        }
        context = ctx
    }

    deinit { EVP_MD_CTX_free(context) }

    /// Adds `bytes` to the digest.
    public func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        EVP_DigestUpdate(context, base, bytes.count)
    }

    /// Finishes the digest and returns it as 64 lowercase hex digits.
    public func finalizeHex() -> String {
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        EVP_DigestFinal_ex(context, &digest, &length)
        return hexString(digest)
    }

    /// SHA-256 of the file at `path`, streamed in 1 MiB reads (the file is never held whole).
    /// - Returns: 64 lowercase hex digits and the number of bytes read.
    /// - Throws: `FileError` when the file cannot be opened, 74 on a read error.
    public static func hex(ofFileAt path: String) throws -> (hex: String, bytes: Int) {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else {
            throw FileError(.noInput, "cannot open \(path): \(String(cString: strerror(errno)))", errno: errno)
        }
        defer { close(fd) }
        let hasher = try SHA256Hasher()
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var total = 0
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw FileError(.io, "cannot read \(path): \(String(cString: strerror(errno)))", errno: errno)
            }
            if n == 0 { break }
            buffer.withUnsafeBytes { hasher.update(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
            total += n
        }
        return (hasher.finalizeHex(), total)
    }

    /// SHA-256 of `bytes` as 64 lowercase hex digits.
    /// - Throws: `FileError` (.crypto) when libcrypto fails.
    public static func hex(of bytes: UnsafeRawBufferPointer) throws -> String {
        let hasher = try SHA256Hasher()
        hasher.update(bytes)
        return hasher.finalizeHex()
    }
}

private let hexDigits = Array("0123456789abcdef".utf8)

/// Whether `text` is a SHA-256 as the library writes it (`SHA256Hasher.finalizeHex`): exactly 64
/// lowercase hex digits (FIPS 180-4 §6.2: a 256-bit digest), compared on its UTF-8 bytes.
public func isSHA256Hex(_ text: String) -> Bool {
    func isDigit(_ byte: UInt8) -> Bool {
        byte &- UInt8(ascii: "0") <= 9 || byte &- UInt8(ascii: "a") <= 5
    }
    guard text.utf8.count == 64 else { return false }
    // A native string's bytes are contiguous: checked in place (verify asks once per original).
    return text.utf8.withContiguousStorageIfAvailable { $0.allSatisfy(isDigit) } ?? text.utf8.allSatisfy(isDigit)
}

/// Lowercase hex of `bytes`.
public func hexString(_ bytes: [UInt8]) -> String {
    var out = [UInt8]()
    out.reserveCapacity(bytes.count * 2)
    for b in bytes {
        out.append(hexDigits[Int(b >> 4)])
        out.append(hexDigits[Int(b & 0xF)])
    }
    return String(decoding: out, as: UTF8.self)
}
