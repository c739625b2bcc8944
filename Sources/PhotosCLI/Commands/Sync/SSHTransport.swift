import Foundation
import PhotosCore

/// A library or changeset on another machine, reached over SSH (issue 29 item 2):
/// `ssh://[user@]host[:port]/path` (`/~/path`: relative to the remote home) or the scp form
/// `[user@]host:path` (relative to the remote home unless it starts with `/`). As with git and
/// scp, a colon before any `/` makes an argument remote; `./a:b` is the local file `a:b`.
struct RemoteAddress: Equatable {
    var user: String?
    var host: String
    var port: Int?
    /// The path as the far side's `photos` gets it: absolute, or relative to the login folder.
    var path: String

    /// `[user@]host` as ssh takes it.
    var destination: String { (user.map { $0 + "@" } ?? "") + host }

    /// How messages name it: `host:path` (`host:port:path` with a port).
    var display: String { destination + (port.map { ":\($0)" } ?? "") + ":" + path }

    /// The address `text` names, nil when it is a local path.
    /// - Throws: `UsageError` (64) for a remote form with no path, an empty or option-like host
    ///   or user (`-oProxyCommand=…` would be an option of ssh), or a port outside 1…65535.
    static func parse(_ text: String) throws -> RemoteAddress? {
        if text.hasPrefix("ssh://") {
            let rest = text.dropFirst("ssh://".count)
            guard let slash = rest.firstIndex(of: "/") else {
                throw UsageError("\(text): an ssh:// address needs a path after the host (ssh://host/path)")
            }
            var authority = String(rest[..<slash])
            var path = String(rest[slash...])
            if path.hasPrefix("/~/") { path = String(path.dropFirst(3)) }
            var user: String?
            if let at = authority.lastIndex(of: "@") {
                user = String(authority[..<at])
                authority = String(authority[authority.index(after: at)...])
            }
            var host = authority
            var port: Int?
            if authority.hasPrefix("[") {
                guard let close = authority.firstIndex(of: "]") else {
                    throw UsageError("\(text): unclosed [ in the host")
                }
                host = String(authority[authority.index(after: authority.startIndex)..<close])
                let after = authority[authority.index(after: close)...]
                if after.hasPrefix(":") { port = try parsePort(String(after.dropFirst()), text) }
            } else if let colon = authority.lastIndex(of: ":") {
                host = String(authority[..<colon])
                port = try parsePort(String(authority[authority.index(after: colon)...]), text)
            }
            return try checked(RemoteAddress(user: user, host: host, port: port, path: path), text)
        }
        guard let colon = text.firstIndex(of: ":") else { return nil }
        let before = text[..<colon]
        guard !before.isEmpty, !before.contains("/") else { return nil }
        var authority = String(before)
        var path = String(text[text.index(after: colon)...])
        if authority.hasPrefix("[") {
            // [::1]:path — the colon found is inside the brackets.
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else {
                return nil
            }
            authority = String(text[text.index(after: text.startIndex)..<close])
            path = String(text[text.index(close, offsetBy: 2)...])
        }
        var user: String?
        if let at = authority.lastIndex(of: "@") {
            user = String(authority[..<at])
            authority = String(authority[authority.index(after: at)...])
        }
        return try checked(RemoteAddress(user: user, host: authority, port: nil, path: path), text)
    }

    private static func parsePort(_ text: String, _ whole: String) throws -> Int {
        guard let port = Int(text), (1...65535).contains(port), String(port) == text else {
            throw UsageError("\(whole): the port \(text.debugDescription) is not a number in 1…65535")
        }
        return port
    }

    private static func checked(_ a: RemoteAddress, _ text: String) throws -> RemoteAddress {
        let hostCharacters = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: ".-_:%"))
        guard !a.host.isEmpty, !a.host.hasPrefix("-"), a.host.unicodeScalars.allSatisfy(hostCharacters.contains)
        else { throw UsageError("\(text): \(a.host.debugDescription) is not a host name") }
        if let user = a.user {
            guard !user.isEmpty, !user.hasPrefix("-"),
                !user.unicodeScalars.contains(where: { $0.properties.isWhitespace || $0.value < 0x20 || $0 == "@" })
            else { throw UsageError("\(text): \(user.debugDescription) is not a user name") }
        }
        guard !a.path.isEmpty, a.path != "/" else {
            throw UsageError("\(text): the address names no path on \(a.host)")
        }
        return a
    }
}

