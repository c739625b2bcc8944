import Foundation
import PhotosFiles
import PhotosModel

/// One run of `photos verify` (`Library.verify`), in stages: the checks in one read
/// transaction (`checkSnapshot`: the originals, photos without PhotoData, external data's
/// folders and orphans on this thread; thumbnails, storage and catalog rows on snapshot
/// readers), then the orphans judged again against the last commit (`settleOrphans`), the
/// repairs that must not be made withheld (`withholdDeletions`, `planThumbnailRepairs`), and
/// with `repair` the repairs made (`makeRepairs`, `Library.makeRepairs`).
struct VerifyRun {
    let library: Library
    /// Hash no original; check the thumbnails' structure only; the store's quick check.
    let quick: Bool
    /// Make the planned repairs.
    let repair: Bool
    /// The history author of the repairs.
    let author: HistoryAuthor
    /// Threads for stat(2), hashing and thumbnail decoding (at least 1 is used).
    let jobs: Int
    /// Connections beside the library's for the checks that run meanwhile (0 to 3).
    let snapshotReaders: Int
    /// Called after each recorded original is checked: (checked, in all, bytes of those).
    let progress: ((Int, Int, Int64) -> Void)?

    /// What was checked and found so far.
    private(set) var report = VerifyReport()
    /// The uniqueNames of the photos whose original is missing or damaged.
    private var missingOriginal = Set<String>()

    init(
        library: Library, quick: Bool, repair: Bool, author: HistoryAuthor, jobs: Int, snapshotReaders: Int,
        progress: ((Int, Int, Int64) -> Void)?
    ) {
        self.library = library
        self.quick = quick
        self.repair = repair
        self.author = author
        self.jobs = jobs
        self.snapshotReaders = snapshotReaders
        self.progress = progress
    }

    /// Runs every stage; `Library.verify` documents what it checks and repairs.
    /// - Throws: as `Library.verify`.
    mutating func run() throws -> VerifyReport {
        // Repairs remove and judge originals: not while the catalog's originals root is not
        // mounted here, not the catalog's, or not writable (issue 31 item A3).
        if repair { try library.requireOriginalsRoot() }
        report.dryRun = repair && library.isDryRun
        try library.store.readTransaction { try checkSnapshot() }
        try settleOrphans()
        withholdDeletions()
        planThumbnailRepairs()
        guard repair else { return report }
        try makeRepairs()
        return report
    }

    /// Every check, in the read transaction's snapshot.
    ///
    /// The thumbnails' checks and the catalog's, in two parts, run on three more connections in
    /// this transaction's snapshot (`VerifyStore.openSnapshotReaders`), each on its own thread,
    /// while this thread checks the originals' files: on PostgreSQL the server runs their
    /// statements meanwhile, on SQLite their reads of the file overlap (quick_check alone reads
    /// all of it). Without such connections they run here, in turn. Their problems are put where
    /// the one-connection order puts them: the catalog's first, the thumbnails' after the
    /// originals' and before the orphans'.
    /// - Throws: the store's error; `StopSignal`'s.
    private mutating func checkSnapshot() throws {
        let store = library.verifyStore
        let (quick, jobs) = (quick, jobs)
        let readers = try store.openSnapshotReaders(count: snapshotReaders)
        let thumbnailChecks = Library.VerifyTask(reader: readers.first) { store in
            try VerifyThumbnailsCheck(quick: quick, jobs: jobs).run(on: store)
        }
        let storageChecks = Library.VerifyTask(reader: readers.dropFirst().first) { store in
            try VerifyStorageCheck(thorough: !quick).run(on: store)
        }
        let rowChecks = Library.VerifyTask(reader: readers.dropFirst(2).first) { store in
            try VerifyCatalogRowsCheck().run(on: store)
        }
        defer {
            thumbnailChecks.wait()
            storageChecks.wait()
            rowChecks.wait()
        }
        // Counted first (the same snapshot), then read one row at a time (`VerifyOriginalsCheck`).
        let total = try store.recordedOriginalCount()
        report.photos = try store.photoCount()
        var originals = VerifyOriginalsCheck(
            quick: quick, jobs: jobs, total: total, externalData: library.externalData, progress: progress)
        try originals.run(store)
        report.problems = originals.problems
        missingOriginal = originals.missingOriginal
        try countDeletions(store)
        let withoutData = try photosWithoutData(store)
        let externalData = VerifyExternalDataCheck(
            externalData: library.externalData, unusual: originals.unusual, usedShards: originals.usedShards,
            withoutData: withoutData)
        report.problems += externalData.folderProblems()
        let (files, orphans) = try externalData.orphans(store)
        report.files = files
        let thumbnails = try thumbnailChecks.value(fallback: store)
        report.thumbnails = thumbnails.checked
        report.problems += thumbnails.problems + orphans
        let catalog = try storageChecks.value(fallback: store) + rowChecks.value(fallback: store)
        report.problems.insert(contentsOf: catalog, at: 0)
    }

