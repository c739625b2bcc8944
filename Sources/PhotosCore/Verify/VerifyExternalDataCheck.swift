import Foundation
import PhotosFiles
import PhotosModel

/// Verify's external data step (SPEC §2 invariant 2): the folders that hold the recorded
/// originals can be listed, and every file in them is referenced by a row (else it is an
/// orphan, or a leftover temporary file).
struct VerifyExternalDataCheck {
    /// Where the originals are.
    let externalData: ExternalDataStore
    /// The references of rows whose reference is not their SHA-256's content address
    /// (`VerifyOriginalsCheck.unusual`), sorted for lookups.
    let unusual: VerifyReferences
    /// The shards that hold a sound row's original (`VerifyOriginalsCheck.usedShards`).
    let usedShards: [Bool]
    /// How verify names the photos without a PhotoData row: while there is one, an
    /// unreferenced original may be the only copy of its bytes, so it is kept.
    let withoutData: [String]

    init(externalData: ExternalDataStore, unusual: VerifyReferences, usedShards: [Bool], withoutData: [String]) {
        self.externalData = externalData
        var unusual = unusual
        unusual.sortForLookups()
        self.unusual = unusual
        self.usedShards = usedShards
        self.withoutData = withoutData
    }

    /// The external data folder and the folders of the references (each reference's part before
    /// its last '/') that are missing, not folders or cannot be listed, found without building
    /// a path per reference: there are far fewer folders than files.
    func folderProblems() -> [VerifyProblem] {
        var problems: [VerifyProblem] = []
        var folderNames = unusual.folders
        let hexDigits = Array("0123456789abcdef".utf8)
        for shard in 0..<256 where usedShards[shard] {
            folderNames.insert(
                Substring(String(decoding: [hexDigits[shard >> 4], hexDigits[shard & 15]], as: UTF8.self)))
        }
        for shard in 0..<256 where usedShards[shard] {
            folderNames.insert(
                Substring(String(decoding: [hexDigits[shard >> 4], hexDigits[shard & 15]], as: UTF8.self)))
        }
        let root = externalData.root
        let folders = [root] + folderNames.map({ $0.isEmpty ? root + "/" : root + "/" + $0 }).sorted()
        for folder in folders {
            var fst = stat()
            if folder == externalData.root && stat(folder, &fst) != 0 {
                problems.append(
                    VerifyProblem(
                        kind: .unreadableFile, subject: .folder(folder),
                        detail: "the external data folder \(folder) is missing: \(String(cString: strerror(errno)))"
                    ))
            } else if lstat(folder, &fst) == 0 && stat(folder, &fst) == 0 && fst.st_mode & S_IFMT != S_IFDIR {
                problems.append(
                    VerifyProblem(
                        kind: .unreadableFile, subject: .folder(folder), detail: "\(folder) is not a folder"))
            } else if access(folder, F_OK) == 0 && access(folder, R_OK | X_OK) != 0 {
                // Its files cannot be listed: orphans there would go unseen.
                problems.append(
                    VerifyProblem(
                        kind: .unreadableFile, subject: .folder(folder),
                        detail: "\(folder) cannot be listed: \(String(cString: strerror(errno)))"))
            }
        }
        return problems
    }

    /// The files of external data (their number) and those no row of `store` references, as
    /// problems in folder, then name order.
    ///
    /// Listed without a String per file (`forEachFile`), a folder at a time: before a shard's
    /// files, the SHA-256s of that shard's recorded originals are read (a range of the sha256
    /// index), so memory holds one shard's references, not the catalog's (issue 31 item A11).
    /// A file is referenced when it is the content address of a row's SHA-256 (that is every
    /// sound row's reference) or an unusual reference. Only the unreferenced ones are named.
    /// - Throws: the store's error.
    func orphans(_ store: any VerifyStore) throws -> (files: Int, orphans: [VerifyProblem]) {
        // Listed without a String per file (`forEachFile`), a folder at a time: before a
        // shard's files, the SHA-256s of that shard's recorded originals are read (a range
        // of the sha256 index), so memory holds one shard's references, not the catalog's
        // (issue 31 item A11). A file is referenced when it is the content address of a
        // row's SHA-256 (that is every sound row's reference) or an unusual reference. Only
        // the unreferenced ones are named, then put in the order of `allReferences`
        // (folder, then name).
        var unreferenced: [(shard: String, name: String?)] = []
        var shardReferences = VerifyReferences()
        var loadedShard: String?
        var shardError: (any Error)?
        let files = externalData.forEachFile { shard, name in
            if let name {
                if shard != loadedShard {
                    loadedShard = shard
                    shardReferences = VerifyReferences()
                    // Only a two-lowercase-hex-digit folder holds content addresses.
                    if shardError == nil, Library.isShardName(shard) {
                        do {
                            try store.forEachRecordedSHA256(inShard: shard) {
                                shardReferences.insert(sha256: $0)
                            }
                        } catch {
                            shardError = error
                        }
                    }
                    shardReferences.sortForLookups()
                }
                if !shardReferences.contains(shard: shard, name: name),
                    !unusual.contains(shard: shard, name: name)
                {
                    unreferenced.append((shard, String(decoding: name, as: UTF8.self)))
                }
            } else if !unusual.contains(topLevel: shard) {
                unreferenced.append((shard, nil))
            }
        }
        if let shardError { throw shardError }
        unreferenced.sort { (a: (shard: String, name: String?), b: (shard: String, name: String?)) -> Bool in
            if a.shard != b.shard { return a.shard < b.shard }
            return (a.name ?? "") < (b.name ?? "")
        }
        return (files, unreferenced.map(orphan))
    }

    /// The problem of an unreferenced file, `shard` and (nil for a file at the top) `name`.
    private func orphan(_ shard: String, _ name: String?) -> VerifyProblem {
        let ref = name.map { shard + "/" + $0 } ?? shard
        let temporary = PathName.lastComponent(ref).hasPrefix(ExternalDataStore.temporaryPrefix)
        // While a photo has lost its PhotoData row, an unreferenced original may be the
        // only copy of its bytes: reported, never removed (never delete good data).
        let keep = !temporary && !withoutData.isEmpty
        return VerifyProblem(
            kind: temporary ? .temporaryFile : .orphanFile, subject: .file(reference: ref),
            detail: "\(Library.externalDataName)/\(ref) is not referenced by any photo"
                + (keep
                    ? " (kept: it may be the original of \(withoutData.count == 1 ? withoutData[0] : "one of \(withoutData.count) photos"), which \(withoutData.count == 1 ? "has" : "have") no PhotoData row)"
                    : ""),
            repair: keep ? nil : .removeFile(reference: ref))
    }
}
