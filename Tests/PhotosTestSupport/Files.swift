import Foundation
import PhotosFiles

/// SHA-256 of a file's bytes, or "" when it cannot be read.
public func sha256(ofFile path: String) -> String {
    guard let data = FileManager.default.contents(atPath: path) else { return "" }
    return (try? data.withUnsafeBytes { try SHA256Hasher.hex(of: $0) }) ?? ""
}

/// The files a team catalog's originals root holds besides originals (issue 31 item A3): its
/// marker (`.photos-originals`, the catalog id) and the import lock of a shared catalog.
public let originalsRootBookkeeping: Set<String> = [".photos-originals", ".photos-import.lock"]

/// Every regular file under `root`, relative, sorted; hidden ones only when asked; never the
/// originals root's bookkeeping files (`originalsRootBookkeeping`).
public func filesUnder(_ root: String, hidden: Bool = false) -> [String] {
    guard let e = FileManager.default.enumerator(atPath: root) else { return [] }
    var result: [String] = []
    while let rel = e.nextObject() as? String {
        if originalsRootBookkeeping.contains(rel) { continue }
        if !hidden && rel.split(separator: "/").contains(where: { $0.hasPrefix(".") }) { continue }
        var isDir: ObjCBool = false
        if FileManager.default.fileExists(atPath: root + "/" + rel, isDirectory: &isDir), !isDir.boolValue {
            result.append(rel)
        }
    }
    return result.sorted()
}
