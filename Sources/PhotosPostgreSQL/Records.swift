import PhotosModel

extension PostgresDatabase {
    /// Runs an `INSERT … RETURNING id` and returns the id.
    /// - Throws: `PostgresError`.
    func insertReturningID(_ sql: String, _ values: [PGBindable]) throws -> Int64 {
        guard let id = try statement(sql).first(values, { $0.int64(0) }) else {
            throw PostgresError(sqlState: "XX000", message: "an INSERT … RETURNING returned no row", sql: sql)
        }
        return id
    }
}