    /// Fills in what the deletion of each photo whose original is missing takes along (its
    /// ratings and tag links), asked for those photos only.
    /// - Throws: the store's error.
    private mutating func countDeletions(_ store: any VerifyStore) throws {
        let deletions = report.problems.indices.filter {
            if case .deletePhoto? = report.problems[$0].repair { return true } else { return false }
        }
        guard !deletions.isEmpty else { return }
        let counts = try store.ratingAndTagLinkCounts(
            ofPhotos: deletions.compactMap { report.problems[$0].subject.photoUniqueName })
        for i in deletions {
            guard case let .deletePhoto(name, display, _, _, zone)? = report.problems[i].repair else { continue }
            let count = counts[name] ?? (0, 0)
            report.problems[i].repair = .deletePhoto(
                uniqueName: name, displayName: display, ratings: count.ratings, tags: count.tagLinks, zone: zone)
        }
    }

    /// Reports the photos without a PhotoData row; returns how verify names them.
    /// - Throws: the store's error.
    private mutating func photosWithoutData(_ store: any VerifyStore) throws -> [String] {
        var withoutData: [String] = []
        for (name, display) in try store.photosWithoutOriginal().map({ ($0.uniqueName, $0.displayName) }) {
            withoutData.append(Library.describePhoto(name, display))
            report.problems.append(
                VerifyProblem(
                    kind: .missingPhotoData, subject: .photo(PhotoName(uniqueName: name, displayName: display)),
                    detail: "\(Library.describePhoto(name, display)) has no PhotoData row"))
        }
        return withoutData
    }

    /// The orphans judged again after the snapshot.
    ///
    /// The folders were listed after the snapshot was taken: an import or merge that committed
    /// in between has its originals there and its rows outside the snapshot. Each unreferenced
    /// file is looked up again in the catalog as it is now (the last commit); one referenced
    /// now, or gone since, is no orphan.
    /// - Throws: `LibraryError` from the store.
    private mutating func settleOrphans() throws {
        let recheck = report.problems.indices.filter {
            report.problems[$0].kind == .orphanFile || report.problems[$0].kind == .temporaryFile
        }
        guard !recheck.isEmpty else { return }
        // An import or merge holds the import lock shared while it writes originals it has
        // not committed yet: verify alone judges unreferenced files only while it holds
        // that lock exclusively (asked without waiting, held while it decides, so none
        // starts meanwhile); when one runs, they are counted as not checked, no problem.
        // (`--repair` asks again before it removes any, in `makeRepairs`.)
        var importLock: Int32?
        var importRunning = false
        if !repair {
            switch library.probeImportLock() {
            case .free(let fd): importLock = fd
            case .held: importRunning = true
            case .unknown: break
            }
        }
        defer { if let importLock { close(importLock) } }
        var settled = Set<Int>()
        do {
            for i in recheck {
                guard case .file(let ref) = report.problems[i].subject else { continue }
                var st = stat()
                if lstat(library.externalData.path(for: ref), &st) != 0 && errno == ENOENT {
                    settled.insert(i)
                } else if report.problems[i].kind == .orphanFile, try library.referencesFile(ref) {
                    settled.insert(i)
                }
            }
        } catch {
            throw LibraryError.wrap(error, library: library.root)
        }
        if importRunning {
            let unjudged = recheck.filter { !settled.contains($0) }
            report.filesNotChecked = unjudged.count
            settled.formUnion(unjudged)
        }
        report.problems = report.problems.indices.filter { !settled.contains($0) }.map { report.problems[$0] }
    }

