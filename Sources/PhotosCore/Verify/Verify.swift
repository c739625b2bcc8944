import Foundation
import PhotosModel

extension Library {
    /// Where verify reads its checks and writes its repairs.
    var verifyStore: any VerifyStore { store }

    /// How verify names a photo: its uniqueName and, in parentheses, its displayName.
    static func describePhoto(_ uniqueName: String, _ displayName: String) -> String {
        "photo \(uniqueName) (\(displayName))"
    }

    /// Checks the SPEC §2 invariants: every PhotoData file exists with its recorded size and
    /// SHA-256 (hashing skipped when `quick`), no file in external data lacks a row (orphan),
    /// the store's `integrity_check` (`quick_check` when `quick`) and `foreign_key_check` are clean, no tag link crosses zones;
    /// and SPEC §6: every photo has a thumbnail that is a sound JPEG of its recorded size, at
    /// most 120 pixels on the long edge (`ThumbnailCheck.problem`, which decodes it; when `quick`,
    /// `ThumbnailCheck.structure` on the head the store cuts out: no decode, so damaged scan data
    /// goes unseen).
    ///
    /// The checks, hashing included, run in one read transaction (a WAL snapshot), so imports
    /// and other writers go on meanwhile. Each problem carries the repair planned for it
    /// (`VerifyRepair`). With `repair`, the planned repairs are made: orphan and leftover
    /// temporary files are removed, damaged or missing thumbnails are regenerated from intact
    /// originals (a Thumbnail update or insert in history), and photos whose original is gone
    /// are deleted; history author `verify` unless `--author`, context `verify --repair`. The
    /// orphan removal re-reads the rows under the write lock and the exclusive import lock, so
    /// an import's written-but-uncommitted original is never taken for an orphan. An original
    /// that cannot be checked (stat(2) fails with another errno than ENOENT/ENOTDIR: EACCES,
    /// EIO) is `unreadableFile`, never missing, so `--repair` deletes no such photo.
    ///
    /// With `repair` and `dryRun` (or on a library in dry-run mode, `Library.dryRun`), the same
    /// repair code runs with every transaction rolled back and no file removed; the report
    /// lists the planned repairs (`dryRun` true, none marked repaired), with a note on those a
    /// real run could not make now.
    /// `progress` is called on the calling thread after each recorded original is checked, with
    /// (originals checked, originals in all, bytes of those originals).
    /// - Throws: `LibraryError.busy` when busy, `LibraryError` or `SQLiteError` from the store; `Interrupted<VerifyReport>` when an
    ///   error stops `--repair` after some repairs were made (they stay made; the report marks
    ///   them repaired).
    ///
    /// The SHA-256 of the originals is computed by `jobs` threads (`--jobs`, at least 1;
    /// default the number of cores), each taking the next original; the problems are reported
    /// in the same order whatever `jobs` is.
    public func verify(
        quick: Bool = false, repair: Bool = false, dryRun: Bool = false,
        author: HistoryAuthor = .default, jobs: Int = ProcessInfo.processInfo.activeProcessorCount,
        progress: ((_ done: Int, _ total: Int, _ bytes: Int64) -> Void)? = nil
    ) throws -> VerifyReport {
        try self.dryRun(repair && dryRun) {
            try verifyLibrary(
                quick: quick, repair: repair, author: author, jobs: jobs, snapshotReaders: 3, progress: progress)
        }
    }

    /// `verify` with `snapshotReaders` connections beside the library's for the thumbnails'
    /// checks and the catalog's two parts (0: every check on the library's connection, in turn;
    /// 1: the thumbnails' on the one reader; 2: and the store's own checks on the other), for
    /// tests that compare the reports.
    /// - Throws: as `verify`.
    func verify(quick: Bool, jobs: Int, snapshotReaders: Int) throws -> VerifyReport {
        try verifyLibrary(
            quick: quick, repair: false, author: .default, jobs: jobs, snapshotReaders: snapshotReaders,
            progress: nil)
    }

    /// Thumbnails `verify` reads before checking them on its threads (at most about
    /// 256 × 30 KB in memory).
    static let thumbnailChunk = 256

    /// Recorded originals `verify` reads before stat(2) of their files on its threads.
    static let originalChunk = 1024

    private func verifyLibrary(
        quick: Bool, repair: Bool, author: HistoryAuthor, jobs: Int, snapshotReaders: Int,
        progress: ((Int, Int, Int64) -> Void)?
    ) throws -> VerifyReport {
        var run = VerifyRun(
            library: self, quick: quick, repair: repair, author: author, jobs: jobs,
            snapshotReaders: snapshotReaders, progress: progress)
        return try run.run()
    }
}
