import Foundation

/// Walks the paths given to `photos import`: files as given, folders recursively in name order,
/// following symbolic links to folders at most once each (no symlink loops: every folder is
/// visited once by device and inode), skipping hidden entries (names starting with `.`) unless
/// asked, and skipping the library's own folder.
public struct FileScanner {
    /// Include hidden files and folders found inside folders. Paths given explicitly are never
    /// skipped for being hidden.
    public var includeHidden: Bool
    /// Folders never entered (the library itself), as absolute paths.
    public var excludedFolders: [String]

    public init(includeHidden: Bool = false, excludedFolders: [String] = []) {
        self.includeHidden = includeHidden
        self.excludedFolders = excludedFolders
    }

    private struct FileID: Hashable { let device: UInt64; let inode: UInt64 }

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
    /// cannot be read as files (never silently dropped: the importer counts them).
    /// - Throws: `FileError` naming the first path that does not exist.
    public func scanReporting(_ paths: [String]) throws -> (files: [String], problems: [Problem]) {
        var visited = Set<FileID>()
        var excluded = Set<FileID>()
        for folder in excludedFolders {
            var st = stat()
            if stat(folder, &st) == 0 { excluded.insert(FileID(device: UInt64(st.st_dev), inode: UInt64(st.st_ino))) }
        }
        var files: [String] = []
        var problems: [Problem] = []
        var seenFiles = Set<FileID>()
        for path in paths {
            var st = stat()
            guard stat(path, &st) == 0 else {
                let reason = String(cString: strerror(errno))
                throw FileError(.noInput, "\(path): \(reason)", errno: errno)
            }
            walk(
                path, st: st, visited: &visited, excluded: excluded, files: &files, problems: &problems,
                seenFiles: &seenFiles)
        }
        return (files, problems)
    }

    private func walk(
        _ path: String, st: stat, visited: inout Set<FileID>, excluded: Set<FileID>,
        files: inout [String], problems: inout [Problem], seenFiles: inout Set<FileID>
    ) {
        let id = FileID(device: UInt64(st.st_dev), inode: UInt64(st.st_ino))
        switch st.st_mode & S_IFMT {
        case S_IFREG:
            // The same file reached twice (a link, or given twice) is listed once.
            if seenFiles.insert(id).inserted { files.append(path) }
        case S_IFDIR:
            guard !excluded.contains(id), visited.insert(id).inserted else { return }
            let base = path.hasSuffix("/") ? path : path + "/"
            guard let (names, badNames) = FileScanner.list(path) else {
                problems.append(
                    Problem(
                        path: path, reason: "cannot read folder: \(String(cString: strerror(errno)))", isFolder: true))
                return
            }
            for name in badNames where includeHidden || !name.hasPrefix(".") {
                problems.append(
                    Problem(
                        path: base + name, reason: "file name is not valid UTF-8; rename it to import it",
                        isFolder: false))
            }
            for name in names.sorted() {
                if !includeHidden && name.hasPrefix(".") { continue }
                let child = base + name
                var cst = stat()
                guard stat(child, &cst) == 0 else {
                    problems.append(
                        Problem(
                            path: child, reason: "cannot read: \(String(cString: strerror(errno)))", isFolder: false))
                    continue
                }
                walk(
                    child, st: cst, visited: &visited, excluded: excluded, files: &files, problems: &problems,
                    seenFiles: &seenFiles)
            }
        default:
            // Devices, FIFOs, sockets: never opened (a FIFO would block the reader forever).
            let kind: String
            switch st.st_mode & S_IFMT {
            case S_IFIFO: kind = "a FIFO"
            case S_IFSOCK: kind = "a socket"
            case S_IFCHR, S_IFBLK: kind = "a device"
            default: kind = "not a file or folder"
            }
            problems.append(Problem(path: path, reason: "not a regular file (\(kind))", isFolder: false))
        }
    }

    /// The entries of a folder (without `.` and `..`): names that are valid UTF-8, and the others
    /// with U+FFFD for the bad bytes (a Swift `String` path cannot name them). Nil with `errno`
    /// set when the folder cannot be opened.
    static func list(_ path: String) -> ([String], [String])? {
        guard let dir = opendir(path) else { return nil }
        defer { closedir(dir) }
        var names: [String] = []
        var bad: [String] = []
        while let entry = readdir(dir) {
            let bytes: [UInt8] = withUnsafeBytes(of: &entry.pointee.d_name) { Array($0.prefix(while: { $0 != 0 })) }
            if bytes == [0x2E] || bytes == [0x2E, 0x2E] { continue }
            if let name = String(validating: bytes, as: UTF8.self) {
                names.append(name)
            } else {
                bad.append(String(decoding: bytes, as: UTF8.self))
            }
        }
        return (names, bad.sorted())
    }
}
