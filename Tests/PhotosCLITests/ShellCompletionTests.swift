import Foundation
import XCTest
import PhotosTestSupport

/// `photos completions bash` run under bash: the `_photos` function is called with
/// `COMP_WORDS`/`COMP_CWORD` as bash-completion sets them, and `COMPREPLY` is read back. It
/// completes command words, options, option values and names from the library on the line.
final class ShellCompletionTests: BinaryTestCase {
    override var label: String { "photos-completion" }
    var lib: String { dir + "/lib" }

    /// COMPREPLY after completing the last word of `words` (an empty last word: a new one).
    private func complete(_ words: [String], in folder: String? = nil) throws -> [String] {
        let script = dir + "/photos.bash"
        if !FileManager.default.fileExists(atPath: script) {
            let printed = try run(["completions", "bash"])
            XCTAssertEqual(printed.status, 0, printed.stderr)
            try printed.stdout.write(toFile: script, atomically: true, encoding: .utf8)
        }
        let quoted = words.map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
        let program = """
            source '\(script)'
            \(folder.map { "cd '\($0)'" } ?? "")
            COMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count - 1)
            _photos
            printf '%s\\n' "${COMPREPLY[@]}"
            """
        var environment = ProcessInfo.processInfo.environment
        environment["PATH"] = (try binary() as NSString).deletingLastPathComponent + ":" + (environment["PATH"] ?? "")
        environment["PHOTOS_LIBRARY"] = dir + "/no-library"
        let result = try runProcess("/bin/bash", ["--norc", "-c", program], environment: environment)
        XCTAssertEqual(result.status, 0, result.stderr)
        return result.stdout.split(separator: "\n").map(String.init)
    }

    func testCommandsAndSubcommands() throws {
        XCTAssertEqual(try complete(["photos", "t"]), ["thumbnail", "thumbnails", "tag"])
        XCTAssertEqual(try complete(["photos", "tag", ""]), ["list", "add", "remove", "delete", "prune", "rename"])
        XCTAssertEqual(try complete(["photos", "history", "c"]), ["consumers", "compact"])
        XCTAssertEqual(try complete(["photos", "--json", "sh"]), ["show", "share"], "after a global option")
        XCTAssertEqual(try complete(["photos", "completions", ""]), ["bash", "zsh", "fish"])
    }

    func testOptionsOfTheCommandAndGlobalOnes() throws {
        XCTAssertEqual(try complete(["photos", "delete", "--d"]), ["--dry-run"])
        XCTAssertEqual(try complete(["photos", "verify", "--re"]), ["--repair"])
        XCTAssertEqual(try complete(["photos", "list", "--li"]), ["--limit", "--library"])
        XCTAssertEqual(try complete(["photos", "list", "--sort", "c"]), ["captured"])
        XCTAssertEqual(try complete(["photos", "export", "--format", "he"]), ["heif"])
        XCTAssertFalse(try complete(["photos", "import", "--"]).contains("--repair"), "only import's own options")
    }

    func testOptionValues() throws {
        XCTAssertEqual(
            try complete(["photos", "share", "invite", "abcd", "a@b.c", "--permission", ""]),
            ["read-only", "read-write"])
        XCTAssertEqual(
            try complete(["photos", "share", "set", "abcd", "--public-permission", "n"]), ["none"])
        XCTAssertEqual(try complete(["photos", "export", "/tmp/x", "--sidecar", "=", ""]), ["xmp", "json", "none"])
        XCTAssertEqual(try complete(["photos", "history", "--entity", "Ph"]), ["Photo", "PhotoData"])
        XCTAssertEqual(try complete(["photos", "gallery", "/tmp/g", "--group", "m"]), ["month"])
        // Relative dates for every DATE (issue 32 item 7); sync's --since is a token.
        XCTAssertEqual(try complete(["photos", "list", "--since", "y"]), ["yesterday"])
        XCTAssertEqual(try complete(["photos", "history", "--until", "-"]), ["-7d", "-30d"])
        XCTAssertEqual(try complete(["photos", "history", "compact", "--before", "t"]), ["today"])
        XCTAssertEqual(try complete(["photos", "sync", "--export", "/tmp/c", "--since", ""]), [])
    }

