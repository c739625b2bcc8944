import Foundation
import PhotosTestSupport
import XCTest

@testable import PhotosCLI

/// Sync over SSH (issue 29 item 2) without a live sshd: `--ssh-command` names a small script
/// that runs the far side's `photos sync serve` here (`sh -c` of the command ssh would run), so
/// the protocol, cut streams and the mapping of OpenSSH's failures are tested. Every run is
/// bounded by `timeout -k 5 120`, which ends its whole process group.
final class SyncOverSSHTests: BinaryTestCase {
    override var label: String { "photos-sync-ssh" }

    /// Writes an executable script `name` in the test folder.
    func script(_ name: String, _ body: String) throws -> String {
        let path = dir + "/" + name
        try ("#!/bin/sh\n" + body).write(toFile: path, atomically: true, encoding: .utf8)
        XCTAssertEqual(chmod(path, 0o755), 0)
        return "sh " + path
    }

    /// The fake ssh: drops `-p PORT` and the host, runs the remote command locally.
    func localSSH() throws -> String {
        try script("local-ssh.sh", "while [ $# -gt 2 ]; do shift; done\nexec sh -c \"$2\"\n")
    }

    /// A fake ssh whose connection is cut after `bytes` bytes from the far side: the far
    /// `photos` is killed (-9) then, as when the server-side process dies.
    func cuttingSSH(_ bytes: Int) throws -> String {
        try script(
            "cut-\(bytes).sh",
            """
            while [ $# -gt 2 ]; do shift; done
            fifo=$(mktemp -u); mkfifo "$fifo"
            sh -c "$2" > "$fifo" & pid=$!
            head -c \(bytes) < "$fifo"
            kill -9 $pid 2>/dev/null; rm -f "$fifo"
            exit 0

            """)
    }

    /// Runs the binary with a hard bound; the status, stdout and stderr.
    @discardableResult
    func photos(_ args: [String], env: [String: String] = [:]) throws -> (status: Int32, stdout: String, stderr: String)
    {
        var environment = ProcessInfo.processInfo.environment
        for (k, v) in env { environment[k] = v }
        let prepared = try Self.preparingLibraries(args, environment: environment)
        return try runProcess(
            "/usr/bin/timeout", ["-k", "5", "120", try binary()] + prepared, environment: environment,
            preparing: false)
    }

    func remote(_ ssh: String) throws -> [String] { ["--ssh-command", ssh, "--remote-photos", try binary()] }

    func photoCount(_ lib: String) throws -> Int {
        let r = try photos(["--library", lib, "list", "--json"])
        XCTAssertEqual(r.status, 0, r.stderr)
        return r.stdout.split(separator: "\n").count
    }

