import CCrypto

/// The libcrypto this process runs with.
public enum CryptoLibrary {
    /// OpenSSL's version text ("OpenSSL 3.0.19 27 Jan 2026"), from `OpenSSL_version(OPENSSL_VERSION)`
    /// (OpenSSL 3.0 manual, OpenSSL_version(3)).
    public static var version: String { String(cString: OpenSSL_version(OPENSSL_VERSION)) }
}