/// The options every command that reaches another machine takes.
enum RemoteOptions {
    static let sshCommandHelp = "The ssh command to run, with its options (default $PHOTOS_SSH, else ssh)."
    static let remotePhotosHelp = "The photos program on the far side (default photos, on its PATH)."

    static func sshCommand<O>(_ field: WritableKeyPath<O, String?>) -> Option<O> {
        .value(field, "--ssh-command", value: "COMMAND", help: sshCommandHelp)
    }

    static func remotePhotos<O>(_ field: WritableKeyPath<O, String?>) -> Option<O> {
        .value(field, "--remote-photos", value: "PATH", help: remotePhotosHelp)
    }
}

/// One run of `ssh … photos sync serve …`: the connection's two pipes, its stderr collected
/// (the last 64 KiB) to say what failed, and the child killed and waited for on every path.
///
/// OpenSSH's client exits 255 for every failure of its own, so the reason is read from its
/// messages: a host key refused or failed authentication is 77 (EX_NOPERM), a host that cannot
/// be resolved, reached or connected to is 69 (EX_UNAVAILABLE), as is a far side without
/// `photos` (the shell's 127) or of another protocol version; the far side's own error keeps
/// its exit status and message.
final class SSHSession {
    let address: RemoteAddress
    private let process = Process()
    private let input = Pipe(), output = Pipe(), errors = Pipe()
    let reader: ChangesetStream.LineReader
    private let collected = Collected()
    private let stderrDone = DispatchSemaphore(value: 0)
    private var inputClosed = false

    /// What the far side's stderr said, its last `limit` bytes.
    final class Collected: @unchecked Sendable {
        static let limit = 64 << 10
        private let lock = NSLock()
        private var bytes: [UInt8] = []
        func append(_ data: [UInt8]) {
            lock.lock()
            bytes += data
            if bytes.count > Collected.limit { bytes.removeFirst(bytes.count - Collected.limit) }
            lock.unlock()
        }
        var text: String {
            lock.lock()
            defer { lock.unlock() }
            return String(decoding: bytes, as: UTF8.self)
        }
    }

    /// Starts `ssh [-p PORT] [user@]host 'photos' --library 'PATH'? sync serve ARGS…`.
    /// - Parameters:
    ///   - sshCommand: `--ssh-command`, else `$PHOTOS_SSH`, else `ssh`; run by `/bin/sh` as
    ///     git runs `GIT_SSH_COMMAND`, the ssh arguments after it.
    ///   - remoteArguments: the far side's `photos` arguments, quoted here for its shell.
    /// - Throws: `CommandFailure` 69 when the command cannot be started.
    init(
        _ address: RemoteAddress, sshCommand: String?, remotePhotos: String?, environment: [String: String],
        remoteArguments: [String]
    ) throws {
        self.address = address
        // A far side that goes away must be an error (EPIPE), not the end of this process.
        signal(SIGPIPE, SIG_IGN)
        let ssh = sshCommand ?? environment["PHOTOS_SSH"].flatMap { $0.isEmpty ? nil : $0 } ?? "ssh"
        let remote = ([remotePhotos ?? "photos"] + remoteArguments).map(SSHSession.shellQuoted).joined(separator: " ")
        var args = ["-c", ssh + " \"$@\"", "photos-ssh"]
        if let port = address.port { args += ["-p", String(port)] }
        args += [address.destination, remote]
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = args
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        do { try process.run() } catch {
            throw CommandFailure(.unavailable, "cannot run the ssh command \(ssh.debugDescription): \(error)")
        }
        reader = ChangesetStream.LineReader(fd: output.fileHandleForReading.fileDescriptor)
        let handle = errors.fileHandleForReading
        let collected = self.collected
        let done = stderrDone
        Thread.detachNewThread {
            while true {
                let data = handle.availableData
                if data.isEmpty { break }
                collected.append(Array(data))
            }
            done.signal()
        }
    }

    deinit { close() }

