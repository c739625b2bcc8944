import Foundation
import PhotosImaging
import PhotosModel

/// Which loaded place names a position (issue 26 item 3), and how far a place reaches.
///
/// A populated place of GeoNames is a point; a city covers kilometres, a hamlet a few hundred
/// metres. Naming a photo after the nearest point alone names the suburb whose centre happens to
/// be nearer than the city's (the peers' complaint: Immich #17905, PhotoPrism #4468); naming it
/// after the most populous place around names the city for a photo taken in the suburb's own
/// centre. So each place reaches a radius that grows with the square root of its population (a
/// city's area grows about with its population, so its radius with the root: `radiusKm`), and a
/// position is named after the place it is nearest to *relative to that radius* (smallest
/// distance ÷ radius; ties: the larger population, then the smaller geonameid). Places more than
/// `searchKm` away are not looked at: such a position has no place.
public enum PlaceRule {
    /// The radius a place of `population` inhabitants reaches, kilometres: 0.015 km × √population,
    /// at least 1 km and at most 20 km (Toulouse, 470,000: 10.3 km; a town of 25,000: 2.4 km).
    public static func radiusKm(population: Int) -> Double {
        min(20, max(1, 0.015 * Double(max(0, population)).squareRoot()))
    }

    /// The farthest a place may be from a position to name it, kilometres.
    public static let searchKm = 50.0

    /// The place `candidates` give a position (degrees), with its distance in kilometres; nil
    /// when none is within `searchKm`.
    public static func best(latitude: Double, longitude: Double, among candidates: [PlaceRow]) -> NamedPlace? {
        var best: (place: PlaceRow, distance: Double, score: Double)?
        for place in candidates {
            let d = GeoCircle.distanceKm(
                latitude, longitude, Double(place.latitudeE7) / 1e7, Double(place.longitudeE7) / 1e7)
            guard d <= searchKm else { continue }
            let score = d / radiusKm(population: place.population)
            // Lexicographic: the score, then the larger population, then the smaller geonameid.
            if let b = best,
                (score, -place.population, place.geonamesID) >= (b.score, -b.place.population, b.place.geonamesID)
            {
                continue
            }
            best = (place, d, score)
        }
        return best.map { NamedPlace(place: $0.place, distanceKm: $0.distance) }
    }
}

/// A photo's place: the loaded place `PlaceRule` names and the distance to it.
public struct NamedPlace: Sendable, Equatable {
    public var place: PlaceRow
    /// Great-circle kilometres from the photo's position to the place's point.
    public var distanceKm: Double

    public init(place: PlaceRow, distanceKm: Double) {
        self.place = place
        self.distanceKm = distanceKm
    }

    /// "Moab, Utah, US": the name, the first-level division when known, the country code.
    public var label: String {
        ([place.name] + (place.admin1.map { [$0] } ?? []) + [place.countryCode]).joined(separator: ", ")
    }

    /// "3.2 km from Moab, Utah, US" (one decimal below 10 km, whole kilometres above).
    public var text: String { NamedPlace.distanceText(distanceKm) + " from " + label }

    /// A distance as `show` prints it: `0.4 km`, `3.2 km`, `12 km`.
    public static func distanceText(_ km: Double) -> String {
        km < 10 ? String(format: "%.1f km", km) : String(format: "%.0f km", km)
    }

    /// `{"name","admin1","country","countryName","geonamesId","latitude","longitude","distanceKm","set":false}`
    /// as `list --json` and `show --json` give it.
    public var json: JSONValue {
        .object([
            ("name", .string(place.name)), ("admin1", .optional(place.admin1)), ("country", .string(place.countryCode)),
            ("countryName", .optional(place.countryName)), ("geonamesId", .int(Int(place.geonamesID))),
            ("latitude", .decimal(Double(place.latitudeE7) / 1e7, decimals: 7)),
            ("longitude", .decimal(Double(place.longitudeE7) / 1e7, decimals: 7)),
            ("distanceKm", .decimal(distanceKm, decimals: 3)), ("set", .bool(false))
        ])
    }
}

/// What `photos places load` did.
public struct PlacesLoadReport: Sendable {
    /// Places in the catalog now.
    public var loaded = 0
    /// Places there were before (all replaced).
    public var replaced = 0
    /// Rows of other feature classes than P, not loaded.
    public var otherFeatures = 0
    /// Broken lines: counted, the first few named.
    public var brokenCount = 0
    public var broken: [GeoNamesBrokenLine] = []
    /// Names of first-level divisions and countries read from the optional files.
    public var admin1Names = 0
    public var countryNames = 0
}

