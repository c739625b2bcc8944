import Foundation
import XCTest
@testable import PhotosCLI

/// `photos --version` names the version and every linked C library with the version the
/// system's packages hold (checked against dpkg, a source independent of the code under test).
final class VersionLibrariesTests: XCTestCase {
    /// The indented `name version` lines after the first, as a dictionary.
    private func libraries(_ output: String) -> [String: String] {
        var result: [String: String] = [:]
        for line in output.split(separator: "\n").dropFirst() where line.hasPrefix("  ") {
            let parts = line.trimmingCharacters(in: .whitespaces).split(separator: " ", maxSplits: 1)
            guard parts.count == 2 else { continue }
            result[String(parts[0])] = parts[1].trimmingCharacters(in: .whitespaces)
        }
        return result
    }

    /// The upstream version of an installed Debian package ("1:2.1.5-2" → "2.1.5"), or nil.
    private func debianVersion(_ package: String) -> String? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/dpkg-query")
        process.arguments = ["-W", "-f=${Version}", package]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return nil }
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { return nil }
        var text = String(decoding: data, as: UTF8.self)
        if let colon = text.firstIndex(of: ":") { text = String(text[text.index(after: colon)...]) }
        return text.split(separator: "-").first.map(String.init)
    }

    func testVersionListsEveryLinkedLibraryWithItsPackageVersion() throws {
        let result = photos(["--version"])
        XCTAssertEqual(result.status, 0)
        XCTAssertEqual(result.stdout.split(separator: "\n").first.map(String.init), "photos \(CLI.version)")
        let listed = libraries(result.stdout)
        XCTAssertEqual(
            Set(listed.keys),
            [
                "SQLite", "libjpeg-turbo", "libpng", "lcms2", "libheif", "libwebp", "libtiff", "giflib", "libjxl",
                "LibRaw", "libavformat", "libavcodec", "libswscale", "libavutil",
                "libcrypto"
            ],
            result.stdout)
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/dpkg-query") else {
            throw XCTSkip("dpkg-query is not installed: cannot compare with the packages' versions")
        }
        let packages = [
            ("SQLite", "libsqlite3-0"), ("libjpeg-turbo", "libjpeg62-turbo"), ("libpng", "libpng16-16"),
            ("lcms2", "liblcms2-2"), ("libheif", "libheif1"), ("libwebp", "libwebp7"), ("libtiff", "libtiff6"),
            ("giflib", "libgif7"), ("libjxl", "libjxl0.7"), ("LibRaw", "libraw20")
        ]
        for (name, package) in packages {
            guard let expected = debianVersion(package) else { continue }
            XCTAssertEqual(listed[name], expected, "\(name) against Debian package \(package)")
        }
        // The last line says whether our own JPEG decoders run: on for the checked libjpeg-turbo 2.1.5.
        let last = result.stdout.split(separator: "\n").last.map(String.init) ?? ""
        if listed["libjpeg-turbo"] == "2.1.5" {
            XCTAssertEqual(last, "JPEG decoders: on (libjpeg-turbo 2.1.5, a checked version; the probe matched)")
        } else {
            XCTAssertTrue(last.hasPrefix("JPEG decoders: off (linked libjpeg-turbo "), last)
        }
        if let openssl = debianVersion("libssl3") {
            XCTAssertTrue(listed["libcrypto"]?.hasPrefix("OpenSSL \(openssl)") == true, listed["libcrypto"] ?? "")
        }
    }

    func testVersionAsJSONAfterACommandName() {
        let result = photos(["list", "--json", "--version"])
        XCTAssertEqual(result.status, 0)
        XCTAssertTrue(
            result.stdout.hasPrefix("{\"version\":\"\(CLI.version)\",\"libraries\":{\"SQLite\":\""), result.stdout)
        XCTAssertEqual(result.stdout.filter { $0 == "\n" }.count, 1, "one JSON line")
    }
}
