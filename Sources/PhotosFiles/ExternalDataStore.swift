import Foundation

/// The folder of original image files, each named by the SHA-256 of its bytes and sharded by
/// the first two hex digits (`ab/abcdef…`), written temp file + fsync + rename so that a file
/// under its final name is always whole (SPEC §2).
public struct ExternalDataStore: Sendable {
    /// The external data folder.
    public let root: String

    /// Prefix of temporary files; a leftover one (after a crash) is an orphan.
    public static let temporaryPrefix = ".tmp-"

    /// True for the store of a dry run: `write` and `remove` change nothing.
    public let isDryRun: Bool

    public init(root: String, dryRun: Bool = false) {
        self.root = root
        self.isDryRun = dryRun
    }

    /// This store, writing and removing nothing (for a dry run).
    public var forDryRun: ExternalDataStore { ExternalDataStore(root: root, dryRun: true) }

    /// The reference stored in PhotoData for `sha256`: `ab/abcdef…`.
    public static func reference(for sha256: String) -> String {
        String(sha256.prefix(2)) + "/" + sha256
    }

    /// Absolute path of a stored reference.
    public func path(for reference: String) -> String { root + "/" + reference }

    /// Writes `bytes` under `reference` durably: a temporary file in the same folder, `fsync`,
    /// `rename`, then `fsync` of the folder (POSIX rename(2) atomicity).
    /// - Returns: true when the file was written; false in a dry run, which writes nothing.
    /// - Throws: `FileError` (I/O) or 73 (cannot create).
    @discardableResult
    public func write(_ bytes: UnsafeRawBufferPointer, reference: String) throws -> Bool {
        guard !isDryRun else { return false }
        let final = path(for: reference)
        let dir = (final as NSString).deletingLastPathComponent
        if mkdir(dir, 0o777) != 0 && errno != EEXIST {
            throw FileError(.cannotCreate, "cannot create \(dir): \(String(cString: strerror(errno)))", errno: errno)
        }
        try AtomicFile.write(bytes, to: final, temporaryPrefix: ExternalDataStore.temporaryPrefix)
        return true
    }

    /// Removes the file of `reference`; a missing file is not an error. A dry run removes
    /// nothing and answers whether there is a file that would be removed.
    /// - Returns: true when a file was (or, in a dry run, would be) removed.
    @discardableResult
    public func remove(reference: String) -> Bool {
        if isDryRun { return access(path(for: reference), F_OK) == 0 }
        return unlink(path(for: reference)) == 0
    }

    /// Every file under the store, as references relative to `root` (`ab/abcdef…`), including
    /// leftover temporary files.
    public func allReferences() -> [String] {
        var result: [String] = []
        guard let shards = try? FileManager.default.contentsOfDirectory(atPath: root) else { return [] }
        for shard in shards.sorted() {
            let dir = root + "/" + shard
            var isDir: ObjCBool = false
            guard FileManager.default.fileExists(atPath: dir, isDirectory: &isDir) else { continue }
            if !isDir.boolValue { result.append(shard); continue }
            for name in ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).sorted() {
                result.append(shard + "/" + name)
            }
        }
        return result
    }
}
