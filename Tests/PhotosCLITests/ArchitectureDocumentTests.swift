import Foundation
import PhotosTestSupport
import XCTest

/// ARCHITECTURE.md's tree of targets stays true (issue 30 item 9): every target Package.swift
/// declares has a line in it, and it lists no target Package.swift does not declare. Reads
/// Package.swift as text (no `swift package dump-package`: it would resolve the package).
final class ArchitectureDocumentTests: XCTestCase {
    /// The names of every `.target`, `.systemLibrary`, `.executableTarget` and `.testTarget`
    /// (and the other target kinds) in `manifest`, in order.
    static func declaredTargets(_ manifest: String) -> [String] {
        let pattern = try? NSRegularExpression(
            pattern:
                #"\.(target|systemLibrary|executableTarget|testTarget|binaryTarget|plugin|macro)\(\s*name:\s*"([^"]+)""#
        )
        let range = NSRange(manifest.startIndex..., in: manifest)
        return (pattern?.matches(in: manifest, range: range) ?? []).compactMap {
            Range($0.range(at: 2), in: manifest).map { String(manifest[$0]) }
        }
    }

    /// The first word of each line of the `## Targets` section's tree (tree glyphs and spaces
    /// dropped; folder lines such as `Tests/` left out).
    static func documentedTargets(_ architecture: String) -> [String] {
        guard let start = architecture.range(of: "\n## Targets\n") else { return [] }
        let section = architecture[start.upperBound...].components(separatedBy: "\n## ").first ?? ""
        let blocks = section.components(separatedBy: "```")
        guard blocks.count >= 3 else { return [] }
        return blocks[1].split(separator: "\n").compactMap { line in
            let word = line.drop { "│├└─ ".contains($0) }.prefix { $0 != " " }
            return word.isEmpty || word.hasSuffix("/") ? nil : String(word)
        }
    }

    func testTheParsersReadTheShapesTheyMeet() {
        XCTAssertEqual(
            Self.declaredTargets(
                """
                .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3"),
                .target(
                    name: "CImageCodec", dependencies: ["CJPEG"]),
                .executableTarget(name: "photos", dependencies: ["PhotosCLI"]),
                .testTarget(name: "PhotosCLITests")
                """), ["CSQLite", "CImageCodec", "photos", "PhotosCLITests"])
        XCTAssertEqual(
            Self.documentedTargets(
                "# A\n\n## Targets\n\nText.\n\n```\nphotos   the tool\n└─ PhotosCLI  commands\n   │  └─ CPq  libpq\nTests/\n├─ PhotosCLITests  x\n```\n\n## Next\n```\nNotATarget\n```\n"
            ), ["photos", "PhotosCLI", "CPq", "PhotosCLITests"])
    }

    func testEveryTargetOfPackageSwiftHasALineInArchitectureMD() throws {
        let manifest = try String(contentsOfFile: packageRoot + "/Package.swift", encoding: .utf8)
        let architecture = try String(contentsOfFile: packageRoot + "/ARCHITECTURE.md", encoding: .utf8)
        let declared = Self.declaredTargets(manifest)
        let documented = Self.documentedTargets(architecture)
        XCTAssertTrue(Set(declared).isSuperset(of: ["photos", "PhotosCLI", "PhotosCore", "CSQLite"]), "\(declared)")
        for target in declared where !documented.contains(target) {
            XCTFail("Package.swift declares the target \(target); ARCHITECTURE.md's tree of targets has no line for it")
        }
        for target in documented where !declared.contains(target) {
            XCTFail("ARCHITECTURE.md lists a target \(target) that Package.swift does not declare")
        }
        XCTAssertEqual(documented.count, Set(documented).count, "a target listed twice: \(documented)")
    }
}
