/// Reading a backend's migrations for the tables they create.
public enum MigrationTables {
    /// The name of every table the migrations' SQL creates (`CREATE TABLE name` and
    /// `CREATE TABLE IF NOT EXISTS name`; a name is ASCII letters, digits and `_`): every table a
    /// catalog of any version up to the current one may hold. Both backends derive their list
    /// of catalog tables from it, so another program's table is told apart the same way.
    ///
    /// Scans the UTF-8 bytes (Foundation's `range(of:)` took ~2,000,000 instructions for the
    /// SQLite migrations, paid at each migration step).
    public static func created(by migrations: [String]) -> Set<String> {
        let create = Array("CREATE TABLE ".utf8), ifNotExists = Array("IF NOT EXISTS ".utf8)
        var names: Set<String> = []
        for sql in migrations {
            let bytes = Array(sql.utf8)
            var i = 0
            while let found = firstIndex(of: create, in: bytes, from: i) {
                i = found + create.count
                if starts(bytes, with: ifNotExists, at: i) { i += ifNotExists.count }
                let start = i
                while i < bytes.count, isNameByte(bytes[i]) { i += 1 }
                names.insert(String(decoding: bytes[start..<i], as: UTF8.self))
            }
        }
        return names
    }

    private static func isNameByte(_ b: UInt8) -> Bool {
        (b >= UInt8(ascii: "a") && b <= UInt8(ascii: "z")) || (b >= UInt8(ascii: "A") && b <= UInt8(ascii: "Z"))
            || (b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9")) || b == UInt8(ascii: "_")
    }

    private static func starts(_ bytes: [UInt8], with prefix: [UInt8], at index: Int) -> Bool {
        index + prefix.count <= bytes.count && bytes[index..<(index + prefix.count)].elementsEqual(prefix)
    }

    private static func firstIndex(of needle: [UInt8], in bytes: [UInt8], from start: Int) -> Int? {
        guard let first = needle.first, bytes.count >= needle.count else { return nil }
        var i = start
        while i <= bytes.count - needle.count {
            if bytes[i] == first, starts(bytes, with: needle, at: i) { return i }
            i += 1
        }
        return nil
    }
}
