/// A place where no photos catalog can be made (`ForeignTablesError`,
/// `MissingCatalogSchemaError`): `photos init` and `photos catalog move` refuse it before anything
/// is made, with the error's description, as EX_CANTCREAT (73, sysexits.h).
public protocol CatalogPlaceRefusal: Error, CustomStringConvertible {}

/// A catalog's place — a PostgreSQL schema, a SQLite database file — that holds tables or
/// views of another program. Such a place is not empty: `photos init` (also `--database`)
/// and `photos catalog move` create no catalog there, since the catalog's tables beside
/// another program's would mix two owners in one schema (a later `DROP SCHEMA`, a restore or
/// the other program's own migrations would take the photos catalog with them).
///
/// A place holding a photos catalog and nothing else is not foreign: `init` joins it (a second
/// machine of a team library) and `catalog move` takes it while it has no rows.
public struct ForeignTablesError: CatalogPlaceRefusal, Equatable {
    /// The place as its backend names it: `schema S of database D` on PostgreSQL, the database
    /// file's path on SQLite.
    public let place: String
    /// The other program's tables and views there, by name in byte order (at least one).
    public let tables: [String]
    /// What to give instead, in the backend's terms (a new database or schema, a new folder).
    public let remedy: String

    public init(place: String, tables: [String], remedy: String) {
        self.place = place
        self.tables = tables
        self.remedy = remedy
    }

    public var description: String {
        let more = tables.count > 1 ? " (and \(tables.count - 1) more)" : ""
        return
            "\(place) holds table \(tables.first ?? "?")\(more) of another program, not of a photos catalog: \(remedy)"
    }
}

/// A PostgreSQL connection whose search path names no schema that exists (a typo in
/// `options=-csearch_path=…`, a schema dropped since): `current_schema()` is NULL and there is
/// no place to create a catalog in (CREATE TABLE fails with 3F000 invalid_schema_name,
/// PostgreSQL docs §5.9.3). `photos init` and `photos catalog move` refuse it before anything
/// is made, as they refuse a schema of another program's tables.
public struct MissingCatalogSchemaError: CatalogPlaceRefusal, Equatable {
    /// The connection's `search_path` setting, as the server reports it.
    public let searchPath: String
    /// The database connected to.
    public let database: String

    public init(searchPath: String, database: String) {
        self.searchPath = searchPath
        self.database = database
    }

    public var description: String {
        "the search path \(searchPath) of database \(database) names no schema that exists: create the schema first (CREATE SCHEMA), or give one that exists (options=-csearch_path=SCHEMA)"
    }
}
