import Foundation
import XCTest

extension TemporaryFolderTestCase {
    /// Mounts a tmpfs of `size` (mount(8)'s `size=`, e.g. `"1m"`) on the folder `path` (made
    /// when absent), unmounted when the test ends, so a test can fill a disk for real (ENOSPC).
    /// - Throws: `XCTSkip` naming why when the mount fails (not root, no mount(8), a container
    ///   that forbids it).
    public func mountSmallFileSystem(at path: String, size: String) throws {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        guard let status = Self.runTool("/bin/mount", ["-t", "tmpfs", "-o", "size=\(size)", "tmpfs", path]),
            status == 0
        else {
            throw XCTSkip("cannot mount a tmpfs of \(size) on \(path) (needs root and mount(8)): no full disk to test")
        }
        addTeardownBlock { _ = Self.runTool("/bin/umount", ["-l", path]) }
    }

    /// Runs `tool` with `arguments`, output discarded. - Returns: its exit status, nil when it
    /// cannot be started.
    static func runTool(_ tool: String, _ arguments: [String]) -> Int32? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return nil }
        process.waitUntilExit()
        return process.terminationStatus
    }
}
