import PhotosModel

/// `GazetteerStore` on any `SQLConnection` (table `place`, issue 26 item 3), the same SQL on
/// SQLite and PostgreSQL.
extension GazetteerStore where Self: SQLConnection {
    private static var columns: String {
        "geonames_id, name, search_name, admin1, country_code, country_name, latitude_e7, longitude_e7, population"
    }

    private static func place(_ r: ResultRow) -> PlaceRow {
        PlaceRow(
            geonamesID: r.int64(0), name: r.string(1), searchName: r.string(2), admin1: r.optionalString(3),
            countryCode: r.string(4), countryName: r.optionalString(5), latitudeE7: r.int(6), longitudeE7: r.int(7),
            population: r.int(8))
    }

    public func replacePlaces(_ places: [PlaceRow]) throws {
        try execute(sql: "DELETE FROM place", arguments: [])
        for range in StatementBatches.writes(places.count, limit: 128) {
            var arguments: [SQLBindable] = []
            arguments.reserveCapacity(range.count * 9)
            for p in places[range] {
                arguments +=
                    [
                        p.geonamesID, p.name, p.searchName, p.admin1, p.countryCode, p.countryName, p.latitudeE7,
                        p.longitudeE7, p.population
                    ] as [SQLBindable]
            }
            try execute(
                sql: "INSERT INTO place (\(Self.columns)) VALUES "
                    + StatementBatches.placeholders(range.count, "(?, ?, ?, ?, ?, ?, ?, ?, ?)"),
                arguments: arguments)
        }
    }

    public func placeCount() throws -> Int {
        try fetchInt(sql: "SELECT count(*) FROM place", arguments: []) ?? 0
    }

    public func places(south: Int, west: Int, north: Int, east: Int) throws -> [PlaceRow] {
        let longitude =
            west <= east ? "longitude_e7 BETWEEN ? AND ?" : "(longitude_e7 >= ? OR longitude_e7 <= ?)"
        return try fetchAll(
            sql: "SELECT \(Self.columns) FROM place WHERE latitude_e7 BETWEEN ? AND ? AND \(longitude)",
            arguments: [south, north, west, east], Self.place)
    }

    public func places(searchName key: String) throws -> [PlaceRow] {
        try fetchAll(
            sql: "SELECT \(Self.columns) FROM place WHERE search_name = ? ORDER BY population DESC, geonames_id",
            arguments: [key], Self.place)
    }
}
