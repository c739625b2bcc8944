import Foundation
import PhotosCore
import XCTest

/// Base of the tests that run the built `photos` binary as a separate process (kill -9 needs a
/// real process): a fresh folder per test, the binary, and distinct copies of the samples.
///
/// In PostgreSQL mode (`TestDatabase`) a library the binary would create — `import` (not a dry
/// run), `share accept` or `init` into a folder with no catalog — is made a PostgreSQL library
/// on a schema of its own first (`preparingLibraries`), so tests written for one backend run on
/// both without change; each library of a test (merge, sync, share) gets its own schema.
open class BinaryTestCase: TemporaryFolderTestCase {
    open override var label: String { "photos-binary" }

    /// The `photos` binary `swift test` built.
    /// - Throws: `SetUpFailure` when there is none (`swift build` builds it with the tests).
    public func binary() throws -> String {
        let candidates = [
            Bundle.main.bundleURL.appendingPathComponent("photos").path,
            Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("photos").path,
            packageRoot + "/.build/debug/photos"
        ]
        guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw SetUpFailure("the photos binary was not built (looked in \(candidates))")
        }
        return found
    }

    /// Starts the binary in the background, its output discarded (a library it would create
    /// prepared first, `preparingLibraries`).
    public func launch(_ args: [String]) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try binary())
        process.arguments = try Self.preparingLibraries(args)
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    /// Runs the binary and kills it with SIGKILL after `delay` seconds (or lets it finish first).
    public func killDashNine(_ args: [String], after delay: Double) throws {
        let process = try launch(args)
        Thread.sleep(forTimeInterval: delay)
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// Runs the binary on library `lib` with `args` and asserts exit status 0 (the failure names
    /// the arguments and stderr). Returns stdout.
    @discardableResult
    open func ok(_ lib: String, _ args: [String], file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let r = try run(["--library", lib] + args)
        XCTAssertEqual(r.status, 0, "\(lib) \(args): \(r.stderr)", file: file, line: line)
        return r.stdout
    }

    /// `text`, one JSON object, parsed (a failure names the text).
    open func json(_ text: String) throws -> [String: Any] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], text)
    }

    /// Runs the binary to completion (in `folder` when given, else in this process's current
    /// folder) and returns its exit status and output.
    @discardableResult
    public func run(_ args: [String], in folder: String? = nil) throws -> (
        status: Int32, stdout: String, stderr: String
    ) {
        try runProcess(try binary(), args, currentDirectory: folder)
    }

    /// Runs the binary with `args` exactly as given, to completion: a library it creates in a
    /// new folder is a SQLite one whatever the run's backend. Only for tests of what the binary
    /// does with a SQLite library in particular (`init --database` refusing a folder that has a
    /// SQLite catalog); every other test uses `run`.
    @discardableResult
    public func runAsGiven(_ args: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        try runProcess(try binary(), args, preparing: false)
    }

    /// Runs `executable` with `args` to completion (with `environment` when given, else this
    /// process's; in `currentDirectory` when given) and returns its exit status and output: what `run`, `asReader` and the tests
    /// that set a variable such as `TZ` share. When `executable` is the `photos` binary and
    /// `preparing` is true, a library it would create is prepared first (`preparingLibraries`).
    public func runProcess(
        _ executable: String, _ args: [String], environment: [String: String]? = nil, preparing: Bool = true,
        currentDirectory: String? = nil
    ) throws -> (status: Int32, stdout: String, stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        if let currentDirectory { process.currentDirectoryURL = URL(fileURLWithPath: currentDirectory) }
        let photosPath = (try? binary()).map { URL(fileURLWithPath: $0).standardized.path }
        let isPhotos = preparing && photosPath == process.executableURL?.standardized.path
        process.arguments = isPhotos ? try Self.preparingLibraries(args, environment: environment) : args
        if let environment { process.environment = environment }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        // Both pipes are drained at once: a child that fills one (64 KiB) while this reads the
        // other to its end would wait for ever (LD_DEBUG=libs of a binary linking FFmpeg writes
        // more than 64 KiB to stderr).
        let stderrReader = PipeReader(err.fileHandleForReading)
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group) { stderrReader.readToEnd() }
        let o = out.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        process.waitUntilExit()
        return (
            process.terminationStatus, String(decoding: o, as: UTF8.self),
            String(decoding: stderrReader.data, as: UTF8.self)
        )
    }

    /// Copies of the sample JPEGs made distinct by bytes after EOI, so none is a duplicate (a COM
    /// segment would be metadata: the same image, so the same photo, issue 31 item 5).
    /// - Returns: the folder and the number of files in it.
    public func makeInput(copies: Int) throws -> (String, Int) {
        let input = dir + "/in"
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        let jpegs = try FileManager.default.contentsOfDirectory(atPath: samplesDir).filter { $0.hasSuffix(".jpg") }
            .sorted()
        var count = 0
        for name in jpegs {
            let bytes = try XCTUnwrap(FileManager.default.contents(atPath: samplesDir + "/" + name))
            for i in 0..<copies {
                let trailer = Array("copy \(i) of \(name)".utf8)
                XCTAssertTrue(
                    FileManager.default.createFile(atPath: "\(input)/\(i)-\(name)", contents: bytes + Data(trailer)))
                count += 1
            }
        }
        return (input, count)
    }
}