    /// `text` in single quotes for a POSIX shell.
    static func shellQuoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    /// Reads the far side's first line, `photos-sync VERSION LIBRARYID`.
    /// - Returns: the far side's library id (`-` when it opened none).
    /// - Throws: `CommandFailure` as `failure` maps what went wrong.
    func hello() throws -> String {
        let line: String
        do { line = try reader.line(what: "the far side's greeting") } catch { throw failure(error) }
        let words = line.split(separator: " ").map(String.init)
        guard words.count == 3, words[0] == ChangesetStream.protocolName else {
            throw failure(ChangesetStream.Failure.malformed("greeting \(line.debugDescription)"))
        }
        guard words[1] == String(ChangesetStream.protocolVersion) else {
            close()
            throw CommandFailure(
                .unavailable,
                "photos on \(address.host) speaks sync protocol \(words[1]), this photos \(ChangesetStream.protocolVersion): install the same version of photos on both machines"
            )
        }
        return words[2]
    }

    /// Writes `bytes` to the far side.
    func send(_ bytes: [UInt8]) throws {
        do { try ChangesetStream.writeAll(input.fileHandleForWriting.fileDescriptor, bytes) } catch {
            throw failure(error)
        }
    }

    /// The file descriptor the far side reads.
    var toRemote: Int32 { input.fileHandleForWriting.fileDescriptor }

    /// Closes the far side's stdin, waits for ssh to exit and throws when it failed.
    func finish() throws {
        closeInput()
        wait(seconds: 60)
        if process.isRunning { close() }
        if process.terminationReason != .exit || process.terminationStatus != 0 { throw failure(nil) }
    }

    private func closeInput() {
        if !inputClosed {
            inputClosed = true
            try? input.fileHandleForWriting.close()
        }
    }

    private func wait(seconds: Double) {
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning && Date() < deadline { usleep(10_000) }
    }

    /// Ends the connection: stdin closed, ssh asked to stop (SIGTERM), then killed when it has
    /// not within 5 s, and waited for.
    func close() {
        closeInput()
        guard process.processIdentifier > 0 else { return }
        if process.isRunning {
            wait(seconds: 0.2)
            if process.isRunning { kill(process.processIdentifier, SIGTERM) }
            wait(seconds: 5)
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }
        process.waitUntilExit()
    }

    /// What went wrong, as an exit status and one message: after the connection is closed and
    /// ssh has exited, from its exit status and stderr; `streamError` is what reading or writing
    /// the stream met (nil: the stream was complete).
    func failure(_ streamError: Error?) -> CommandFailure {
        close()
        _ = stderrDone.wait(timeout: .now() + 5)
        let status = process.terminationReason == .exit ? process.terminationStatus : -1
        return SSHSession.classify(
            status: status, signal: process.terminationReason == .exit ? nil : process.terminationStatus,
            stderr: collected.text, streamError: streamError, address: address)
    }

