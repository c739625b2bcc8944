import Foundation
import PhotosTestSupport
import XCTest

/// Sync over SSH (issue 29 item 2) through OpenSSH itself: `ssh` of the machine against a
/// throw-away `sshd` on 127.0.0.1 that `.ci/run` starts (`start_sshd`: its own host key, one
/// accepted client key, public-key authentication only). The far side is this machine's binary
/// (`--remote-photos`), started by sshd in a login session of its own, so what the transport
/// relies on — the remote command line's quoting, the far side's exit status through ssh, OpenSSH's
/// own failure messages — is what a user meets. Skipped unless `PHOTOS_TEST_SSH_PORT` and
/// `PHOTOS_TEST_SSH_DIR` are set (by `.ci/run`).
final class SyncOverRealSSHTests: BinaryTestCase {
    override var label: String { "photos-real-ssh" }

    /// The sshd's port and the folder of its keys, or a skip naming what is missing.
    func server() throws -> (port: String, keys: String) {
        let env = ProcessInfo.processInfo.environment
        guard let port = env["PHOTOS_TEST_SSH_PORT"], let keys = env["PHOTOS_TEST_SSH_DIR"],
            FileManager.default.fileExists(atPath: keys + "/id_ed25519")
        else {
            throw XCTSkip(
                "no throw-away sshd: PHOTOS_TEST_SSH_PORT and PHOTOS_TEST_SSH_DIR are set by .ci/run (start_sshd)")
        }
        return (port, keys)
    }

    /// `ssh` with `key`, the host keys of `knownHosts`, no agent, no prompt, and none of the
    /// user's own configuration.
    func sshCommand(key: String, knownHosts: String) -> String {
        "ssh -F /dev/null -i \(key) -o IdentitiesOnly=yes -o IdentityAgent=none -o BatchMode=yes"
            + " -o StrictHostKeyChecking=yes -o UserKnownHostsFile=\(knownHosts) -o ConnectTimeout=20"
    }

    /// Runs the binary with a hard bound of 120 s: the status, stdout and stderr.
    @discardableResult
    func photos(_ args: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        let environment = ProcessInfo.processInfo.environment
        let prepared = try Self.preparingLibraries(args, environment: environment)
        return try runProcess(
            "/usr/bin/timeout", ["-k", "5", "120", try binary()] + prepared, environment: environment,
            preparing: false)
    }

    func photoSHA256s(_ lib: String) throws -> [String] {
        let r = try photos(["--library", lib, "list", "--json"])
        XCTAssertEqual(r.status, 0, r.stderr)
        return try r.stdout.split(separator: "\n").map {
            let object = try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            return try XCTUnwrap(object?["sha256"] as? String)
        }.sorted()
    }

