import PhotosFiles

/// The external data references `verify` found in the catalog, for its orphan check: a
/// reference in content-address form (`ab/` and 64 lowercase hex digits starting with `ab`,
/// `ExternalDataStore.reference(for:)`) is kept as its 32 bytes, any other as its string. A
/// million references then cost a million 32-byte keys, hashed in four words, instead of a
/// million heap strings hashed and compared byte by byte; each listed file is classified the
/// same way (`contains(shard:name:)`), so membership is exactly that of a set of the strings.
struct VerifyReferences {
    /// A content address's SHA-256, as four big-endian words.
    struct Address: Hashable {
        var words: (UInt64, UInt64, UInt64, UInt64)

        static func == (a: Address, b: Address) -> Bool {
            a.words.0 == b.words.0 && a.words.1 == b.words.1 && a.words.2 == b.words.2 && a.words.3 == b.words.3
        }

        func hash(into hasher: inout Hasher) {
            hasher.combine(words.0)
            hasher.combine(words.1)
            hasher.combine(words.2)
            hasher.combine(words.3)
        }

        /// The value of 64 lowercase hex digits, or nil for anything else.
        init?<Digits: Collection<UInt8>>(hex: Digits) {
            guard hex.count == 64 else { return nil }
            var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
            var i = 0
            for byte in hex {
                let value: UInt64
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): value = UInt64(byte - UInt8(ascii: "0"))
                case UInt8(ascii: "a")...UInt8(ascii: "f"): value = UInt64(byte - UInt8(ascii: "a") + 10)
                default: return nil
                }
                switch i >> 4 {
                case 0: words.0 = words.0 << 4 | value
                case 1: words.1 = words.1 << 4 | value
                case 2: words.2 = words.2 << 4 | value
                default: words.3 = words.3 << 4 | value
                }
                i += 1
            }
            self.words = words
        }

        /// The shard, its first byte (the folder `ab` is 0xab).
        var shard: UInt8 { UInt8(truncatingIfNeeded: words.0 >> 56) }
    }

    private var addresses = Set<Address>()
    private var others = Set<String>()
    /// Which of the 256 shards hold a referenced address.
    private var shards = [Bool](repeating: false, count: 256)

    /// The address of a reference in content-address form (`ab/ab…`, 67 bytes), else nil.
    static func address(of reference: String) -> Address? {
        let bytes = reference.utf8
        guard bytes.count == 67 else { return nil }
        return address(shard: bytes.prefix(2), slash: bytes.dropFirst(2).first, name: bytes.dropFirst(3))
    }

    /// The address of the file `name` in folder `shard` when that is a content address.
    private static func address<Shard: Collection<UInt8>, Name: Collection<UInt8>>(
        shard: Shard, slash: UInt8?, name: Name
    ) -> Address? {
        guard slash == UInt8(ascii: "/"), shard.count == 2, name.count == 64, name.prefix(2).elementsEqual(shard) else {
            return nil
        }
        return Address(hex: name)
    }

    mutating func insert(_ reference: String) {
        if let address = VerifyReferences.address(of: reference) {
            addresses.insert(address)
            shards[Int(address.shard)] = true
        } else {
            others.insert(reference)
        }
    }

    /// Whether the reference `shard/name` (a file in a folder of external data) was inserted.
    func contains(shard: String, name: UnsafeBufferPointer<UInt8>) -> Bool {
        if let address = VerifyReferences.address(shard: shard.utf8, slash: UInt8(ascii: "/"), name: name) {
            return addresses.contains(address)
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
        for shard in 0..<256 where shards[shard] {
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
