import Foundation
import XCTest

/// The package root, found from this file's path.
let packageRoot: String = {
    var url = URL(fileURLWithPath: #filePath)
    for _ in 0..<3 { url.deleteLastPathComponent() }
    return url.path
}()

/// `Samples/` of the repository: real photos that are always there.
let samplesDir = packageRoot + "/Samples"

/// `../shared/corpus`, or nil when it is absent.
let corpusDir: String? = {
    let path = (packageRoot as NSString).deletingLastPathComponent + "/shared/corpus"
    return FileManager.default.fileExists(atPath: path + "/MANIFEST.tsv") ? path : nil
}()

/// Skips the test with a clear message when ../shared/corpus is absent.
func requireCorpus() throws -> String {
    guard let corpusDir else {
        throw XCTSkip("../shared/corpus is absent (expected beside the repository); corpus tests skipped")
    }
    return corpusDir
}

/// One MANIFEST.tsv row.
struct ManifestEntry {
    var path: String
    var bytes: Int
    var sha256: String
    var format: String
    var width: Int?
    var height: Int?
    var expect: String
    var note: String
}

func loadManifest(_ corpus: String) throws -> [ManifestEntry] {
    let text = try String(contentsOfFile: corpus + "/MANIFEST.tsv", encoding: .utf8)
    return text.split(separator: "\n").dropFirst().map { line in
        let f = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        return ManifestEntry(path: f[0], bytes: Int(f[1]) ?? 0, sha256: f[2], format: f[3], width: Int(f[4]),
                             height: Int(f[5]), expect: f[6], note: f.count > 7 ? f[7] : "")
    }
}

/// A fresh temporary folder, removed by `cleanup()`.
final class TempDir {
    let path: String
    init(_ label: String = "photos-test") throws {
        path = NSTemporaryDirectory() + "\(label)-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }
    func cleanup() { try? FileManager.default.removeItem(atPath: path) }
    func file(_ name: String) -> String { path + "/" + name }
    func copy(_ source: String, as name: String) throws -> String {
        let dest = file(name)
        try FileManager.default.createDirectory(atPath: (dest as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: source, toPath: dest)
        return dest
    }
    func write(_ name: String, _ bytes: [UInt8]) throws -> String {
        let dest = file(name)
        try FileManager.default.createDirectory(atPath: (dest as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: dest, contents: Data(bytes))
        return dest
    }
}