    func testPhotoShareAndTagNamesComeFromTheLibraryOnTheLine() throws {
        XCTAssertEqual(try run(["--library", lib, "import", samplesDir, "--quiet"]).status, 0)
        let listed = try run(["--library", lib, "--json", "list"])
        let names = try listed.stdout.split(separator: "\n").map { line -> String in
            let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            return try XCTUnwrap(object["uniqueName"] as? String)
        }
        XCTAssertEqual(names.count, 6)
        let all = try complete(["photos", "--library", lib, "delete", ""])
        XCTAssertEqual(Set(all), Set(names))
        let prefix = String(names[0].prefix(6))
        XCTAssertEqual(
            try complete(["photos", "--library", lib, "show", prefix.lowercased()]),
            names.filter { $0.hasPrefix(prefix) }, "a prefix, in either case")
        XCTAssertEqual(try complete(["photos", "delete", ""]), [], "no library: nothing, and no error")

        let share = try run(["--library", lib, "--json", "share", "create", names[0]])
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(share.stdout.utf8)) as? [String: Any])
        let id = try XCTUnwrap(object["id"] as? String)
        XCTAssertEqual(try complete(["photos", "--library", lib, "share", "show", ""]), [id])
        XCTAssertEqual(try complete(["photos", "--library", lib, "list", "--share", ""]), [id])
        XCTAssertEqual(try complete(["photos", "--library", lib, "list", "--zone", ""]), ["default", id])
        XCTAssertEqual(try run(["--library", lib, "tag", "add", "kite", names[1]]).status, 0)
        XCTAssertEqual(try complete(["photos", "--library", lib, "tag", "delete", "k"]), ["kite"])
        // Issue 32 item 8: a value with a space is quoted for the line, as zsh does.
        XCTAssertEqual(try run(["--library", lib, "tag", "add", "New York", names[1]]).status, 0)
        XCTAssertEqual(try complete(["photos", "--library", lib, "tag", "delete", "New"]), ["New\\ York"])
    }

    func testPathsAreTheShellsOwnFileCompletion() throws {
        let folder = dir + "/pictures"
        try FileManager.default.createDirectory(atPath: folder + "/holiday", withIntermediateDirectories: true)
        XCTAssertTrue(FileManager.default.createFile(atPath: folder + "/house.jpg", contents: Data()))
        XCTAssertEqual(try complete(["photos", "import", "ho"], in: folder).sorted(), ["holiday", "house.jpg"])
        XCTAssertEqual(try complete(["photos", "merge", "--from", "ho"], in: folder), ["holiday"], "folders only")
    }

    /// The environment of a shell that finds this build's `photos` first on PATH.
    private func shellEnvironment() throws -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["PATH"] = (try binary() as NSString).deletingLastPathComponent + ":" + (environment["PATH"] ?? "")
        environment["PHOTOS_LIBRARY"] = dir + "/no-library"
        return environment
    }

    /// zsh: the script is sourced with compsys' `compadd`, `_files` and `compdef` stubbed (they
    /// print what they were given), `words`/`CURRENT` set as zsh sets them, and `_photos` called.
    func testZshFunctionOffersTheSameCandidates() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/zsh") else {
            throw XCTSkip("zsh is not installed")
        }
        XCTAssertEqual(try run(["--library", lib, "import", samplesDir, "--quiet"]).status, 0)
        let script = dir + "/_photos"
        try run(["completions", "zsh"]).stdout.write(toFile: script, atomically: true, encoding: .utf8)
        let program = """
            compdef() { :; }
            compadd() { [[ $1 == -- ]] && shift; print -l -- "$@"; }
            _files() { print "(files $*)"; }
            source '\(script)'
            words=(photos t); CURRENT=2; _photos
            words=(photos --library '\(lib)' list --zone ""); CURRENT=6; _photos
            words=(photos merge --from ""); CURRENT=4; _photos
            """
        let result = try runProcess("/usr/bin/zsh", ["-f", "-c", program], environment: try shellEnvironment())
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stdout, "thumbnail\nthumbnails\ntag\ndefault\n(files -/)\n")
    }

    /// fish: `complete -C` asks fish's own completion machinery, with the script sourced.
    func testFishCompletesThroughItsOwnMachinery() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/fish") else {
            throw XCTSkip("fish is not installed")
        }
        let script = dir + "/photos.fish"
        try run(["completions", "fish"]).stdout.write(toFile: script, atomically: true, encoding: .utf8)
        let program = """
            source '\(script)'
            complete -C 'photos t'
            complete -C 'photos share invite x y --permission '
            """
        let result = try runProcess(
            "/usr/bin/fish", ["--no-config", "-c", program], environment: try shellEnvironment())
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stdout, "tag\nthumbnail\nthumbnails\nread-only\nread-write\n")
    }
}