extension BinaryTestCase {
    /// Runs the binary as `nobody` (as this user when not root: the modes then apply to it).
    public func asReader(_ args: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        guard geteuid() == 0 else { return try run(args) }
        // A copy nobody can reach, wherever the build folder is (CI may build under /root).
        let binary = dir + "/bin/photos"
        if !FileManager.default.fileExists(atPath: binary) {
            try FileManager.default.createDirectory(atPath: dir + "/bin", withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: try self.binary(), toPath: binary)
            chmod(dir + "/bin", 0o755)
            chmod(binary, 0o755)
            chmod(dir, 0o755)
            var parent = (dir as NSString).deletingLastPathComponent
            while parent.count > 1 {
                var st = stat()
                if stat(parent, &st) == 0, st.st_mode & 0o001 == 0 {
                    throw XCTSkip(
                        "\(parent) cannot be entered by nobody: the test folder is not reachable for the permission tests"
                    )
                }
                parent = (parent as NSString).deletingLastPathComponent
            }
        }
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") else {
            throw XCTSkip("setpriv(1) is not installed: cannot drop root's privileges to test permissions")
        }
        let result = try runProcess(
            "/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", binary] + args)
        if result.status != 0 && result.stderr.hasPrefix("setpriv:") {
            throw XCTSkip("setpriv cannot switch to nobody here: \(result.stderr)")
        }
        return result
    }
}

extension BinaryTestCase {
    /// Runs the binary to completion and returns its peak resident set, kilobytes: the largest
    /// VmHWM of /proc/<pid>/status sampled every 2 ms while it runs, or, when larger, the largest
    /// sum of the proportional sets (Pss, /proc/<pid>/smaps_rollup) of it and its child
    /// processes alive at a sample (HEIF decodes run in children: issue 31 B14; Pss counts the
    /// pages a child shares with its parent once). (ru_maxrss from wait4 would include this test
    /// process's own high-water mark: Linux keeps it across the spawn's exec.)
    public func runMeasured(_ args: [String]) throws -> (status: Int32, stderr: String, maxRSSKB: Int) {
        let path = try binary()
        let args = try Self.preparingLibraries(args)
        let errPath = dir + "/stderr-\(UUID().uuidString)"
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let argv: [UnsafeMutablePointer<CChar>?] = ([path] + args).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, path, &actions, nil, argv, environ)
        guard spawned == 0 else { throw SetUpFailure("posix_spawn of \(path) failed: \(spawned)") }
        var status: Int32 = 0
        var peak = 0
        while true {
            if let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
                let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
                let kb = Int(line.dropFirst(6).split(whereSeparator: { $0 == " " || $0 == "\t" }).first ?? "")
            {
                peak = max(peak, kb)
            }
            peak = max(peak, Self.proportionalSetKB(of: pid))
            let done = waitpid(pid, &status, WNOHANG)
            if done == pid { break }
            if done < 0 && errno != EINTR { break }
            usleep(2000)
        }
        let stderr = (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? ""
        let exit = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        return (exit, stderr, peak)
    }
}

extension BinaryTestCase {
    /// The Pss of `pid` and of its children (each thread's /proc/<pid>/task/<tid>/children),
    /// kilobytes; 0 when it is gone.
    static func proportionalSetKB(of pid: pid_t) -> Int {
        func pss(_ pid: String) -> Int {
            guard let text = try? String(contentsOfFile: "/proc/\(pid)/smaps_rollup", encoding: .utf8),
                let line = text.split(separator: "\n").first(where: { $0.hasPrefix("Pss:") })
            else { return 0 }
            return Int(line.dropFirst(4).split(whereSeparator: { $0 == " " || $0 == "\t" }).first ?? "") ?? 0
        }
        var total = pss("\(pid)")
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        for task in tasks {
            let children = (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/children", encoding: .utf8)) ?? ""
            for child in children.split(separator: " ") { total += pss(String(child)) }
        }
        return total
    }
}

extension BinaryTestCase {
    /// Global options of `photos` that take a value (SPEC §5), and the value options of the
    /// commands that create a library (`import`, `init`), so the scan below skips their values.
    private static let valueOptions: Set<String> = [
        "--library", "--author", "--wait", "--tag", "--share", "--jobs", "-j", "--max-pixels",
        "--thumbnail-quality", "--batch-size", "--database", "--from-backup", "--originals"
    ]

