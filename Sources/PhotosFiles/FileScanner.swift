import Foundation
import Synchronization

/// Walks the paths given to `photos import`: files as given, folders recursively in name order,
/// following symbolic links to folders at most once each (no symlink loops: every folder is
/// visited once by device and inode), skipping hidden entries (names starting with `.`) unless
/// asked, and skipping the library's own folder.
public struct FileScanner: Sendable {
    /// Include hidden files and folders found inside folders. Paths given explicitly are never
    /// skipped for being hidden.
    public var includeHidden: Bool
    /// Folders never entered (the library itself), as absolute paths.
    public var excludedFolders: [String]

    public init(includeHidden: Bool = false, excludedFolders: [String] = []) {
        self.includeHidden = includeHidden
        self.excludedFolders = excludedFolders
    }

    /// An entry that was found but cannot be read as a file: a FIFO, socket or device, a
    /// dangling symbolic link, a name that is not UTF-8, or a folder that cannot be listed.
    public struct Problem: Equatable, Sendable {
        /// The path (for a name that is not UTF-8, with U+FFFD in place of the bad bytes).
        public var path: String
        /// Why it is not read, one line.
        public var reason: String
        /// True for a folder that could not be listed (always a failure, whatever its name).
        public var isFolder: Bool
    }

    /// The regular files under `paths`, in a stable order.
    /// - Throws: `FileError` naming the first path that does not exist.
    public func scan(_ paths: [String]) throws -> [String] {
        try scanReporting(paths).files
    }

    /// The regular files under `paths`, in a stable order, and the entries that were found but
    /// cannot be read as files (never silently dropped: the importer counts them). Holds the
    /// whole list: `stream(_:)` hands the same files out as the walk finds them.
    /// - Throws: `FileError` naming the first path that does not exist.
    public func scanReporting(_ paths: [String]) throws -> (files: [String], problems: [Problem]) {
        let walk = try stream(paths)
        var files: [String] = []
        while let file = walk.next() { files.append(file) }
        return (files, walk.takeProblems())
    }

    /// The same walk as `scanReporting`, handing out files one at a time as it finds them (in the
    /// same order), so a caller can start on the first files while the rest of the tree is walked
    /// and memory does not grow with the number of files in the tree.
    /// - Throws: `FileError` (66) naming the first path that does not exist; every path is
    ///   checked before any file is handed out.
    /// - Parameter largestFirst: hand out each batch of files found ahead (up to `Walk.batchSize`)
    ///   largest first by `st_size` (files of the same size keep their walk order) instead of in
    ///   walk order. For several workers taking from one walk: a large file taken last leaves
    ///   the other workers idle while it is prepared alone.
    public func stream(_ paths: [String], largestFirst: Bool = false) throws -> Walk {
        var roots: [(String, stat)] = []
        for path in paths {
            var st = stat()
            guard stat(path, &st) == 0 else {
                let reason = String(cString: strerror(errno))
                throw FileError(.noInput, "\(path): \(reason)", errno: errno)
            }
            roots.append((path, st))
        }
        var excluded = Set<FileID>()
        for folder in excludedFolders {
            var st = stat()
            if stat(folder, &st) == 0 { excluded.insert(FileID(st)) }
        }
        return Walk(scanner: self, roots: roots, excluded: excluded, largestFirst: largestFirst)
    }

    /// A walk in progress (`FileScanner.stream`). Thread-safe: several workers may take files
    /// from one walk; each file is handed out once. The walk runs ahead of the takers by batches
    /// of up to `batchSize` files: a tree of at most that many files is walked whole at the first
    /// `next()` (so `found` is its total from the start), a larger one a batch at a time.
    ///
    /// Memory: the names of the folders open on the current path (a folder's names are read and
    /// sorted whole: readdir(3) has no order), the device and inode of every
    /// folder entered (what stops symbolic-link loops; folders, not files), and the device and
    /// inode of the files that can be reached twice — those given as arguments, those reached
    /// through a symbolic link, and those with more than one hard link. Never the list of files.
    public final class Walk: Sendable {
        private let state: Mutex<State>
        private let largestFirst: Bool

        init(scanner: FileScanner, roots: [(String, stat)], excluded: Set<FileID>, largestFirst: Bool = false) {
            state = Mutex(State(scanner: scanner, roots: roots, excluded: excluded))
            self.largestFirst = largestFirst
        }

        /// Files found ahead of the takers at most: 4,096 paths (about 0.5 MB).
        public static let batchSize = 4096

        /// The next regular file in scan order, or nil once the walk is over.
        public func next() -> String? { nextFile()?.path }

        /// The next regular file in scan order with whether its folder has any entry whose name
        /// ends in `.xmp`, `.XMP` or `.json` (true for a file given as an argument): false means
        /// no sidecar can be there, so the importer does not try to open one (five failed opens
        /// per file). Nil once the walk is over.
        public func nextFile() -> (path: String, sidecarsPossible: Bool)? {
            nextEntry().map { ($0.path, $0.sidecarsPossible) }
        }

