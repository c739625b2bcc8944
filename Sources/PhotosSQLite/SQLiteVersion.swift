import CSQLite

extension Database {
    /// The version of the SQLite library linked at run time ("3.40.1"), from
    /// `sqlite3_libversion()` (https://www.sqlite.org/c3ref/libversion.html).
    public static var sqliteVersion: String { String(cString: sqlite3_libversion()) }
}
