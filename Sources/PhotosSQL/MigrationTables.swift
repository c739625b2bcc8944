/// Reading a backend's migrations for the tables they create.
public enum MigrationTables {
    /// The name of every table the migrations' SQL creates (`CREATE TABLE name` and
    /// `CREATE TABLE IF NOT EXISTS name`; a name is letters, digits and `_`): every table a
    /// catalog of any version up to the current one may hold. Both backends derive their list
    /// of catalog tables from it, so another program's table is told apart the same way.
    public static func created(by migrations: [String]) -> Set<String> {
        var names: Set<String> = []
        for sql in migrations {
            var rest = Substring(sql)
            while let found = rest.range(of: "CREATE TABLE ") {
                rest = rest[found.upperBound...]
                if rest.hasPrefix("IF NOT EXISTS ") { rest = rest.dropFirst("IF NOT EXISTS ".count) }
                names.insert(String(rest.prefix { $0.isLetter || $0.isNumber || $0 == "_" }))
            }
        }
        return names
    }
}
