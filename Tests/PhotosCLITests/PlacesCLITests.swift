import Foundation
import PhotosTestSupport
import XCTest

/// Issue 26 item 3: `photos places load` reads a GeoNames dump written here (real cities'
/// geonameids, positions and populations from GeoNames: Toulouse 2972315, Blagnac 3032469,
/// Colomiers 3024635, Moab 5543307), then `show` names a photo's place with its distance, `list
/// --json` carries `place`, `list --place NAME` finds the photos within the place's radius; a
/// photo in Toulouse nearer to Blagnac's point than to Toulouse's is in Toulouse (the place
/// rule weighs distance by the place's size), one in Blagnac's centre is in Blagnac. Broken
/// lines are counted and named, a file with no place exits 65 and changes nothing; without a
/// dump nothing changes. Positions are written with exiftool. On both backends.
final class PlacesCLITests: BinaryTestCase {
    override var label: String { "photos-places" }

    /// A `geoname`-table row (19 tab-separated fields).
    func row(
        _ id: Int, _ name: String, _ lat: Double, _ lon: Double, _ cc: String, _ admin1: String, _ pop: Int,
        feature: String = "P"
    ) -> String {
        [
            "\(id)", name, name, "", "\(lat)", "\(lon)", feature, "PPL", cc, "", admin1, "", "", "", "\(pop)", "", "0",
            "Europe/Paris", "2024-01-01"
        ].joined(separator: "\t")
    }

    var cities: String {
        [
            "# a comment line",
            row(2972315, "Toulouse", 43.60426, 1.44367, "FR", "76", 433055),
            row(3032469, "Blagnac", 43.63333, 1.4, "FR", "76", 25000),
            row(3024635, "Colomiers", 43.61058, 1.33467, "FR", "76", 39000),
            "3 fields\tonly\there",
            row(1, "Nowhere", 91, 0, "FR", "76", 10),
            row(3015520, "Pic du Midi", 42.93, 0.14, "FR", "76", 0, feature: "T"),
            row(5543307, "Moab", 38.57332, -109.54984, "US", "UT", 5366)
        ].joined(separator: "\n") + "\n"
    }

