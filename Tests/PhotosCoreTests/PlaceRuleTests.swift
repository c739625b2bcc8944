import Foundation
@testable import PhotosCore
import PhotosModel
import XCTest

/// Issue 26 item 3: the place rule (a place's radius grows with √population; a position is named
/// after the place nearest relative to its radius) and GeoNames rows read strictly.
final class PlaceRuleTests: XCTestCase {
    func place(_ id: Int64, _ name: String, _ lat: Double, _ lon: Double, _ pop: Int) -> PlaceRow {
        PlaceRow(
            geonamesID: id, name: name, searchName: PlaceRow.searchKey(name), admin1: nil, countryCode: "FR",
            countryName: nil, latitudeE7: Int(lat * 1e7), longitudeE7: Int(lon * 1e7), population: pop)
    }

    func testRadiusGrowsWithTheRootOfThePopulationWithinBounds() {
        XCTAssertEqual(PlaceRule.radiusKm(population: 433_055), 9.871, accuracy: 0.001)
        XCTAssertEqual(PlaceRule.radiusKm(population: 25_000), 2.372, accuracy: 0.001)
        XCTAssertEqual(PlaceRule.radiusKm(population: 0), 1)
        XCTAssertEqual(PlaceRule.radiusKm(population: 100), 1, "at least 1 km")
        XCTAssertEqual(PlaceRule.radiusKm(population: 20_000_000), 20, "at most 20 km")
        XCTAssertEqual(PlaceRule.radiusKm(population: -5), 1)
    }

    func testTheCityWinsOverTheSuburbWhosePointIsNearerAndTheSuburbInItsOwnCentre() throws {
        let toulouse = place(2_972_315, "Toulouse", 43.60426, 1.44367, 433_055)
        let blagnac = place(3_032_469, "Blagnac", 43.63333, 1.4, 25_000)
        // 2.59 km from Toulouse's point, 2.19 km from Blagnac's: nearest point would say Blagnac.
        let inToulouse = try XCTUnwrap(PlaceRule.best(latitude: 43.62, longitude: 1.42, among: [blagnac, toulouse]))
        XCTAssertEqual(inToulouse.place.name, "Toulouse")
        XCTAssertEqual(inToulouse.distanceKm, 2.59, accuracy: 0.01)
        XCTAssertEqual(inToulouse.text, "2.6 km from Toulouse, FR")
        let inBlagnac = try XCTUnwrap(PlaceRule.best(latitude: 43.6335, longitude: 1.401, among: [toulouse, blagnac]))
        XCTAssertEqual(inBlagnac.place.name, "Blagnac")
        // Beyond 50 km nothing names a position; with nothing loaded, nothing either.
        XCTAssertNil(PlaceRule.best(latitude: 44.2, longitude: 1.44, among: [toulouse, blagnac]))
        XCTAssertNil(PlaceRule.best(latitude: 43.6, longitude: 1.44, among: []))
        // Equal scores: the larger population, then the smaller geonameid.
        let twinA = place(20, "A", 10, 10, 1000)
        let twinB = place(10, "B", 10, 10, 1000)
        XCTAssertEqual(PlaceRule.best(latitude: 10, longitude: 10, among: [twinA, twinB])?.place.name, "B")
        XCTAssertEqual(NamedPlace.distanceText(12.4), "12 km")
        XCTAssertEqual(NamedPlace.distanceText(0.04), "0.0 km")
    }

    func testGeoNamesRowsAreReadStrictly() {
        func row(_ fields: [String]) -> String { fields.joined(separator: "\t") }
        let good = ["1", "Zürich", "Zurich", "", "47.36667", "8.55", "P", "PPLA", "CH", "", "25", "", "", "", "341730"]
        func parse(_ fields: [String]) -> GeoNamesReader.Row {
            GeoNamesReader.row(Array(row(fields).utf8)[...], admin1: ["CH.25": "Zurich"], countries: [:])
        }
        guard case .place(let p) = parse(good) else { return XCTFail("\(parse(good))") }
        XCTAssertEqual([p.name, p.searchName, p.admin1 ?? "", p.countryCode], ["Zürich", "zurich", "Zurich", "CH"])
        XCTAssertEqual([p.latitudeE7, p.longitudeE7, p.population], [473_666_700, 85_500_000, 341_730])
        var bad = good
        bad[0] = "-3"
        XCTAssertEqual(parse(bad), .broken("geonameid '-3' is not a positive integer"))
        bad = good
        bad[5] = "181"
        XCTAssertEqual(parse(bad), .broken("longitude '181' is not a number of degrees within -180…180"))
        bad = good
        bad[4] = "nan"
        guard case .broken = parse(bad) else { return XCTFail("nan latitude") }
        bad = good
        bad[8] = "ch"
        XCTAssertEqual(parse(bad), .broken("country code 'ch' is not two capital letters"))
        bad = good
        bad[14] = "many"
        XCTAssertEqual(parse(bad), .broken("population 'many' is not a whole number"))
        bad = good
        bad[1] = "a\u{7}b"
        XCTAssertEqual(parse(bad), .broken("the name is empty, over 200 bytes or not UTF-8"))
        bad = good
        bad[6] = "H"
        XCTAssertEqual(parse(bad), .otherFeature)
        XCTAssertEqual(
            parse(Array(good.prefix(14))), .broken("14 tab-separated fields, not the 19 of GeoNames' geoname table"))
        let long = String(repeating: "x", count: GeoNamesReader.maxLineBytes + 1)
        XCTAssertEqual(parse([long]), .broken("a line over 65536 bytes"))
    }
}
