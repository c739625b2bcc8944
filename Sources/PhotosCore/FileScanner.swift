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

    /// The regular files under `paths`, in a stable order.
    /// - Throws: `PhotosError` 66 naming the first path that does not exist.
    public func scan(_ paths: [String]) throws -> [String] {
        var visited = Set<FileID>()
        var excluded = Set<FileID>()
        for folder in excludedFolders {
            var st = stat()
            if stat(folder, &st) == 0 { excluded.insert(FileID(device: UInt64(st.st_dev), inode: UInt64(st.st_ino))) }
        }
        var files: [String] = []
        var seenFiles = Set<FileID>()
        for path in paths {
            var st = stat()
            guard stat(path, &st) == 0 else {
                let reason = String(cString: strerror(errno))
                throw PhotosError.noInput("\(path): \(reason)")
            }
            walk(path, st: st, visited: &visited, excluded: excluded, files: &files, seenFiles: &seenFiles)
        }
        return files
    }

    private func walk(_ path: String, st: stat, visited: inout Set<FileID>, excluded: Set<FileID>,
                      files: inout [String], seenFiles: inout Set<FileID>) {
        let id = FileID(device: UInt64(st.st_dev), inode: UInt64(st.st_ino))
        switch st.st_mode & S_IFMT {
        case S_IFREG:
            // The same file reached twice (a link, or given twice) is listed once.
            if seenFiles.insert(id).inserted { files.append(path) }
        case S_IFDIR:
            guard !excluded.contains(id), visited.insert(id).inserted else { return }
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: path) else { return }
            let base = path.hasSuffix("/") ? path : path + "/"
            for name in names.sorted() {
                if !includeHidden && name.hasPrefix(".") { continue }
                let child = base + name
                var cst = stat()
                guard stat(child, &cst) == 0 else { continue }  // dangling link
                walk(child, st: cst, visited: &visited, excluded: excluded, files: &files, seenFiles: &seenFiles)
            }
        default:
            return  // devices, FIFOs, sockets: never read
        }
    }
}