        /// `nextFile()` with the number of entries of the file's folder that have its base name
        /// (`FileScanner.pairingBase`: the name without its last extension, ignoring case),
        /// sidecars (`.xmp`, `.json`) and hidden names left out: 1 for a file given as an
        /// argument or alone with its base name. The importer holds a file with siblings until
        /// the siblings came too (issue 24 item 2: `IMG_1234.CR2` + `IMG_1234.JPG` are one
        /// photo). Folders and other non-files are counted too, so the count is at most an upper
        /// bound of the files that come; the importer lets a group go once the walk is over.
        public func nextEntry() -> (path: String, sidecarsPossible: Bool, siblings: Int)? {
            state.withLock { s in
                if s.head == s.ahead.count {
                    s.ahead.removeAll(keepingCapacity: true)
                    s.head = 0
                    while s.ahead.count < Walk.batchSize, let file = s.walk() { s.ahead.append(file) }
                    if largestFirst {
                        // Stable: equal sizes (a file and its duplicate among them) keep walk order.
                        s.ahead = s.ahead.enumerated().sorted {
                            $0.element.size != $1.element.size
                                ? $0.element.size > $1.element.size : $0.offset < $1.offset
                        }.map(\.element)
                    }
                }
                guard s.head < s.ahead.count else { return nil }
                defer { s.head += 1 }
                let file = s.ahead[s.head]
                return (file.path, file.sidecarsPossible, file.siblings)
            }
        }

        /// The entries found so far that cannot be read as files, in walk order, each returned once.
        public func takeProblems() -> [Problem] {
            state.withLock { s in
                defer { s.problems.removeAll() }
                return s.problems
            }
        }

        /// Files found so far (handed out, or found ahead and about to be).
        public var found: Int { state.withLock { $0.found } }

        /// True once every path was walked (`found` is then the total).
        public var isFinished: Bool { state.withLock { $0.finished } }

        /// Device/inode pairs held for cycle and twice-reached-file detection: (folders, files).
        var remembered: (folders: Int, files: Int) {
            state.withLock { ($0.visitedFolders.count, $0.aliasedFiles.count) }
        }
    }

    struct FileID: Hashable, Sendable {
        let device: UInt64
        let inode: UInt64
        init(_ st: stat) {
            device = UInt64(st.st_dev)
            inode = UInt64(st.st_ino)
        }
    }

    /// One folder open on the current path: its sorted names and the next one to look at.
    struct Frame: Sendable {
        var base: String
        var names: [String]
        var links: Set<String>
        /// Some entry is named like a sidecar (`Walk.nextFile`).
        var sidecarsPossible: Bool
        /// The base names (`FileScanner.pairingBase`) shared by more than one entry, with their
        /// count (`Walk.nextEntry`); empty in a folder where every base name is alone.
        var bases: [String: Int] = [:]
        var index = 0
    }

    struct State: Sendable {
        let scanner: FileScanner
        var roots: [(String, stat)]
        var rootIndex = 0
        let excluded: Set<FileID>
        var visitedFolders = Set<FileID>()
        /// Files that can be reached twice (see `Walk`).
        var aliasedFiles = Set<FileID>()
        /// The regular files given as arguments: remembered also when the walk of a folder meets them first.
        let argumentFiles: Set<FileID>
        var stack: [Frame] = []
        var problems: [Problem] = []
        var found = 0
        var finished = false
        /// The current batch of files found ahead, and the next one to hand out.
        var ahead: [(path: String, sidecarsPossible: Bool, size: Int64, siblings: Int)] = []
        var head = 0

        init(scanner: FileScanner, roots: [(String, stat)], excluded: Set<FileID>) {
            self.scanner = scanner
            self.roots = roots
            self.excluded = excluded
            argumentFiles = Set(roots.filter { $0.1.st_mode & S_IFMT == S_IFREG }.map { FileID($0.1) })
        }

        /// Walks on to the next regular file; nil once every path was walked.
        mutating func walk() -> (path: String, sidecarsPossible: Bool, size: Int64, siblings: Int)? {
            while !finished {
                if var frame = stack.popLast() {
                    guard frame.index < frame.names.count else { continue }
                    let name = frame.names[frame.index]
                    frame.index += 1
                    let child = frame.base + name
                    let viaLink = frame.links.contains(name)
                    let sidecars = frame.sidecarsPossible
                    // (A sidecar is never counted, nor held: it is read with its image.)
                    let siblings =
                        frame.bases.isEmpty || FileScanner.isSidecarName(name)
                        ? 1 : frame.bases[FileScanner.pairingBase(name)] ?? 1
                    stack.append(frame)
                    var cst = stat()
                    guard stat(child, &cst) == 0 else {
                        problems.append(
                            Problem(
                                path: child, reason: "cannot read: \(String(cString: strerror(errno)))", isFolder: false
                            ))
                        continue
                    }
                    if let file = visit(child, cst, aliased: viaLink) {
                        return (file, sidecars, Int64(cst.st_size), siblings)
                    }
                } else if rootIndex < roots.count {
                    let (path, st) = roots[rootIndex]
                    rootIndex += 1
                    if let file = visit(path, st, aliased: true) { return (file, true, Int64(st.st_size), 1) }
                } else {
                    finished = true
                }
            }
            return nil
        }

