import Foundation

/// The folder of original image files, each named by the SHA-256 of its bytes and sharded by
/// the first two hex digits (`ab/abcdef…`), written temp file + fsync + rename so that a file
/// under its final name is always whole (SPEC §2).
public struct ExternalDataStore: Sendable {
    /// The external data folder.
    public let root: String

    /// Prefix of temporary files; a leftover one (after a crash) is an orphan.
    public static let temporaryPrefix = ".tmp-"

    public init(root: String) { self.root = root }

    /// The reference stored in PhotoData for `sha256`: `ab/abcdef…`.
    public static func reference(for sha256: String) -> String {
        String(sha256.prefix(2)) + "/" + sha256
    }

    /// Absolute path of a stored reference.
    public func path(for reference: String) -> String { root + "/" + reference }

    /// Writes `bytes` under `reference` durably: a temporary file in the same folder, `fsync`,
    /// `rename`, then `fsync` of the folder (POSIX rename(2) atomicity).
    /// - Throws: `PhotosError` 74 (I/O) or 73 (cannot create).
    public func write(_ bytes: UnsafeRawBufferPointer, reference: String) throws {
        let final = path(for: reference)
        let dir = (final as NSString).deletingLastPathComponent
        if mkdir(dir, 0o777) != 0 && errno != EEXIST {
            throw PhotosError(.cantCreate, "cannot create \(dir): \(String(cString: strerror(errno)))")
        }
        try AtomicFile.write(bytes, to: final, temporaryPrefix: ExternalDataStore.temporaryPrefix)
    }

    /// Removes the file of `reference`; a missing file is not an error.
    /// - Returns: true when a file was removed.
    @discardableResult
    public func remove(reference: String) -> Bool {
        unlink(path(for: reference)) == 0
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
