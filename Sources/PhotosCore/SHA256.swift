import CCrypto

/// Streaming SHA-256 (FIPS 180-4) over OpenSSL's libcrypto, which uses the CPU's SHA
/// extensions where present. One instance hashes one stream; it is not shared between threads.
public final class SHA256Hasher {
    private let context: OpaquePointer

    /// Starts a new digest.
    /// - Throws: `PhotosError` (70) when libcrypto cannot allocate a context.
    public init() throws {
        guard let ctx = EVP_MD_CTX_new() else { throw PhotosError(.software, "libcrypto: cannot allocate a SHA-256 context") }
        guard EVP_DigestInit_ex(ctx, EVP_sha256(), nil) == 1 else {
            EVP_MD_CTX_free(ctx)
            throw PhotosError(.software, "libcrypto: SHA-256 unavailable")
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

    /// SHA-256 of `bytes` as 64 lowercase hex digits.
    /// - Throws: `PhotosError` (70) when libcrypto fails.
    public static func hex(of bytes: UnsafeRawBufferPointer) throws -> String {
        let hasher = try SHA256Hasher()
        hasher.update(bytes)
        return hasher.finalizeHex()
    }
}

private let hexDigits = Array("0123456789abcdef".utf8)

/// Lowercase hex of `bytes`.
func hexString(_ bytes: [UInt8]) -> String {
    var out = [UInt8]()
    out.reserveCapacity(bytes.count * 2)
    for b in bytes {
        out.append(hexDigits[Int(b >> 4)])
        out.append(hexDigits[Int(b & 0xF)])
    }
    return String(decoding: out, as: UTF8.self)
}