    /// Names in `lib`'s folder left by a transfer (temporary changesets).
    func leftovers(_ lib: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: lib)) ?? []).filter { $0.contains("photos-ssh") }
    }

    func makeLibraries() throws -> (a: String, b: String) {
        let a = dir + "/a", b = dir + "/b"
        let imported = try photos(["--library", a, "import", "-q", samplesDir + "/storm.jpg", samplesDir + "/path.jpg"])
        XCTAssertEqual(imported.status, 0, imported.stderr)
        XCTAssertEqual(try photos(["init", "-q", b]).status, 0)
        return (a, b)
    }

    func testSyncFromAndChangesetsTravelOverSSH() throws {
        let (a, b) = try makeLibraries()
        let ssh = try localSSH()
        let first = try photos(["--library", b, "--json", "sync", "--from", "ssh://peer" + a] + remote(ssh))
        XCTAssertEqual(first.status, 0, first.stderr)
        XCTAssertTrue(first.stdout.contains("\"inserted\":2"), first.stdout)
        XCTAssertEqual(try photoCount(b), 2)
        let again = try photos(["--library", b, "sync", "--from", "peer:" + a] + remote(ssh))
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertTrue(again.stdout.hasPrefix("Nothing new"), again.stdout)

        // A changeset written on the far side, then applied from there by another library.
        let c = dir + "/c"
        XCTAssertEqual(try photos(["init", "-q", c]).status, 0)
        let export = try photos(["--library", a, "sync", "--export", "peer:" + dir + "/cs1"] + remote(ssh))
        XCTAssertEqual(export.status, 0, export.stderr)
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: dir + "/cs1/originals").count, 2)
        let exists = try photos(["--library", a, "sync", "--export", "peer:" + dir + "/cs1"] + remote(ssh))
        XCTAssertEqual(exists.status, 73, exists.stderr)
        XCTAssertTrue(exists.stderr.contains("exists"), exists.stderr)
        let apply = try photos(
            ["--library", c, "sync", "--apply", "ssh://peer" + dir + "/cs1"], env: ["PHOTOS_SSH": ssh])
        XCTAssertNotEqual(apply.status, 0, "the far side needs --remote-photos here: photos is not on its PATH")
        let applied = try photos(["--library", c, "sync", "--apply", "ssh://peer" + dir + "/cs1"] + remote(ssh))
        XCTAssertEqual(applied.status, 0, applied.stderr)
        XCTAssertEqual(try photoCount(c), 2)
        XCTAssertEqual(leftovers(a) + leftovers(b) + leftovers(c), [])
        for lib in [a, b, c] {
            let v = try photos(["--library", lib, "verify"])
            XCTAssertTrue(v.stdout.contains("0 problems"), "\(lib): \(v.stdout) \(v.stderr)")
        }
    }

    func testACutConnectionAppliesNothingAndTheRerunCompletes() throws {
        let (a, b) = try makeLibraries()
        // Cut inside the greeting, inside the database, inside an original, before `end`.
        for bytes in [10, 3000, 200_000, 600_000] {
            let r = try photos(["--library", b, "sync", "--from", "peer:" + a] + remote(try cuttingSSH(bytes)))
            XCTAssertEqual(r.status, 69, "cut after \(bytes): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("nothing was applied"), r.stderr)
            XCTAssertEqual(try photoCount(b), 0, "cut after \(bytes)")
            XCTAssertEqual(leftovers(b), [])
        }
        let r = try photos(["--library", b, "sync", "--from", "peer:" + a] + remote(try localSSH()))
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(try photoCount(b), 2)
    }

    /// The far side streams each original from its library file (no copy into its temporary
    /// changeset): an original whose bytes no longer match its SHA-256 stops the stream before
    /// its hash line, named with the hint, and nothing is applied here; mended, the pull completes.
    func testAPullStreamsOriginalsInPlaceAndStopsAtADamagedOne() throws {
        let (a, b) = try makeLibraries()
        let originals = try FileManager.default.subpathsOfDirectory(atPath: a + "/ExternalData")
            .filter { !$0.hasPrefix(".") && isRegular(a + "/ExternalData/" + $0) }
        XCTAssertEqual(originals.count, 2, "\(originals)")
        let victim = a + "/ExternalData/" + originals.sorted()[0]
        let good = try XCTUnwrap(FileManager.default.contents(atPath: victim))
        var bad = [UInt8](good)
        bad[bad.count / 2] ^= 0x20
        XCTAssertEqual(chmod(victim, 0o644), 0)
        XCTAssertTrue(FileManager.default.createFile(atPath: victim, contents: Data(bad)))
        let before = try LibrarySnapshot.dumpCatalog(b)
        let r = try photos(["--library", b, "sync", "--from", "peer:" + a] + remote(try localSSH()))
        XCTAssertEqual(r.status, 74, "the far side's status (an I/O error there): \(r.stderr)")
        XCTAssertTrue(r.stderr.contains("does not have its recorded SHA-256 (run 'photos verify')"), r.stderr)
        XCTAssertEqual(try LibrarySnapshot.dumpCatalog(b), before)
        XCTAssertEqual(try photoCount(b), 0)
        XCTAssertTrue(FileManager.default.createFile(atPath: victim, contents: good))
        let ok = try photos(["--library", b, "sync", "--from", "peer:" + a] + remote(try localSSH()))
        XCTAssertEqual(ok.status, 0, ok.stderr)
        XCTAssertEqual(try photoCount(b), 2)
        XCTAssertEqual(leftovers(a) + leftovers(b), [])
        let v = try photos(["--library", b, "verify"])
        XCTAssertTrue(v.stdout.contains("0 problems"), "\(v.stdout) \(v.stderr)")
    }

    func isRegular(_ path: String) -> Bool {
        var st = stat()
        return lstat(path, &st) == 0 && st.st_mode & S_IFMT == S_IFREG
    }

    func testSSHFailuresHaveTheirExitStatus() throws {
        let (a, b) = try makeLibraries()
        let cases: [(String, Int32, String)] = [
            ("Host key verification failed.", 77, "host key"),
            ("alice@peer: Permission denied (publickey).", 77, "authentication"),
            ("ssh: connect to host peer port 22: Connection refused", 69, "cannot be reached"),
            ("ssh: connect to host peer port 22: No route to host", 69, "cannot be reached"),
            ("ssh: Could not resolve hostname peer: Name or service not known", 69, "cannot resolve")
        ]
        for (i, (message, status, words)) in cases.enumerated() {
            let ssh = try script("fail-\(i).sh", "echo '\(message)' >&2\nexit 255\n")
            let r = try photos(["--library", b, "sync", "--from", "peer:" + a, "--ssh-command", ssh])
            XCTAssertEqual(r.status, status, "\(message): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains(words), r.stderr)
        }
        let missing = try photos(
            [
                "--library", b, "sync", "--from", "peer:" + a, "--ssh-command", try localSSH(), "--remote-photos",
                dir + "/no/photos"
            ])
        XCTAssertEqual(missing.status, 69, missing.stderr)
        XCTAssertTrue(missing.stderr.contains("--remote-photos"), missing.stderr)
        let other = try script("v99.sh", "echo 'photos-sync 99 -'\n")
        let version = try photos(["--library", b, "sync", "--from", "peer:" + a, "--ssh-command", other])
        XCTAssertEqual(version.status, 69, version.stderr)
        XCTAssertTrue(version.stderr.contains("protocol 99"), version.stderr)
        // The far side's own error keeps its status: no library there is 66.
        let noLibrary = try photos(["--library", b, "sync", "--from", "peer:" + dir + "/none"] + remote(try localSSH()))
        XCTAssertEqual(noLibrary.status, 66, noLibrary.stderr)
        XCTAssertEqual(try photoCount(b), 0)
    }

    func testAHostileStreamIsRefused() throws {
        let (_, b) = try makeLibraries()
        let hello = "echo 'photos-sync 1 -'\n"
        let sha = String(repeating: "a", count: 64)
        let streams = [
            ("path", hello + "echo 'file ../../escape 3'; printf abc\n", 65),
            ("huge", hello + "echo 'file originals/\(sha) 99999999999999'\n", 65),
            ("short", hello + "echo 'file changeset.sqlite 1000'; printf abc\n", 69),
            ("hash", hello + "echo 'file changeset.sqlite 3'; printf abc; echo 'sha256 \(sha)'\n", 65)
        ]
        for (name, body, status) in streams {
            let ssh = try script("hostile-\(name).sh", body)
            let r = try photos(["--library", b, "sync", "--apply", "peer:cs", "--ssh-command", ssh])
            XCTAssertEqual(r.status, Int32(status), "\(name): \(r.stderr)")
            XCTAssertEqual(leftovers(b), [], name)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/escape"))
    }

    func testRemoteAddresses() throws {
        XCTAssertEqual(
            try RemoteAddress.parse("ssh://ann@host.example:2222/srv/lib"),
            RemoteAddress(user: "ann", host: "host.example", port: 2222, path: "/srv/lib"))
        XCTAssertEqual(
            try RemoteAddress.parse("ssh://host/~/Pictures/lib"),
            RemoteAddress(user: nil, host: "host", port: nil, path: "Pictures/lib"))
        XCTAssertEqual(
            try RemoteAddress.parse("ann@host:lib"), RemoteAddress(user: "ann", host: "host", port: nil, path: "lib"))
        XCTAssertEqual(
            try RemoteAddress.parse("[::1]:/lib"), RemoteAddress(user: nil, host: "::1", port: nil, path: "/lib"))
        XCTAssertNil(try RemoteAddress.parse("./a:b"))
        XCTAssertNil(try RemoteAddress.parse("/tmp/a:b"))
        XCTAssertNil(try RemoteAddress.parse("library"))
        for bad in ["-oProxyCommand=x:lib", "host:", "ssh://host", "ssh://host:99999/x", "ssh://-x/lib"] {
            XCTAssertThrowsError(try RemoteAddress.parse(bad), bad)
        }
    }
}