        /// A file to hand out, or nil after entering a folder (pushed) or noting a problem.
        private mutating func visit(_ path: String, _ st: stat, aliased: Bool) -> String? {
            let id = FileID(st)
            switch st.st_mode & S_IFMT {
            case S_IFREG:
                // The same file reached twice (a hard link, a symbolic link, or given twice) is listed
                // once. Only such files are remembered: one with a single link, reached by its own name
                // in a folder entered once, can only come again as an argument (known from the start) or
                // through a symbolic link, which remembered it when it came first. (One reached by its
                // name first and through a symbolic link afterwards is listed twice; the importer finds
                // the second a duplicate of the first.)
                if aliased || st.st_nlink > 1 || argumentFiles.contains(id) {
                    guard aliasedFiles.insert(id).inserted else { return nil }
                } else if !aliasedFiles.isEmpty && aliasedFiles.contains(id) {
                    return nil
                }
                found += 1
                return path
            case S_IFDIR:
                guard !excluded.contains(id), visitedFolders.insert(id).inserted else { return nil }
                let base = path.hasSuffix("/") ? path : path + "/"
                guard let (entries, badNames) = FileScanner.list(path) else {
                    problems.append(
                        Problem(
                            path: path, reason: "cannot read folder: \(String(cString: strerror(errno)))",
                            isFolder: true))
                    return nil
                }
                for name in badNames where scanner.includeHidden || !name.hasPrefix(".") {
                    problems.append(
                        Problem(
                            path: base + name, reason: "file name is not valid UTF-8; rename it to import it",
                            isFolder: false))
                }
                var names: [String] = []
                var links = Set<String>()
                var sidecars = false
                names.reserveCapacity(entries.count)
                for (name, mayBeLink) in entries {
                    if !sidecars {
                        sidecars = name.hasSuffix(".xmp") || name.hasSuffix(".XMP") || name.hasSuffix(".json")
                    }
                    guard scanner.includeHidden || !name.hasPrefix(".") else { continue }
                    names.append(name)
                    if mayBeLink { links.insert(name) }
                }
                names.sort()
                var counts: [String: Int] = [:]
                for name in names where !FileScanner.isSidecarName(name) {
                    counts[FileScanner.pairingBase(name), default: 0] += 1
                }
                stack.append(
                    Frame(
                        base: base, names: names, links: links, sidecarsPossible: sidecars,
                        bases: counts.filter { $0.value > 1 }))
                return nil
            default:
                // Devices, FIFOs, sockets: never opened (a FIFO would block the reader forever),
                // named as ImageFile names them.
                problems.append(
                    Problem(
                        path: path, reason: "not a regular file (\(ImageFile.fileTypeName(st.st_mode)))",
                        isFolder: false))
                return nil
            }
        }
    }

    /// The name `name` (a last path component) without its last extension, lowercased: the key
    /// a camera's RAW+JPEG pair shares (`IMG_1234.CR2`, `IMG_1234.JPG` → `img_1234`; issue 24
    /// item 2). A name without an extension is its own base.
    public static func pairingBase(_ name: String) -> String {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return name.lowercased() }
        return name[..<dot].lowercased()
    }

    /// True for a sidecar's name (`.xmp`, `.XMP`, `.json`, any case): never half of a pair.
    static func isSidecarName(_ name: String) -> Bool {
        let lower = name.lowercased()
        return lower.hasSuffix(".xmp") || lower.hasSuffix(".json")
    }

    /// The entries of a folder (without `.` and `..`): names that are valid UTF-8, each with
    /// whether it may be a symbolic link (`d_type` DT_LNK, or DT_UNKNOWN on file systems that do
    /// not say), and the others with U+FFFD for the bad bytes (a Swift `String` path cannot name
    /// them). Nil with `errno` set when the folder cannot be opened.
    static func list(_ path: String) -> ([(name: String, mayBeLink: Bool)], [String])? {
        guard let dir = opendir(path) else { return nil }
        defer { closedir(dir) }
        var names: [(name: String, mayBeLink: Bool)] = []
        var bad: [String] = []
        while let entry = readdir(dir) {
            let bytes: [UInt8] = withUnsafeBytes(of: &entry.pointee.d_name) { Array($0.prefix(while: { $0 != 0 })) }
            if bytes == [0x2E] || bytes == [0x2E, 0x2E] { continue }
            let type = entry.pointee.d_type
            if let name = String(validating: bytes, as: UTF8.self) {
                names.append((name, type == UInt8(DT_LNK) || type == UInt8(DT_UNKNOWN)))
            } else {
                bad.append(String(decoding: bytes, as: UTF8.self))
            }
        }
        return (names, bad.sorted())
    }
}