    /// The failure for ssh's exit `status` (or the `signal` that ended it) and its `stderr`.
    static func classify(
        status: Int32, signal: Int32?, stderr: String, streamError: Error?, address: RemoteAddress
    ) -> CommandFailure {
        let host = address.host
        let lines = stderr.split(whereSeparator: \.isNewline).map { String($0).trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
        func line(_ needles: [String]) -> String? {
            lines.first { l in needles.contains { l.localizedCaseInsensitiveContains($0) } }
        }
        let nothing = "nothing was applied or written"
        if let signal {
            return CommandFailure(
                .unavailable, "the ssh connection to \(host) was ended by signal \(signal): \(nothing)")
        }
        if status == 255 {
            if let l = line([
                "Host key verification failed", "REMOTE HOST IDENTIFICATION HAS CHANGED", "No matching host key",
                "host key for", "no hostkey alg"
            ]) {
                return CommandFailure(
                    .noPermission,
                    "the host key of \(host) was refused (\(l)): check ~/.ssh/known_hosts, or connect once with ssh to accept it"
                )
            }
            if let l = line(["Permission denied", "Too many authentication failures", "Authentication failed"]) {
                return CommandFailure(
                    .noPermission,
                    "authentication to \(address.destination) failed (\(l)): check the user, key and ssh-agent")
            }
            if let l = line([
                "Could not resolve hostname", "Name or service not known", "Temporary failure in name resolution",
                "nodename nor servname"
            ]) {
                return CommandFailure(.unavailable, "cannot resolve the host \(host) (\(l))")
            }
            if let l = line([
                "Connection refused", "No route to host", "Network is unreachable", "Connection timed out",
                "Operation timed out", "Host is down"
            ]) {
                return CommandFailure(.unavailable, "the host \(host) cannot be reached (\(l))")
            }
            let last = lines.last.map { " (\($0))" } ?? ""
            return CommandFailure(.unavailable, "the ssh connection to \(host) failed\(last): \(nothing)")
        }
        if status == 127 || status == 126
            || line(["photos: not found", "photos: command not found", "photos: No such file"]) != nil
                && streamError != nil
        {
            let l = lines.last.map { " (\($0))" } ?? ""
            return CommandFailure(
                .unavailable,
                "photos cannot be run on \(host)\(l): install it there, or give its path with --remote-photos PATH")
        }
        // The far side's own error: its status and its line (`photos sync serve: error: …`).
        if status != 0 {
            let mine = lines.last { $0.contains(": error: ") } ?? lines.last ?? "no message"
            let code = ExitStatus(rawValue: status) ?? .unavailable
            return CommandFailure(code == .ok ? .unavailable : code, "on \(host): \(mine)")
        }
        switch streamError {
        case let e as ChangesetStream.Failure:
            switch e {
            case .truncated(let m):
                return CommandFailure(.unavailable, "the connection to \(host) was cut mid-stream (\(m)): \(nothing)")
            case .malformed(let m):
                if lines.isEmpty, m.hasPrefix("greeting") || m.contains("closed after 0 bytes") {
                    return CommandFailure(
                        .unavailable, "the far side on \(host) is not photos sync serve (\(m)): \(nothing)")
                }
                return CommandFailure(.dataError, "the stream from \(host) was refused: \(m): \(nothing)")
            case .io(let m):
                return CommandFailure(.unavailable, "the connection to \(host) failed: \(m): \(nothing)")
            }
        case let e?:
            return CommandFailure(.unavailable, "the connection to \(host) failed: \(e): \(nothing)")
        case nil:
            return CommandFailure(.unavailable, "the connection to \(host) ended without an answer: \(nothing)")
        }
    }
}

extension SSHSession {
    /// Where a remote changeset is received before it is applied: a new folder inside `root`
    /// (the library's, so that its originals are on the same file system), removed by the caller.
    static func temporaryFolder(in root: String) -> String {
        root + "/.photos-ssh-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    }

    /// Receives the stream into `folder`, then waits for ssh; a failure leaves no `folder`.
    func receive(into folder: String, databaseName: String) throws {
        do {
            try ChangesetStream.receive(from: reader, into: folder, databaseName: databaseName)
        } catch {
            throw failure(error)
        }
        do { try finish() } catch {
            try? FileManager.default.removeItem(atPath: folder)
            throw error
        }
    }

    /// `sync --from ssh://…`: the far library's changes not applied here yet (after the last
    /// token applied here from it), received into `folder`.
    /// - Parameter appliedToken: the last token applied here from a library id.
    /// - Throws: `CommandFailure` (69, 77, the far side's status); `SyncError` when the far
    ///   library has this library's id.
    static func pull(
        _ address: RemoteAddress, into folder: String, databaseName: String, ownID: String,
        appliedToken: (String) throws -> Int64, sshCommand: String?, remotePhotos: String?,
        environment: [String: String]
    ) throws {
        let session = try SSHSession(
            address, sshCommand: sshCommand, remotePhotos: remotePhotos, environment: environment,
            remoteArguments: ["--library", address.path, "sync", "serve", "--pull"])
        defer { session.close() }
        let id = try session.hello()
        guard id != ownID else {
            throw SyncError(
                .refused,
                "library \(address.display) refused: its library id \(id) is this library's own, so one of the two is a copy of the other; make the copy with 'photos backup' and 'photos restore' (without --same-identity)"
            )
        }
        let since = try appliedToken(id)
        // The puller's id after the token: the far library records it as a peer that has
        // applied through `since` (its tombstone compaction waits for it).
        try session.send(Array("since \(since) \(ownID)\n".utf8))
        try session.receive(into: folder, databaseName: databaseName)
    }

    /// `sync --apply host:CHANGESET`, `share accept host:CHANGESET`: the far changeset folder
    /// received into `folder`.
    static func fetch(
        _ address: RemoteAddress, into folder: String, databaseName: String, sshCommand: String?,
        remotePhotos: String?, environment: [String: String]
    ) throws {
        let session = try SSHSession(
            address, sshCommand: sshCommand, remotePhotos: remotePhotos, environment: environment,
            remoteArguments: ["sync", "serve", "--send", address.path])
        defer { session.close() }
        _ = try session.hello()
        try session.receive(into: folder, databaseName: databaseName)
    }

    /// `sync --export host:CHANGESET`, `share export -o host:CHANGESET`: the local changeset
    /// folder `folder` sent; the far side writes it under its name only when it all arrived.
    static func put(
        _ address: RemoteAddress, folder: String, databaseName: String, sshCommand: String?,
        remotePhotos: String?, environment: [String: String]
    ) throws {
        let session = try SSHSession(
            address, sshCommand: sshCommand, remotePhotos: remotePhotos, environment: environment,
            remoteArguments: ["sync", "serve", "--receive", address.path])
        defer { session.close() }
        _ = try session.hello()
        do {
            try ChangesetStream.send(folder: folder, databaseName: databaseName, to: session.toRemote)
        } catch {
            throw session.failure(error)
        }
        let answer: String
        do { answer = try session.reader.line(what: "the far side's answer") } catch { throw session.failure(error) }
        guard answer == "ok" else {
            throw session.failure(ChangesetStream.Failure.malformed("answer \(answer.debugDescription)"))
        }
        try session.finish()
    }
}

extension CommandContext {
    /// The changeset folder `argument` names, ready to apply: itself when it is local; a remote
    /// one (`host:path`, `ssh://…`) received first into a temporary folder inside `root`, which
    /// `cleanup` removes.
    /// - Throws: `UsageError` for a malformed address; what `SSHSession.fetch` throws.
    func localChangeset(
        _ argument: String, root: String, sshCommand: String?, remotePhotos: String?
    ) throws -> (path: String, cleanup: () -> Void) {
        guard let address = try RemoteAddress.parse(argument) else {
            let path = Library.resolvePath(explicit: argument, in: libraryEnvironment)
            // A mailbox file (`share publish`): one changeset stream, unpacked first.
            var st = stat()
            guard stat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { return (path, {}) }
            let temp = SSHSession.temporaryFolder(in: root)
            do {
                try ChangesetStream.unpack(file: path, into: temp, databaseName: CompositionRoot.changesets.fileName)
            } catch let failure as ChangesetStream.Failure {
                throw CommandFailure.dataError("\(path) is not a whole changeset file: \(failure)")
            }
            return (temp, { try? FileManager.default.removeItem(atPath: temp) })
        }
        let temp = SSHSession.temporaryFolder(in: root)
        try SSHSession.fetch(
            address, into: temp, databaseName: CompositionRoot.changesets.fileName, sshCommand: sshCommand,
            remotePhotos: remotePhotos, environment: environment)
        return (temp, { try? FileManager.default.removeItem(atPath: temp) })
    }

    /// Writes a changeset to `argument` with `export`: directly when it is local; for a remote
    /// one into a temporary folder inside `root`, sent, and removed (the far side keeps it only
    /// when it all arrived).
    /// - Throws: `UsageError` for a malformed address; what `export` and `SSHSession.put` throw.
    func writingChangeset<T>(
        to argument: String, root: String, sshCommand: String?, remotePhotos: String?,
        _ export: (String) throws -> T
    ) throws -> T {
        guard let address = try RemoteAddress.parse(argument) else {
            return try export(Library.resolvePath(explicit: argument, in: libraryEnvironment))
        }
        let temp = SSHSession.temporaryFolder(in: root)
        defer { try? FileManager.default.removeItem(atPath: temp) }
        let result = try export(temp)
        try SSHSession.put(
            address, folder: temp, databaseName: CompositionRoot.changesets.fileName, sshCommand: sshCommand,
            remotePhotos: remotePhotos, environment: environment)
        return result
    }
}
