import PhotosFiles
import PhotosImaging
import PhotosSQLite

/// The C libraries `photos` runs with, for `photos --version` and bug reports. In the CLI
/// because it names the SQLite backend, as the composition root does.
enum LinkedLibraries {
    /// Name and version of each, in a fixed order: SQLite, the image libraries
    /// (`ImageLibraries.versions`) and OpenSSL's libcrypto. Exempi has no call that reports its
    /// version (exempi/xmp.h), so it is not listed.
    static var versions: [(name: String, version: String)] {
        [("SQLite", Database.sqliteVersion)] + ImageLibraries.versions + [("libcrypto", CryptoLibrary.version)]
    }
}
