import Foundation

/// One populated place of a gazetteer loaded into the catalog (issue 26 item 3: `photos places
/// load`, GeoNames' `geoname` table format, table `place`). Reference data: not history, not
/// synced (every library loads its own), carried by `catalog move`.
public struct PlaceRow: Sendable, Equatable {
    /// GeoNames' `geonameid` (> 0).
    public var geonamesID: Int64
    /// The place's name as GeoNames gives it (UTF-8, NFC), 1–200 bytes.
    public var name: String
    /// `name` folded for lookups (`PlaceRow.searchKey`): lower case, without diacritics.
    public var searchName: String
    /// The first-level administrative division's name ("Utah", "Occitanie") when
    /// `admin1CodesASCII.txt` was given and names it, else nil.
    public var admin1: String?
    /// ISO 3166-1 alpha-2 country code, upper case ("US").
    public var countryCode: String
    /// The country's name when `countryInfo.txt` was given, else nil.
    public var countryName: String?
    /// Degrees north × 10⁷ (WGS 84), as photo positions are stored.
    public var latitudeE7: Int
    /// Degrees east × 10⁷ (WGS 84).
    public var longitudeE7: Int
    /// Inhabitants (GeoNames' `population`; 0 when unknown).
    public var population: Int

    public init(
        geonamesID: Int64, name: String, searchName: String, admin1: String?, countryCode: String,
        countryName: String?, latitudeE7: Int, longitudeE7: Int, population: Int
    ) {
        self.geonamesID = geonamesID
        self.name = name
        self.searchName = searchName
        self.admin1 = admin1
        self.countryCode = countryCode
        self.countryName = countryName
        self.latitudeE7 = latitudeE7
        self.longitudeE7 = longitudeE7
        self.population = population
    }

    /// `text` folded for a place lookup: NFC, case and diacritics folded ("Zürich" and
    /// "ZURICH" are "zurich"), surrounding spaces trimmed.
    public static func searchKey(_ text: String) -> String {
        text.trimmingCharacters(in: .whitespaces)
            .folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
            .precomposedStringWithCanonicalMapping
    }
}

/// The catalog's gazetteer: the populated places `photos places load` put in table `place`
/// (issue 26 item 3), read to name the place a photo was taken near.
public protocol GazetteerStore: AnyObject {
    /// Replaces every place with `places` (call inside one write transaction: a load is all or
    /// nothing).
    /// - Throws: the store's error (a CHECK failure for a row outside the table's bounds).
    func replacePlaces(_ places: [PlaceRow]) throws
    /// How many places are loaded (0: no gazetteer; nothing is named).
    func placeCount() throws -> Int
    /// The places whose position lies in the box of e7 degrees (bounds included; `west >
    /// east` crosses the antimeridian), by the `place_position` index.
    func places(south: Int, west: Int, north: Int, east: Int) throws -> [PlaceRow]
    /// The places whose `searchName` is `key` (index `place_search_name`), most populous first.
    func places(searchName key: String) throws -> [PlaceRow]
}
