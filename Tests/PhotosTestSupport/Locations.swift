import Foundation
import XCTest

/// The package root, found from this file's path (Tests/PhotosTestSupport/Locations.swift).
public let packageRoot: String = {
    var url = URL(fileURLWithPath: #filePath)
    for _ in 0..<3 { url.deleteLastPathComponent() }
    return url.path
}()

/// `Samples/` of the repository: real photos that are always there.
public let samplesDir = packageRoot + "/Samples"

/// `Samples-formats/` of the repository: the HEIC, WebP and Display-P3 samples.
public let formatSamplesDir = packageRoot + "/Samples-formats"

/// `../shared/corpus` (beside the package root), whether or not it is there.
public let corpusPath: String = (packageRoot as NSString).deletingLastPathComponent + "/shared/corpus"

/// `../shared/corpus`, or nil when it (or its MANIFEST.tsv) is absent.
public let corpusDir: String? = FileManager.default.fileExists(atPath: corpusPath + "/MANIFEST.tsv") ? corpusPath : nil

/// The corpus folder.
/// - Throws: `XCTSkip` with a clear message when ../shared/corpus is absent.
public func requireCorpus() throws -> String {
    guard let corpusDir else {
        throw XCTSkip(
            "../shared/corpus is absent (expected at \(corpusPath), beside the repository); corpus tests skipped")
    }
    return corpusDir
}

/// One MANIFEST.tsv row: `path bytes sha256 format width height expect note`, tab-separated.
public struct ManifestEntry: Sendable {
    /// Path relative to the corpus folder.
    public var path: String
    /// File size, bytes.
    public var bytes: Int
    /// SHA-256 of the file, lowercase hex.
    public var sha256: String
    public var format: String
    /// Width and height, pixels (nil when the manifest leaves them empty).
    public var width: Int?
    public var height: Int?
    /// `ok`, `reject` or `either`.
    public var expect: String
    public var note: String
}

/// Reads the corpus MANIFEST.tsv (the header line skipped).
/// - Throws: the read error of MANIFEST.tsv.
public func loadManifest(_ corpus: String) throws -> [ManifestEntry] {
    let text = try String(contentsOfFile: corpus + "/MANIFEST.tsv", encoding: .utf8)
    return text.split(separator: "\n").dropFirst().map { line in
        let f = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        return ManifestEntry(
            path: f[0], bytes: Int(f[1]) ?? 0, sha256: f[2], format: f[3], width: Int(f[4]),
            height: Int(f[5]), expect: f[6], note: f.count > 7 ? f[7] : "")
    }
}

/// A fresh temporary folder, removed by `cleanup()` (with the PostgreSQL schemas of the
/// libraries made inside it, `TestDatabase.dropSchemas`).
public final class TempDir {
    public let path: String
    /// - Throws: the error of creating the folder.
    public init(_ label: String = "photos-test") throws {
        path = NSTemporaryDirectory() + "\(label)-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }
    public func cleanup() {
        TestDatabase.dropSchemas(under: path)
        try? FileManager.default.removeItem(atPath: path)
    }
    public func file(_ name: String) -> String { path + "/" + name }
    public func copy(_ source: String, as name: String) throws -> String {
        let dest = file(name)
        try FileManager.default.createDirectory(
            atPath: (dest as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: source, toPath: dest)
        return dest
    }
    public func write(_ name: String, _ bytes: [UInt8]) throws -> String {
        let dest = file(name)
        try FileManager.default.createDirectory(
            atPath: (dest as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: dest, contents: Data(bytes))
        return dest
    }
}