    /// Withholds the photo deletions that must not be made: every photo at once, or on a
    /// catalog that other library folders share.
    private mutating func withholdDeletions() {
        // Never forget every photo at once: when the external data folder is missing or not a
        // folder (an unmounted disk, a moved folder), or no original at all is there while
        // several are recorded, the originals are not gone but out of reach; deleting the photos
        // would lose their tags, ratings and shares for good. Reported, not repaired.
        var st = stat()
        let rootIsFolder = stat(library.externalData.root, &st) == 0 && st.st_mode & S_IFMT == S_IFDIR
        let missingCount = report.problems.filter { $0.kind == .missingFile }.count
        let noneThere = missingCount > 1 && (try? library.verifyStore.recordedOriginalCount()) == missingCount
        if !rootIsFolder || noneThere {
            let why =
                !rootIsFolder
                ? "the external data folder \(library.externalData.root) is missing or not a folder"
                : "none of the \(missingCount) originals is in \(library.externalData.root)"
            for i in report.problems.indices {
                if case .deletePhoto? = report.problems[i].repair {
                    report.problems[i].repair = nil
                    report.problems[i].detail +=
                        " (not repaired: \(why); mount or restore it, or delete the photos with 'photos delete')"
                }
            }
        }
        // A catalog that several library folders have opened (issue 31 item A3): an original
        // not visible from here may be visible from another machine (a mount that differs, a
        // copy not finished): never a reason to delete the photo. Reported, not repaired.
        if library.originals.isShared {
            let who =
                library.originals.folders > 1
                ? "the catalog is shared by \(library.originals.folders) library folders"
                : "the catalog may be shared by library folders that opened it before photos recorded them"
            for i in report.problems.indices {
                if case .deletePhoto? = report.problems[i].repair {
                    report.problems[i].repair = nil
                    report.problems[i].detail +=
                        " (not repaired: \(who), and an original not visible from here may be visible from another; restore it into \(library.originals.root), or delete the photo with 'photos delete')"
                }
            }
        }
    }

    /// A thumbnail cannot be made again from an original that is gone or damaged; when the
    /// photo is to be deleted, that deletion is the thumbnail's repair too.
    private mutating func planThumbnailRepairs() {
        var deletion: [VerifySubject: VerifyRepair] = [:]
        for problem in report.problems {
            if case .deletePhoto? = problem.repair { deletion[problem.subject] = problem.repair }
        }
        for i in report.problems.indices {
            if case .regenerateThumbnail? = report.problems[i].repair,
                let name = report.problems[i].subject.photoUniqueName,
                missingOriginal.contains(name)
            {
                report.problems[i].repair = deletion[report.problems[i].subject]
                report.problems[i].detail += " (its original is missing or damaged, so it cannot be made again)"
            }
        }
    }

    /// Makes the planned repairs (`Library.makeRepairs`) and marks the problems repaired, or
    /// notes why not.
    /// - Throws: `LibraryError`; `Interrupted<VerifyReport>` when an error stops the repairs after
    ///   some were made (they stay made; the report marks them repaired).
    private mutating func makeRepairs() throws {
        var done = Library.RepairOutcome()
        do {
            try library.makeRepairs(report.repairs, author: author, outcome: &done)
        } catch {
            // What was made before the error stays made (a dry run made nothing): say so with
            // the error (issue 9 item 9).
            apply(done)
            let e = LibraryError.wrap(error, library: library.root)
            if !library.isDryRun && !done.made.isEmpty { throw Interrupted(report: report, error: e) }
            throw e
        }
        apply(done)
    }

    /// Marks the problems whose repair `done` made as repaired (not in a dry run: its repairs
    /// were rolled back, listed as "would repair"), and adds the notes on those not made.
    private mutating func apply(_ done: Library.RepairOutcome) {
        for i in report.problems.indices {
            guard let planned = report.problems[i].repair else { continue }
            if done.made.contains(planned) {
                if !library.isDryRun { report.problems[i].repaired = true }
            } else if let note = done.notes[planned] {
                report.problems[i].detail += " (\(note))"
            }
        }
    }
}
