import Foundation
import PhotosFiles

/// A batch whose files are written and renamed into place, waiting for its syncfs before its
/// rows are recorded.
struct WrittenBatch {
    var items: [Exporter.Planned]
    var results: [Result<Exporter.ExportedFiles, Error>]
    /// The batch's syncfs, running; nil when the batch wrote nothing (or in a dry run).
    var sync: BackgroundSync?
}

/// One syncfs(2) of a file system, run on its own thread so the next batch's files are written
/// meanwhile. `init` returns once the sync is about to be issued (after it is recorded in
/// `DurabilityStats`), so the files written after `init` are not what it was asked to cover.
final class BackgroundSync: @unchecked Sendable {
    private let finished = DispatchSemaphore(value: 0)
    /// Written by the sync thread before `finished` is signalled; read after `wait`.
    private var error: Error?

    /// Starts `syncFileSystem(path, willSync)` on a new thread and waits until it calls
    /// `willSync` (or has returned without calling it).
    init(path: String, syncFileSystem: @escaping @Sendable (String, () -> Void) throws -> Void) {
        let started = DispatchSemaphore(value: 0)
        Thread.detachNewThread { [self] in
            var signalled = false
            do {
                try syncFileSystem(path) {
                    signalled = true
                    started.signal()
                }
            } catch {
                self.error = error
            }
            if !signalled { started.signal() }
            finished.signal()
        }
        started.wait()
    }

    /// Waits for the sync to return.
    /// - Returns: what it threw (a `FileError`), or nil when it succeeded.
    func wait() -> Error? {
        finished.wait()
        return error
    }
}