    func testSyncFromAndToALibraryBehindARealSSHServer() throws {
        let (port, keys) = try server()
        let user = try Self.userName()
        let a = dir + "/a", b = dir + "/b", c = dir + "/c"
        let imported = try photos(["--library", a, "import", "-q", samplesDir + "/storm.jpg", samplesDir + "/path.jpg"])
        XCTAssertEqual(imported.status, 0, imported.stderr)
        XCTAssertEqual(try photos(["init", "-q", b]).status, 0)
        XCTAssertEqual(try photos(["init", "-q", c]).status, 0)
        let ssh = sshCommand(key: keys + "/id_ed25519", knownHosts: keys + "/known_hosts")
        let remote = ["--ssh-command", ssh, "--remote-photos", try binary()]
        let url = "ssh://\(user)@127.0.0.1:\(port)"

        let pulled = try photos(["--library", b, "--json", "sync", "--from", url + a] + remote)
        XCTAssertEqual(pulled.status, 0, pulled.stderr)
        XCTAssertTrue(pulled.stdout.contains("\"inserted\":2"), pulled.stdout)
        XCTAssertEqual(try photoSHA256s(b), try photoSHA256s(a))
        let again = try photos(["--library", b, "sync", "--from", url + a] + remote)
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertTrue(again.stdout.hasPrefix("Nothing new"), again.stdout)

        // A changeset written on the far side, then applied from there into a third library.
        let export = try photos(["--library", a, "sync", "--export", url + dir + "/cs"] + remote)
        XCTAssertEqual(export.status, 0, export.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir + "/cs/originals").count, 2)
        let applied = try photos(["--library", c, "sync", "--apply", url + dir + "/cs"] + remote)
        XCTAssertEqual(applied.status, 0, applied.stderr)
        XCTAssertEqual(try photoSHA256s(c), try photoSHA256s(a))
        for lib in [a, b, c] {
            let v = try photos(["--library", lib, "verify"])
            XCTAssertTrue(v.stdout.contains("0 problems"), "\(lib): \(v.stdout) \(v.stderr)")
            let names = try FileManager.default.contentsOfDirectory(atPath: lib)
            XCTAssertEqual(names.filter { $0.contains("photos-ssh") }, [], lib)
        }
    }

    /// Runs `args` in `lib` and expects exit 0; its stdout.
    @discardableResult
    override func ok(_ lib: String, _ args: [String], file: StaticString = #filePath, line: UInt = #line) throws
        -> String
    {
        let r = try photos(["--library", lib] + args)
        XCTAssertEqual(r.status, 0, "\(args): \(r.stderr)", file: file, line: line)
        return r.stdout
    }

    /// `photos` with the real ssh: the arguments that name it and the far binary.
    func remote(_ keys: String, proxy: String? = nil) throws -> [String] {
        var ssh = sshCommand(key: keys + "/id_ed25519", knownHosts: keys + "/known_hosts")
        if let proxy { ssh += " -o ProxyCommand='\(proxy)'" }
        return ["--ssh-command", ssh, "--remote-photos", try binary()]
    }

    /// Owner → participant and back with every changeset over SSH: `share export -o ssh://…`,
    /// `share accept ssh://…`, the participant's tag in `share export -o ssh://…`, applied by the
    /// owner with `sync --apply ssh://…`; then a deletion carried by `sync --from ssh://…`.
    func testAShareRoundTripAndADeletionOverSSH() throws {
        let (port, keys) = try server()
        let url = "ssh://\(try Self.userName())@127.0.0.1:\(port)"
        let owner = dir + "/owner", bob = dir + "/bob", peer = dir + "/peer"
        try ok(owner, ["import", "-q", samplesDir + "/storm.jpg", samplesDir + "/path.jpg"])
        let names = try photoNames(owner)
        XCTAssertEqual(names.count, 2)
        try ok(owner, ["share", "create", "--title", "Holiday"] + names)
        try ok(owner, ["share", "invite", "Holiday", "bob@example.org", "--permission", "read-write"])
        try ok(
            owner,
            ["share", "export", "Holiday", "--for", "bob@example.org", "-o", url + dir + "/to-bob"] + remote(keys))
        XCTAssertEqual(try photos(["init", "-q", bob]).status, 0)
        try ok(bob, ["share", "accept", url + dir + "/to-bob"] + remote(keys))
        XCTAssertEqual(try photoSHA256s(bob), try photoSHA256s(owner))
        try ok(bob, ["tag", "add", "FromBob", names[0]])
        try ok(bob, ["share", "export", "Holiday", "-o", url + dir + "/from-bob"] + remote(keys))
        try ok(owner, ["sync", "--apply", url + dir + "/from-bob"] + remote(keys))
        let shown = try ok(owner, ["show", names[0]])
        XCTAssertTrue(shown.contains("FromBob"), shown)

        // A peer pulls the owner's library, the owner deletes a photo, the next pull deletes it.
        XCTAssertEqual(try photos(["init", "-q", peer]).status, 0)
        try ok(peer, ["sync", "--from", url + owner] + remote(keys))
        XCTAssertEqual(try photoSHA256s(peer).count, 2)
        try ok(owner, ["delete", "--yes", names[1]])
        try ok(peer, ["sync", "--from", url + owner] + remote(keys))
        XCTAssertEqual(try photoSHA256s(peer), try photoSHA256s(owner))
        XCTAssertEqual(try photoSHA256s(peer).count, 1)
        for lib in [owner, bob, peer] {
            let v = try photos(["--library", lib, "verify"])
            XCTAssertTrue(v.stdout.contains("0 problems"), "\(lib): \(v.stdout) \(v.stderr)")
        }
    }

    /// A relay for ssh's `ProxyCommand` that carries the connection to the sshd and drops it
    /// (`os._exit`, as a network cut) after `bytes` bytes from the server.
    func cuttingRelay(_ port: String, after bytes: Int) throws -> String {
        let path = dir + "/relay-\(bytes).py"
        try """
        import os, socket, sys, threading
        s = socket.create_connection(("127.0.0.1", \(port)))
        def up():
            while True:
                b = os.read(0, 65536)
                if not b: break
                s.sendall(b)
        threading.Thread(target=up, daemon=True).start()
        left = \(bytes)
        while left > 0:
            b = s.recv(min(65536, left))
            if not b: break
            os.write(1, b); left -= len(b)
        os._exit(0)

        """.write(toFile: path, atomically: true, encoding: .utf8)
        return "python3 \(path)"
    }

    /// The connection cut inside the stream, at several depths, by a relay between ssh and sshd:
    /// 69 naming the cut, nothing applied (the catalog dump is unchanged), no leftovers; the
    /// rerun over a whole connection completes and verify is clean.
    func testARealConnectionCutMidStreamAppliesNothing() throws {
        let (port, keys) = try server()
        let url = "ssh://\(try Self.userName())@127.0.0.1:\(port)"
        let a = dir + "/a", b = dir + "/b"
        try ok(a, ["import", "-q", samplesDir + "/storm.jpg", samplesDir + "/path.jpg"])
        XCTAssertEqual(try photos(["init", "-q", b]).status, 0)
        let before = try LibrarySnapshot.dumpCatalog(b)
        // Past ssh's own handshake (a few KB), inside the database and inside an original.
        for bytes in [20_000, 150_000, 500_000] {
            let r = try photos(
                ["--library", b, "sync", "--from", url + a] + remote(keys, proxy: try cuttingRelay(port, after: bytes)))
            XCTAssertEqual(r.status, 69, "cut after \(bytes): \(r.stderr)")
            XCTAssertEqual(try LibrarySnapshot.dumpCatalog(b), before, "cut after \(bytes)")
            let names = try FileManager.default.contentsOfDirectory(atPath: b)
            XCTAssertEqual(names.filter { $0.contains("photos-ssh") }, [])
        }
        try ok(b, ["sync", "--from", url + a] + remote(keys))
        XCTAssertEqual(try photoSHA256s(b), try photoSHA256s(a))
        let v = try photos(["--library", b, "verify"])
        XCTAssertTrue(v.stdout.contains("0 problems"), v.stdout + v.stderr)
    }

    func photoNames(_ lib: String) throws -> [String] {
        let r = try photos(["--library", lib, "list", "--json"])
        XCTAssertEqual(r.status, 0, r.stderr)
        return try r.stdout.split(separator: "\n").map {
            let object = try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            return try XCTUnwrap(object?["uniqueName"] as? String)
        }
    }

    /// OpenSSH's own failures, each with its exit status and nothing applied: a host key not in
    /// known_hosts (77), a key the server refuses (77), a port nothing listens on (69), and
    /// `photos` missing on the far side (69, with the option to name it).
    func testOpenSSHFailuresHaveTheirExitStatus() throws {
        let (port, keys) = try server()
        let user = try Self.userName()
        let a = dir + "/a", b = dir + "/b"
        XCTAssertEqual(try photos(["--library", a, "import", "-q", samplesDir + "/storm.jpg"]).status, 0)
        XCTAssertEqual(try photos(["init", "-q", b]).status, 0)
        let emptyHosts = dir + "/empty_known_hosts"
        XCTAssertTrue(FileManager.default.createFile(atPath: emptyHosts, contents: Data()))
        // A port of 127.0.0.1 with no listener: bind one, note its number, close it.
        let closedPort = try XCTUnwrap(Self.unusedPort())
        let cases: [(ssh: String, port: String, photos: String?, status: Int32, words: String)] = [
            (sshCommand(key: keys + "/id_ed25519", knownHosts: emptyHosts), port, nil, 77, "host key"),
            (
                sshCommand(key: keys + "/stranger_ed25519", knownHosts: keys + "/known_hosts"), port, nil, 77,
                "authentication"
            ),
            (
                sshCommand(key: keys + "/id_ed25519", knownHosts: keys + "/known_hosts"), String(closedPort), nil, 69,
                "cannot be reached"
            ),
            (
                sshCommand(key: keys + "/id_ed25519", knownHosts: keys + "/known_hosts"), port, dir + "/no/photos", 69,
                "--remote-photos"
            )
        ]
        for (ssh, port, far, status, words) in cases {
            let r = try photos(
                [
                    "--library", b, "sync", "--from", "ssh://\(user)@127.0.0.1:\(port)" + a, "--ssh-command", ssh,
                    "--remote-photos", try far ?? binary()
                ])
            XCTAssertEqual(r.status, status, "\(ssh) port \(port): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains(words), "\(words): \(r.stderr)")
            XCTAssertEqual(try photoSHA256s(b), [])
        }
    }

    /// This process's user name (sshd's `AllowUsers`), from the password database.
    static func userName() throws -> String {
        guard let entry = getpwuid(getuid()), let name = entry.pointee.pw_name else {
            throw XCTSkip("no user name for uid \(getuid())")
        }
        return String(cString: name)
    }

    /// A TCP port of 127.0.0.1 that nothing listens on (bound, read, closed).
    static func unusedPort() -> Int? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0 else { return nil }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else { return nil }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