    func write(_ name: String, _ text: String) -> String {
        let path = dir + "/" + name
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(text.utf8)))
        return path
    }

    /// A library with photos a–e: a in Toulouse (2.6 km from its point, 2.2 km from Blagnac's),
    /// b in Blagnac's centre, c 0.7 km north of Moab, d without a position, e in the Pacific.
    func library() throws -> String {
        let src = dir + "/src"
        try FileManager.default.createDirectory(atPath: src, withIntermediateDirectories: true)
        let positions: [String: (Double, Double)?] = [
            "a": (43.62, 1.42), "b": (43.6335, 1.401), "c": (38.58, -109.55), "d": nil, "e": (-40, -120)
        ]
        for (name, position) in positions {
            let path = src + "/" + name + ".jpg"
            XCTAssertTrue(
                FileManager.default.createFile(
                    atPath: path, contents: try stormJPEG(date: "2024:05:01 12:00:00", offset: nil)))
            var args = ["-q", "-overwrite_original", "-Comment=" + name]
            if let (lat, lon) = position {
                args += [
                    "-GPSLatitude=\(abs(lat))", "-GPSLatitudeRef=\(lat < 0 ? "S" : "N")",
                    "-GPSLongitude=\(abs(lon))", "-GPSLongitudeRef=\(lon < 0 ? "W" : "E")"
                ]
            }
            let r = try runProcess("/usr/bin/exiftool", args + [path])
            XCTAssertEqual(r.status, 0, r.stderr)
        }
        let lib = dir + "/lib"
        _ = try ok(lib, ["import", "-q", src])
        return lib
    }

    func uniqueName(_ lib: String, _ name: String) throws -> String {
        try XCTUnwrap(try listedByDisplayName(lib)[name + ".jpg"]?["uniqueName"] as? String, name)
    }

    func placeLine(_ lib: String, _ name: String) throws -> String? {
        try ok(lib, ["show", try uniqueName(lib, name)]).split(separator: "\n").first { $0.hasPrefix("place:") }
            .map { $0.dropFirst("place:".count).trimmingCharacters(in: .whitespaces) }
    }

    func listed(_ lib: String, _ args: [String]) throws -> (status: Int32, names: [String], stderr: String) {
        let r = try run(["--library", lib, "--json", "list"] + args)
        let names = r.stdout.split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["displayName"] as? String
        }
        return (r.status, names.sorted(), r.stderr)
    }

    func testLoadedPlacesNameAndFindPhotos() throws {
        let lib = try library()
        // Without a dump nothing changes: no place line, no "place" key.
        XCTAssertNil(try placeLine(lib, "a"))
        XCTAssertNil(try listedByDisplayName(lib)["a.jpg"]?["place"])
        XCTAssertEqual(try ok(lib, ["places", "status"]), "No places loaded (photos places load cities1000.txt)\n")

        let citiesFile = write("cities.txt", cities)
        let admin1 = write("admin1.txt", "FR.76\tOccitanie\tOccitanie\t11071623\nUS.UT\tUtah\tUtah\t5549030\n")
        let countries = write(
            "countries.txt",
            "#ISO\tISO3\tISO-Numeric\tfips\tCountry\n"
                + "FR\tFRA\t250\tFR\tFrance\tParis\nUS\tUSA\t840\tUS\tUnited States\tWashington\n")
        let load = try run([
            "--library", lib, "places", "load", citiesFile, "--admin1", admin1, "--countries", countries
        ])
        XCTAssertEqual(load.status, 0, load.stderr)
        XCTAssertEqual(
            load.stdout, "Loaded 4 places, 2 broken lines left out, 1 rows that are not populated places\n",
            "Toulouse, Blagnac, Colomiers and Moab (the mountain is not a populated place)")
        XCTAssertTrue(load.stderr.contains("cities.txt: line 5: 3 tab-separated fields"), load.stderr)
        XCTAssertTrue(load.stderr.contains("cities.txt: line 6: latitude '91.0'"), load.stderr)
        XCTAssertEqual(try ok(lib, ["places", "status"]), "4 places loaded\n")

        XCTAssertEqual(
            try placeLine(lib, "a"), "2.6 km from Toulouse, Occitanie, FR", "not Blagnac, whose point is nearer")
        XCTAssertEqual(try placeLine(lib, "b"), "0.1 km from Blagnac, Occitanie, FR")
        XCTAssertEqual(try placeLine(lib, "c"), "0.7 km from Moab, Utah, US")
        XCTAssertNil(try placeLine(lib, "d"), "no position")
        XCTAssertNil(try placeLine(lib, "e"), "no place within 50 km")

        let all = try listedByDisplayName(lib)
        let a = try XCTUnwrap(all["a.jpg"]?["place"] as? [String: Any])
        XCTAssertEqual(a["name"] as? String, "Toulouse")
        XCTAssertEqual(a["admin1"] as? String, "Occitanie")
        XCTAssertEqual(a["country"] as? String, "FR")
        XCTAssertEqual(a["countryName"] as? String, "France")
        XCTAssertEqual(a["geonamesId"] as? Int, 2972315)
        XCTAssertEqual(try XCTUnwrap(a["distanceKm"] as? Double), 2.59, accuracy: 0.01)
        XCTAssertNil(all["d.jpg"]?["place"])
        XCTAssertNil(all["e.jpg"]?["place"])

        // --place: the photos within the place's radius (Toulouse 9.9 km: Blagnac's centre too).
        let toulouse = try listed(lib, ["--place", "toulouse"])
        XCTAssertEqual(toulouse.status, 0, toulouse.stderr)
        XCTAssertEqual(toulouse.names, ["a.jpg", "b.jpg"])
        XCTAssertTrue(
            toulouse.stderr.contains("within 9.9 km of Toulouse, Occitanie, FR (43.60426, 1.44367)"), toulouse.stderr)
        // Blagnac reaches 2.4 km: a (2.2 km from its point, named Toulouse by show) is within it too.
        XCTAssertEqual(try listed(lib, ["--place", "BLAGNAC"]).names, ["a.jpg", "b.jpg"])
        XCTAssertEqual(try listed(lib, ["--place", "Colomiers"]).names, [])
        XCTAssertEqual(try listed(lib, ["--place", "Moab, Utah"]).names, ["c.jpg"])
        XCTAssertEqual(try listed(lib, ["--place", "Moab, United States"]).names, ["c.jpg"])
        let wrongCountry = try listed(lib, ["--place", "Moab, FR"])
        XCTAssertEqual(wrongCountry.status, 66, wrongCountry.stderr)
        XCTAssertTrue(
            wrongCountry.stderr.contains("no place 'Moab, FR' among the 4 loaded places"), wrongCountry.stderr)
        XCTAssertEqual(try listed(lib, ["--place", "Toulouse", "--near", "1,2"]).status, 64)
        XCTAssertEqual(try listed(lib, ["--place", "Toulouse", "--without-location"]).status, 64)

        // A file with no populated place: 65, nothing changed; a missing one: 66.
        let bad = try run(["--library", lib, "places", "load", write("bad.txt", "not\ta\tgeonames file\n")])
        XCTAssertEqual(bad.status, 65, bad.stderr)
        XCTAssertTrue(bad.stderr.contains("bad.txt: no populated place"), bad.stderr)
        XCTAssertEqual(try run(["--library", lib, "places", "load", dir + "/missing.txt"]).status, 66)
        XCTAssertEqual(try ok(lib, ["places", "status"]), "4 places loaded\n")

        // A load replaces what was loaded: only Moab now, so a has no place.
        let again = try json(
            try ok(
                lib,
                [
                    "--json", "places", "load",
                    write("moab.txt", row(5543307, "Moab", 38.57332, -109.54984, "US", "UT", 5366))
                ]))
        XCTAssertEqual(again["loaded"] as? Int, 1)
        XCTAssertEqual(again["replaced"] as? Int, 4)
        XCTAssertNil(try placeLine(lib, "a"))
        XCTAssertEqual(try placeLine(lib, "c"), "0.7 km from Moab, US", "no division names without --admin1")
    }

    /// `place set` names a photo's place by hand (shown instead of the gazetteer's, with or
    /// without a position), in history, carried by sync and merge; `place clear` gives the
    /// gazetteer's back; an empty or too long name is 64.
    func testAPlaceNameSetByHandIsShownRecordedAndCarried() throws {
        let lib = try library()
        _ = try ok(lib, ["places", "load", "-q", write("cities.txt", cities)])
        let (a, d) = (try uniqueName(lib, "a"), try uniqueName(lib, "d"))
        XCTAssertEqual(try ok(lib, ["place", "set", a, "  Le Capitole "]), "\(a): place set to Le Capitole\n")
        _ = try ok(lib, ["place", "set", d, "Grandma's garden"])
        XCTAssertEqual(try placeLine(lib, "a"), "Le Capitole (set by hand)")
        XCTAssertEqual(try placeLine(lib, "d"), "Grandma's garden (set by hand)", "no position needed")
        let listed = try listedByDisplayName(lib)
        let place = try XCTUnwrap(listed["a.jpg"]?["place"] as? [String: Any])
        XCTAssertEqual(place["name"] as? String, "Le Capitole")
        XCTAssertEqual(place["set"] as? Bool, true)
        XCTAssertEqual(place.count, 2)
        let c = try TestCatalog(root: lib, readOnly: true)
        XCTAssertEqual(try c.scalarInt("SELECT count(*) FROM history_transaction WHERE context = 'place set'"), 2)
        XCTAssertEqual(try c.scalarString("SELECT place_name FROM photo WHERE unique_name = ?", [a]), "Le Capitole")
        // The same name again changes nothing and records nothing.
        XCTAssertEqual(try ok(lib, ["place", "set", a, "Le Capitole"]), "\(a) already has the place Le Capitole\n")
        XCTAssertEqual(
            try TestCatalog(root: lib, readOnly: true).scalarInt(
                "SELECT count(*) FROM history_transaction WHERE context = 'place set'"), 2)
        for bad in ["", "   ", String(repeating: "x", count: 201)] {
            XCTAssertEqual(try run(["--library", lib, "place", "set", a, bad]).status, 64, bad)
        }

        // A peer gets the names by sync, a third library by merge.
        let peer = dir + "/peer"
        _ = try ok(peer, ["init", "-q"])
        _ = try ok(peer, ["sync", "-q", "--from", lib])
        XCTAssertEqual(try placeLine(peer, "a"), "Le Capitole (set by hand)")
        XCTAssertEqual(try placeLine(peer, "d"), "Grandma's garden (set by hand)")
        let merged = dir + "/merged"
        _ = try ok(merged, ["init", "-q"])
        _ = try ok(merged, ["merge", "-q", "--from", lib])
        XCTAssertEqual(try placeLine(merged, "d"), "Grandma's garden (set by hand)")

        // Cleared: the gazetteer's name again here; the peer, without a gazetteer, has none.
        XCTAssertEqual(try ok(lib, ["place", "clear", a]), "Cleared the place of 1 photo\n")
        XCTAssertEqual(try placeLine(lib, "a"), "2.6 km from Toulouse, FR")
        _ = try ok(peer, ["sync", "-q", "--from", lib])
        XCTAssertNil(try placeLine(peer, "a"))
        XCTAssertNil(try listedByDisplayName(peer)["a.jpg"]?["place"])
        XCTAssertEqual(try placeLine(peer, "d"), "Grandma's garden (set by hand)")
    }
}
