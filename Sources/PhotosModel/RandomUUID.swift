import CSystem
import Foundation
import Synchronization

/// Version 4 UUIDs (RFC 9562 §5.4: 122 random bits, version bits 0100, variant bits 10) for the
/// objects the library makes (photos, tags, ratings, shares, participants), drawn from a 4 KiB
/// buffer that getrandom(2) (the kernel's CSPRNG) refills once per 256 UUIDs. Foundation's
/// `UUID()` on Linux opens, reads and closes /dev/urandom for each one: three system calls per
/// photo of an import (Benchmarks/README.md, issue 15). The process never forks, so no two
/// processes share a buffer.
public enum RandomUUID {
    private struct Pool {
        var bytes = [UInt8](repeating: 0, count: 4096)
        var next = 4096

        mutating func refill() {
            var filled = 0
            bytes.withUnsafeMutableBytes { buffer in
                guard let base = buffer.baseAddress else { return }
                while filled < buffer.count {
                    let n = photos_getrandom(base + filled, buffer.count - filled)
                    if n > 0 {
                        filled += n
                    } else if n < 0 && errno == EINTR {
                        continue
                    } else {
                        break
                    }
                }
            }
            if filled < bytes.count {
                // No getrandom (ENOSYS: a kernel before 3.17): the standard library's generator.
                var generator = SystemRandomNumberGenerator()
                for i in filled..<bytes.count { bytes[i] = generator.next() }
            }
            next = 0
        }
    }
    private static let pool = Mutex(Pool())

    /// A new random UUID (RFC 9562 §5.4 version 4).
    public static func make() -> UUID {
        var raw: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        pool.withLock { pool in
            if pool.next + 16 > pool.bytes.count { pool.refill() }
            let start = pool.next
            withUnsafeMutableBytes(of: &raw) { destination in
                pool.bytes.withUnsafeBytes { source in
                    destination.copyMemory(from: UnsafeRawBufferPointer(rebasing: source[start..<(start + 16)]))
                }
            }
            pool.next += 16
        }
        raw.6 = (raw.6 & 0x0F) | 0x40 // version 4
        raw.8 = (raw.8 & 0x3F) | 0x80 // variant 10 (RFC 9562 §4.1)
        return UUID(uuid: raw)
    }
}