extension Library {
    /// Replaces the catalog's gazetteer with the populated places of the GeoNames file at `path`
    /// (issue 26 item 3), their divisions named from `admin1Path` and countries from
    /// `countriesPath` when given; in one write transaction. Broken lines are counted and the
    /// first few named; the rest is loaded.
    /// - Throws: `GeoNamesError` when a file cannot be read, or (`.data`) when the file holds no
    ///   populated place at all (nothing is changed); `LibraryError.busy`; the store's error.
    public func loadPlaces(path: String, admin1Path: String?, countriesPath: String?) throws -> PlacesLoadReport {
        var report = PlacesLoadReport()
        let admin1 = try admin1Path.map { try GeoNamesReader.readAdmin1(path: $0) } ?? [:]
        let countries = try countriesPath.map { try GeoNamesReader.readCountries(path: $0) } ?? [:]
        report.admin1Names = admin1.count
        report.countryNames = countries.count
        let dump = try GeoNamesReader.read(path: path, admin1: admin1, countries: countries)
        report.otherFeatures = dump.otherFeatures
        report.brokenCount = dump.brokenCount
        report.broken = dump.broken
        guard !dump.places.isEmpty else {
            let first = dump.broken.first.map { "; line \($0.line): \($0.reason)" } ?? ""
            throw GeoNamesError(
                kind: .data, path: path,
                reason: "no populated place (feature class P) in GeoNames' geoname format"
                    + " (\(dump.brokenCount) broken lines\(first))")
        }
        // One row per geonameid: a repeated id keeps its first row and counts as broken.
        var seen = Set<Int64>()
        var places: [PlaceRow] = []
        places.reserveCapacity(dump.places.count)
        for place in dump.places {
            if seen.insert(place.geonamesID).inserted { places.append(place) } else { report.brokenCount += 1 }
        }
        try write {
            report.replaced = try store.placeCount()
            try store.replacePlaces(places)
        }
        report.loaded = places.count
        return report
    }

    /// How many places are loaded (0: none; nothing is named).
    /// - Throws: the store's error.
    public func placeCount() throws -> Int { try store.placeCount() }

    /// The place a position is named after (`PlaceRule`), nil when no loaded place is within
    /// `PlaceRule.searchKm`. One box query on the `place_position` index.
    /// - Throws: the store's error.
    public func place(near position: GeoPosition) throws -> NamedPlace? {
        let box = GeoCircle(latitude: position.latitude, longitude: position.longitude, radiusKm: PlaceRule.searchKm)
            .boundingBox
        func e7(_ v: Double) -> Int { Int((v * 1e7).rounded()) }
        let candidates = try store.places(
            south: e7(box.south), west: e7(box.west), north: e7(box.north), east: e7(box.east))
        return PlaceRule.best(latitude: position.latitude, longitude: position.longitude, among: candidates)
    }

    /// The loaded places a `--place` argument names, most populous first: `NAME`, `NAME, ADMIN1`,
    /// `NAME, CC`, `NAME, ADMIN1, CC` (or the country's name), each part compared ignoring case
    /// and diacritics.
    /// - Throws: the store's error.
    public func places(named argument: String) throws -> [PlaceRow] {
        let parts = argument.split(separator: ",").map { PlaceRow.searchKey(String($0)) }.filter { !$0.isEmpty }
        guard let name = parts.first else { return [] }
        return try store.places(searchName: name).filter { place in
            parts.dropFirst().allSatisfy { part in
                [place.admin1, place.countryCode, place.countryName].compactMap { $0 }.contains {
                    PlaceRow.searchKey($0) == part
                }
            }
        }
    }
}

/// A place name set by hand as `list --json` and `show --json` give it: `{"name","set":true}`.
public func setPlaceJSON(_ name: String) -> JSONValue { .object([("name", .string(name)), ("set", .bool(true))]) }

extension Library {
    /// `photos place set PHOTO NAME` / `photos place clear PHOTO…` (issue 26 item 3): sets (or,
    /// with nil, clears) the place name each photo shows instead of the gazetteer's. One write
    /// transaction with one history transaction (context `place set`/`place clear`): a Photo
    /// update of `placeName` per photo changed, which sync carries with the conflict rule of
    /// every attribute; a photo in a share this library may not write is refused (exit 77),
    /// nothing changed.
    /// - Parameters:
    ///   - name: the name as typed (cleaned by `PhotoText.placeName`), or nil to clear.
    /// - Returns: the uniqueNames whose place name changed, in the order given.
    /// - Throws: `LibraryError.notFound` for a photo deleted meanwhile, the history's permission
    ///   error, the store's error.
    public func setPlaceName(_ photos: [PhotoRecord], to name: String?, author: HistoryAuthor) throws -> [String] {
        let cleaned = name.flatMap(PhotoText.placeName)
        return try write {
            let keys = try photoKeys(photos)
            if let gone = photos.first(where: { photo in !keys.contains { $0.rowID == photo.rowID } }) {
                throw LibraryError.notFound(.photo(gone.uniqueName))
            }
            var history = HistoryWriter(self, author: author, context: name == nil ? .placeClear : .placeSet)
            var changed: [String] = []
            for key in keys {
                guard let row = try catalogStore.photo(uniqueName: key.uniqueName) else {
                    throw LibraryError.notFound(.photo(key.uniqueName))
                }
                guard row.placeName != cleaned else { continue }
                try metadataStore.setPlaceName(ofPhoto: key.rowID, cleaned)
                history.update(.photo(uniqueName: key.uniqueName), ["placeName"], zone: key.zone)
                changed.append(key.uniqueName)
            }
            try history.commit()
            return changed
        }
    }
}
