import PhotosFiles

/// The external data references `verify` found in the catalog, for its orphan check: a
/// reference in content-address form (`ab/` and 64 lowercase hex digits starting with `ab`,
/// `ExternalDataStore.reference(for:)`) is kept as its 32 bytes in its shard's list, any other as
/// its string. A million references then cost a million 32-byte keys appended to 256 lists,
/// sorted once (`sortForLookups`) and searched by bisection per listed file, instead of a
/// million heap strings hashed and compared byte by byte (or a million SipHash hashes of the
/// keys: 1.5 s of 1,000,000 photos' `verify --quick` went to hashing and hash-set probing);
/// each listed file is classified the same way (`contains(shard:name:)`), so membership is
/// exactly that of a set of the strings.
struct VerifyReferences {
    /// A content address's SHA-256, as four big-endian words; ordered as the digits are.
    struct Address: Comparable {
        var words: (UInt64, UInt64, UInt64, UInt64)

        static func == (a: Address, b: Address) -> Bool {
            a.words.0 == b.words.0 && a.words.1 == b.words.1 && a.words.2 == b.words.2 && a.words.3 == b.words.3
        }

        static func < (a: Address, b: Address) -> Bool {
            if a.words.0 != b.words.0 { return a.words.0 < b.words.0 }
            if a.words.1 != b.words.1 { return a.words.1 < b.words.1 }
            if a.words.2 != b.words.2 { return a.words.2 < b.words.2 }
            return a.words.3 < b.words.3
        }

        /// The value of 64 lowercase hex digits (ASCII), or nil for anything else.
        init?(hex: UnsafeBufferPointer<UInt8>) {
            guard hex.count == 64, let base = hex.baseAddress else { return nil }
            // Sixteen digits a word; `ok` stays 1 while every byte is a lowercase hex digit.
            // Without a branch per digit: the digits of a SHA-256 are random, and a branch on
            // digit-or-letter was mispredicted for about a third of them (7 % of the client's
            // CPU in `verify --quick` on 1,000,000 photos, two addresses parsed per original).
            var ok: UInt8 = 1
            var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
            withUnsafeMutableBytes(of: &words) { raw in
                let out = raw.bindMemory(to: UInt64.self)
                for w in 0..<4 {
                    var value: UInt64 = 0
                    for i in 16 * w..<16 * w + 16 {
                        let byte = base[i]
                        let isDigit: UInt8 = byte &- UInt8(ascii: "0") < 10 ? 1 : 0
                        let isLetter: UInt8 = byte &- UInt8(ascii: "a") < 6 ? 1 : 0
                        ok &= isDigit | isLetter
                        // '0'...'9' are 0x30...0x39, 'a'...'f' 0x61...0x66 (low bits 1...6, + 9).
                        value = value << 4 | UInt64((byte & 0x0F) &+ 9 &* (byte >> 6))
                    }
                    out[w] = value
                }
            }
            guard ok == 1 else { return nil }
            self.words = words
        }

        /// The shard, its first byte (the folder `ab` is 0xab).
        var shard: UInt8 { UInt8(truncatingIfNeeded: words.0 >> 56) }
    }

    /// The addresses of each of the 256 shards, in insertion order until `sortForLookups`.
    private var addresses = [[Address]](repeating: [], count: 256)
    private var others = Set<String>()
    /// Whether `addresses` is sorted without duplicates (`sortForLookups`).
    private var sorted = true

    /// The address of a reference in content-address form (`ab/ab…`, 67 bytes), else nil.
    static func address(of reference: String) -> Address? {
        guard reference.utf8.count == 67 else { return nil }
        func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> Address? {
            address(shard: (bytes[0], bytes[1]), slash: bytes[2], name: UnsafeBufferPointer(rebasing: bytes[3...]))
        }
        // A native string's bytes are contiguous; a bridged one is copied.
        return reference.utf8.withContiguousStorageIfAvailable(parse)
            ?? Array(reference.utf8).withUnsafeBufferPointer(parse)
    }

    /// The address of the file `name` in folder `shard` (its two bytes) when that is a content
    /// address.
    private static func address(shard: (UInt8, UInt8), slash: UInt8, name: UnsafeBufferPointer<UInt8>) -> Address? {
        guard slash == UInt8(ascii: "/"), name.count == 64, name[0] == shard.0, name[1] == shard.1 else {
            return nil
        }
        return Address(hex: name)
    }

    mutating func insert(_ reference: String) {
        if let address = VerifyReferences.address(of: reference) {
            addresses[Int(address.shard)].append(address)
            sorted = false
        } else {
            others.insert(reference)
        }
    }

    /// Inserts the content address of `sha256` (`ExternalDataStore.reference(for:)`), parsed
    /// from the digits without building the reference's string when they are 64 lowercase hex
    /// digits.
    mutating func insert(sha256: String) {
        var sha = sha256
        if let address = sha.withUTF8({ Address(hex: $0) }) {
            addresses[Int(address.shard)].append(address)
            sorted = false
        } else {
            insert(ExternalDataStore.reference(for: sha256))
        }
    }

    /// Sorts each shard's addresses and drops repeated ones; `contains(shard:name:)` asks after
    /// the last `insert` and this.
    mutating func sortForLookups() {
        guard !sorted else { return }
        for shard in addresses.indices where !addresses[shard].isEmpty {
            addresses[shard].sort()
            var kept = 0
            for address in addresses[shard] where kept == 0 || addresses[shard][kept - 1] != address {
                addresses[shard][kept] = address
                kept += 1
            }
            addresses[shard].removeLast(addresses[shard].count - kept)
        }
        sorted = true
    }

    /// Whether the reference `shard/name` (a file in a folder of external data) was inserted.
    /// Call `sortForLookups` after the last `insert` first.
    func contains(shard: String, name: UnsafeBufferPointer<UInt8>) -> Bool {
        precondition(sorted, "VerifyReferences.contains(shard:name:) before sortForLookups()")
        let folder = shard.utf8
        if folder.count == 2, let first = folder.first, let second = folder.last,
            let address = VerifyReferences.address(shard: (first, second), slash: UInt8(ascii: "/"), name: name)
        {
            // Bisection in the shard's sorted addresses.
            let list = addresses[Int(address.shard)]
            var (low, high) = (0, list.count)
            while low < high {
                let middle = (low + high) / 2
                if list[middle] < address { low = middle + 1 } else { high = middle }
            }
            return low < list.count && list[low] == address
        }
        return others.contains(shard + "/" + String(decoding: name, as: UTF8.self))
    }

    /// Whether the reference `name` (a top-level entry of external data) was inserted.
    func contains(topLevel name: String) -> Bool {
        // Never a content address: those have a folder.
        others.contains(name)
    }

    /// The folders of the references (each one's part before its last '/', "" for none), without
    /// duplicates, unsorted.
    var folders: Set<Substring> {
        var folders = Set<Substring>()
        let hex = Array("0123456789abcdef".utf8)
        for shard in 0..<256 where !addresses[shard].isEmpty {
            folders.insert(Substring(String(decoding: [hex[shard >> 4], hex[shard & 15]], as: UTF8.self)))
        }
        // Found on the UTF-8 view ('/' is one byte): a Character search costs grapheme
        // breaking per reference.
        for ref in others {
            folders.insert(ref.utf8.lastIndex(of: UInt8(ascii: "/")).map { ref[..<$0] } ?? "")
        }
        return folders
    }
}
