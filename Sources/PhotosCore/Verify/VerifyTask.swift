import Foundation
import PhotosModel

extension Library {
    /// A part of verify's checks that runs on its own thread with a `VerifySnapshotReader`'s
    /// store (closed when done), or, without a reader, on the caller's thread with the caller's
    /// store when its value is asked for.
    final class VerifyTask<Value>: @unchecked Sendable {
        private let work: (any VerifyStore) throws -> Value
        private let reader: VerifySnapshotReader?
        private let finished = DispatchSemaphore(value: 0)
        /// Set by the thread before it signals `finished`; read after the wait.
        private var result: Result<Value, any Error>?
        private var waited = false

        init(reader: VerifySnapshotReader?, _ work: @escaping (any VerifyStore) throws -> Value) {
            self.work = work
            self.reader = reader
            guard let reader else { return }
            Thread.detachNewThread { [self] in run(reader) }
        }

        /// The thread's body.
        private func run(_ reader: VerifySnapshotReader) {
            result = Result { try work(reader.store) }
            reader.close()
            finished.signal()
        }

        /// Waits for the thread, if there is one (once; later calls return at once).
        func wait() {
            guard reader != nil, !waited else { return }
            waited = true
            finished.wait()
        }

        /// The checks' value: the thread's, or computed now on `store` when there is no reader.
        /// - Throws: what the checks threw.
        func value(fallback store: any VerifyStore) throws -> Value {
            guard reader != nil else { return try work(store) }
            wait()
            guard let result else { preconditionFailure("a finished verify task left no result") }
            return try result.get()
        }
    }
}
