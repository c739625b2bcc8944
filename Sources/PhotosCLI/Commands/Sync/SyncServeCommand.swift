import Foundation
import PhotosCore

/// `photos sync serve (--pull | --send CHANGESET | --receive CHANGESET)`: the far side of a
/// sync over SSH (issue 29 item 2), run by the `photos` on the other machine through `ssh`;
/// it talks `ChangesetStream` on stdin and stdout and nothing else there.
enum SyncServeCommand: Command {
    static let configuration = CommandConfiguration(
        path: ["sync", "serve"],
        abstract: "The far side of a sync over SSH: speak the changeset stream on stdin and stdout.",
        discussion: """
            Run by 'photos' on the other machine through ssh, not by hand. It first writes
            'photos-sync VERSION LIBRARYID'. --pull reads 'since TOKEN [LIBRARYID]' (the puller's id, recorded as a peer that applied through TOKEN), then writes a changeset
            of this library after that token (as 'sync --export --since TOKEN', built in a
            temporary folder inside the library and removed after); --send writes the changeset
            folder CHANGESET; --receive reads one into CHANGESET, which must not exist, under a
            temporary name renamed into place only when every file arrived with its size and
            SHA-256, then writes 'ok'. Errors go to stderr with the usual exit statuses.
            """)

    struct Options: ParsableOptions {
        var pull = false
        var send: String?
        var receive: String?
        static var options: [Option<Options>] {
            [
                .flag(\.pull, "--pull", help: "Write a changeset of this library after the token read."),
                .value(\.send, "--send", value: "CHANGESET", help: "Write the changeset folder CHANGESET."),
                .value(\.receive, "--receive", value: "CHANGESET", help: "Read a changeset folder into CHANGESET.")
            ]
        }

        mutating func validate() throws {
            guard [pull, send != nil, receive != nil].filter({ $0 }).count == 1 else {
                throw UsageError("give exactly one of --pull, --send, --receive")
            }
        }
    }

    static func hello(_ id: String) throws {
        try ChangesetStream.writeAll(
            1, Array("\(ChangesetStream.protocolName) \(ChangesetStream.protocolVersion) \(id)\n".utf8))
    }

    static func run(_ options: Options, _ ctx: CommandContext) throws {
        // The client going away is an error here (EPIPE), so that temporary folders are removed.
        signal(SIGPIPE, SIG_IGN)
        let databaseName = CompositionRoot.changesets.fileName
        let absolute = { (path: String) in Library.resolvePath(explicit: path, in: ctx.libraryEnvironment) }
        do {
            if options.pull {
                let library = try ctx.openLibrary()
                try hello(try library.libraryID())
                let input = ChangesetStream.LineReader(fd: 0)
                let line = try input.line(what: "'since TOKEN'")
                let words = line.split(separator: " ").map(String.init)
                guard (2...3).contains(words.count), words[0] == "since", let since = Int64(words[1]), since >= 0
                else {
                    throw CommandFailure(
                        .dataError, "expected 'since TOKEN [LIBRARYID]' from the client, got \(line.debugDescription)")
                }
                // The puller's library id: recorded as a peer that applied through `since`.
                if words.count == 3 { try library.recordPull(by: words[2], applied: since) }
                let temp = SSHSession.temporaryFolder(in: library.root)
                defer { try? FileManager.default.removeItem(atPath: temp) }
                // The originals stay where they are: each is read once, from the library,
                // as it is streamed (issue 29 item 2: no temporary copy on the sending side).
                let report = try library.exportChangeset(to: temp, since: since, originalsInPlace: true)
                if let token = report.unservedToken {
                    ctx.console.note(
                        "token \(token) is beyond this library's newest change token \(report.toToken) (restored from a backup?): the changeset holds every change"
                    )
                }
                try ChangesetStream.send(
                    folder: temp, databaseName: databaseName, originalsInPlace: report.originalsInPlace, to: 1)
            } else if let path = options.send.map(absolute) {
                var st = stat()
                guard stat(path, &st) == 0 else { throw CommandFailure.noInput("no changeset at \(path)") }
                guard st.st_mode & S_IFMT == S_IFDIR else {
                    throw CommandFailure.dataError("\(path) is not a changeset: a changeset is a folder")
                }
                try hello("-")
                try ChangesetStream.send(folder: path, databaseName: databaseName, to: 1)
            } else if let path = options.receive.map(absolute) {
                var st = stat()
                if lstat(path, &st) == 0 {
                    throw CommandFailure(.cantCreate, "\(path) exists; give a new name for the changeset")
                }
                let temp = path + ".photos-tmp-\(getpid())"
                try? FileManager.default.removeItem(atPath: temp)
                try hello("-")
                try ChangesetStream.receive(
                    from: ChangesetStream.LineReader(fd: 0), into: temp, databaseName: databaseName, durable: true)
                guard rename(temp, path) == 0 else {
                    let reason = String(cString: strerror(errno))
                    try? FileManager.default.removeItem(atPath: temp)
                    throw CommandFailure(.cantCreate, "cannot create changeset \(path): \(reason)")
                }
                try ChangesetStream.writeAll(1, Array("ok\n".utf8))
            }
        } catch let e as ChangesetStream.Failure {
            switch e {
            case .truncated(let m): throw CommandFailure(.ioError, "the client went away: \(m); nothing written")
            case .malformed(let m): throw CommandFailure(.dataError, "the stream was refused: \(m); nothing written")
            case .io(let m): throw CommandFailure(.ioError, "\(m); nothing written")
            }
        }
    }
}