    /// `args` ready to run on this run's backend: in SQLite mode unchanged. In PostgreSQL mode,
    /// when the command would create a library in a folder that has no catalog — `import`
    /// (without `--dry-run`, every path it names present), `share accept`, or `init` without
    /// `--database`/`--from-backup` — that folder is made a PostgreSQL library on a fresh
    /// schema: `init` gets `--database` with the schema's connection string (so its output is
    /// `photos init --database`'s), the others find the library made already
    /// (`TestDatabase.initializePostgreSQLLibrary`, which records it as `init --database` does).
    /// The library folder is the one the binary resolves: `--library`, `init`'s argument, else
    /// `PHOTOS_LIBRARY` of `environment` (this process's when nil), else the XDG default.
    /// - Throws: `PostgresError` when the test server cannot be reached.
    public static func preparingLibraries(_ args: [String], environment: [String: String]? = nil) throws -> [String] {
        guard TestDatabase.isPostgreSQL else { return args }
        var words: [(index: Int, word: String)] = []
        var explicitLibrary: String?
        var options: Set<String> = []
        var index = 0
        while index < args.count {
            let arg = args[index]
            if arg == "--" {
                words += args[(index + 1)...].enumerated().map { (index + 1 + $0.offset, $0.element) }
                break
            }
            if arg.hasPrefix("-") && arg != "-" {
                let name = arg.split(separator: "=", maxSplits: 1).first.map(String.init) ?? arg
                options.insert(name)
                var value: String?
                if arg.contains("=") {
                    value = String(arg.drop { $0 != "=" }.dropFirst())
                } else if BinaryTestCase.valueOptions.contains(arg), index + 1 < args.count {
                    value = args[index + 1]
                    index += 1
                }
                if name == "--library" { explicitLibrary = value }
            } else {
                words.append((index, arg))
            }
            index += 1
        }
        guard let command = words.first else { return args }
        // `--library ''` is a usage error the binary reports: no default library is made for it.
        if explicitLibrary?.isEmpty == true { return args }
        let initPath = command.word == "init" ? words.dropFirst().first?.word : nil
        switch command.word {
        case "import":
            guard !options.contains("--dry-run") else { return args }
            let paths = words.dropFirst().map(\.word).filter { $0 != "-" }
            guard paths.allSatisfy({ FileManager.default.fileExists(atPath: $0) }) else { return args }
        case "share":
            guard words.count > 1, words[1].word == "accept" else { return args }
        case "init":
            guard !options.contains("--database"), !options.contains("--from-backup") else { return args }
        default:
            return args
        }
        let variables = environment ?? ProcessInfo.processInfo.environment
        let root = Library.resolvePath(
            explicit: initPath ?? explicitLibrary,
            in: LibraryEnvironment(
                variables: variables, currentDirectory: FileManager.default.currentDirectoryPath,
                fallbackHome: NSHomeDirectory()))
        guard TestDatabase.backend(ofLibraryAt: root) == nil else { return args }
        if command.word == "init" {
            let made = try TestDatabase.makeSchema(forLibraryAt: root)
            var prepared = args
            prepared.insert(contentsOf: ["--database", made], at: command.index + 1)
            return prepared
        }
        do {
            _ = try TestDatabase.initializePostgreSQLLibrary(at: root)
        } catch is LibraryError {
            // A folder that cannot be made: the binary reports that itself.
        }
        return args
    }
}

/// One pipe read to its end on another thread (`runProcess`); `data` is read after the
/// `DispatchGroup` wait, so the two threads never touch it at once.
final class PipeReader: @unchecked Sendable {
    private let handle: FileHandle
    private(set) var data = Data()

    init(_ handle: FileHandle) { self.handle = handle }

    func readToEnd() { data = handle.readDataToEndOfFile() }
}

extension BinaryTestCase {
    /// `photos --library LIB list --json`, each photo's object by its display name (the command
    /// must exit 0).
    /// - Throws: `XCTUnwrap`'s error for a line that is not a JSON object with a `displayName`.
    public func listedByDisplayName(_ lib: String) throws -> [String: [String: Any]] {
        let list = try run(["--library", lib, "list", "--json"])
        XCTAssertEqual(list.status, 0, list.stderr)
        var result: [String: [String: Any]] = [:]
        for line in list.stdout.split(separator: "\n") {
            let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            result[try XCTUnwrap(object["displayName"] as? String)] = object
        }
        return result
    }
}
