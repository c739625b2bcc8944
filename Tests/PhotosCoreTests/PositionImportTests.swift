import Foundation
import PhotosImaging
import PhotosTestSupport
import XCTest

@testable import PhotosCore

/// Issue 26 item 1: positions from the EXIF GPS IFD and XMP, stored per photo, in `list --json`
/// and written to export's XMP sidecars; exiftool (`exiftool -n -j`) is the oracle.
final class PositionImportTests: ImportTestCase {
    static let exiftool = ["/usr/bin/exiftool", "/usr/local/bin/exiftool"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    /// Runs exiftool with `arguments`; the standard output.
    func exiftool(_ arguments: [String]) throws -> Data {
        guard let path = Self.exiftool else {
            throw XCTSkip("exiftool is not installed (Debian libimage-exiftool-perl)")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return data
    }

    /// exiftool's signed latitude, longitude and altitude (`-n`, the Composite tags).
    func oracle(_ path: String) throws -> (Double?, Double?, Double?) {
        let data = try exiftool(["-n", "-j", "-GPSLatitude", "-GPSLongitude", "-GPSAltitude", "-GPSAltitudeRef", path])
        let object = try XCTUnwrap((try JSONSerialization.jsonObject(with: data) as? [[String: Any]])?.first)
        // The Composite GPSAltitude: signed by GPSAltitudeRef already.
        let altitude = object["GPSAltitude"] as? Double
        return (object["GPSLatitude"] as? Double, object["GPSLongitude"] as? Double, altitude)
    }

    func photos(_ library: Library) throws -> [String: PhotoRecord] {
        var result: [String: PhotoRecord] = [:]
        try library.forEachPhoto(matching: PhotoFilter()) { result[$0.displayName] = $0 }
        return result
    }

    func testPositionsWrittenByExiftoolReadAsExiftoolReadsThem() throws {
        let cases: [(String, [String])] = [
            (
                "ne.jpg",
                [
                    "-GPSLatitude=43.6046519", "-GPSLatitudeRef=N", "-GPSLongitude=1.4442090", "-GPSLongitudeRef=E",
                    "-GPSAltitude=146.25", "-GPSAltitudeRef=Above Sea Level"
                ]
            ),
            (
                "sw.jpg",
                [
                    "-GPSLatitude=33.8688197", "-GPSLatitudeRef=S", "-GPSLongitude=151.2092955",
                    "-GPSLongitudeRef=W", "-GPSAltitude=28.5", "-GPSAltitudeRef=Below Sea Level"
                ]
            ),
            (
                "antimeridian.jpg",
                [
                    "-GPSLatitude=-16.5", "-GPSLatitudeRef=S", "-GPSLongitude=179.9999999",
                    "-GPSLongitudeRef=E"
                ]
            ),
            ("null-island.jpg", ["-GPSLatitude=0", "-GPSLatitudeRef=N", "-GPSLongitude=0", "-GPSLongitudeRef=E"]),
            ("none.jpg", [])
        ]
        for (seed, (name, arguments)) in cases.enumerated() {
            let path = try tmp.write("in/" + name, try MetadataFixture.jpeg(seed: seed))
            if !arguments.isEmpty { _ = try exiftool(["-q", "-overwrite_original"] + arguments + [path]) }
        }
        let library = try makeLibrary()
        let summary = try runImport(library, [tmp.file("in")])
        XCTAssertEqual(summary.failed, 0, "\(summary.failures)")
        let stored = try photos(library)
        XCTAssertEqual(stored.count, 5)
        for (name, _) in cases {
            let (lat, lon, alt) = try oracle(tmp.file("in/" + name))
            let position = stored[name]?.position
            if name == "null-island.jpg" || name == "none.jpg" {
                XCTAssertNil(position, "\(name): 0,0 without altitude is no position")
                continue
            }
            let p = try XCTUnwrap(position, name)
            XCTAssertEqual(p.latitude, try XCTUnwrap(lat), accuracy: 1e-6, name)
            XCTAssertEqual(p.longitude, try XCTUnwrap(lon), accuracy: 1e-6, name)
            if let alt {
                XCTAssertEqual(try XCTUnwrap(p.altitude), alt, accuracy: 1e-3, name)
            } else {
                XCTAssertNil(p.altitude)
            }
        }
        XCTAssertEqual(stored["sw.jpg"]?.position?.latitude ?? 0, -33.8688197, accuracy: 1e-7)
        XCTAssertEqual(stored["sw.jpg"]?.position?.longitude ?? 0, -151.2092955, accuracy: 1e-7)
        XCTAssertEqual(stored["sw.jpg"]?.position?.altitude ?? 0, -28.5, accuracy: 1e-3)
        // list --json carries them with 7 decimals.
        let json = try XCTUnwrap(stored["ne.jpg"]).json.serialized()
        XCTAssertTrue(json.contains("\"latitude\":43.6046519"), json)
        XCTAssertTrue(json.contains("\"longitude\":1.444209"), json)
        XCTAssertTrue(json.contains("\"altitude\":146.25"), json)
        XCTAssertTrue(try XCTUnwrap(stored["none.jpg"]).json.serialized().contains("\"latitude\":null"))
        // The export sidecar reads back to the same position, and exiftool reads it so too.
        for name in ["ne.jpg", "sw.jpg", "antimeridian.jpg"] {
            let record = try XCTUnwrap(stored[name])
            let text = XMPWriter.sidecar(for: record)
            let back = try XCTUnwrap(try XMPSidecar.parse(Data(text.utf8), path: name).position, name)
            XCTAssertEqual(back.latitudeE7, record.position?.latitudeE7, name)
            XCTAssertEqual(back.longitudeE7, record.position?.longitudeE7, name)
            XCTAssertEqual(back.altitudeMM, record.position?.altitudeMM, name)
            let sidecar = try tmp.write("side/" + name + ".xmp", Array(text.utf8))
            let (lat, lon, alt) = try oracle(sidecar)
            XCTAssertEqual(try XCTUnwrap(lat), record.position?.latitude ?? 0, accuracy: 1e-7, name)
            XCTAssertEqual(try XCTUnwrap(lon), record.position?.longitude ?? 0, accuracy: 1e-7, name)
            XCTAssertEqual(alt ?? 0, record.position?.altitude ?? 0, accuracy: 1e-3, name)
        }
    }

    /// `import --refresh-metadata` reads a sidecar's new position into the photo; a file
    /// rewritten by exiftool with GPS (the same image data) gives its photo that position.
    func testRefreshMetadataReadsTheNewPosition() throws {
        let path = try tmp.write("in/a.jpg", try MetadataFixture.jpeg(seed: 7))
        let library = try makeLibrary()
        XCTAssertEqual(try runImport(library, [tmp.file("in")]).imported, 1)
        XCTAssertNil(try photos(library)["a.jpg"]?.position)
        _ = try exiftool([
            "-q", "-o", path + ".xmp", "-XMP-exif:GPSLatitude=48.8583701", "-XMP-exif:GPSLatitudeRef=N",
            "-XMP-exif:GPSLongitude=2.2944813", "-XMP-exif:GPSLongitudeRef=E", path
        ])
        XCTAssertTrue(FileManager.default.fileExists(atPath: path + ".xmp"))
        let refreshed = try runImport(library, [tmp.file("in")]) { $0.refreshMetadata = true }
        XCTAssertEqual(refreshed.failed, 0, "\(refreshed.failures)")
        let p = try XCTUnwrap(try photos(library)["a.jpg"]?.position)
        XCTAssertEqual(p.latitude, 48.8583701, accuracy: 1e-7)
        XCTAssertEqual(p.longitude, 2.2944813, accuracy: 1e-7)
        // The image rewritten in place with EXIF GPS (west, below sea level): the same photo.
        try FileManager.default.removeItem(atPath: path + ".xmp")
        _ = try exiftool([
            "-q", "-overwrite_original", "-GPSLatitude=31.5", "-GPSLatitudeRef=N", "-GPSLongitude=35.5",
            "-GPSLongitudeRef=E", "-GPSAltitude=430", "-GPSAltitudeRef=Below Sea Level", path
        ])
        XCTAssertEqual(try runImport(library, [tmp.file("in")]).failed, 0)
        let stored = try photos(library)
        XCTAssertEqual(stored.count, 1)
        XCTAssertEqual(stored["a.jpg"]?.position?.altitudeMM, -430_000)
        XCTAssertEqual(stored["a.jpg"]?.position?.latitudeE7, 315_000_000)
    }

    /// The camera files of the shared corpus with GPS: every position equals exiftool's.
    func testCorpusCameraFilesMatchExiftool() throws {
        let folder = corpusPath + "/camera-formats/metadata"
        guard FileManager.default.fileExists(atPath: folder) else {
            throw XCTSkip("../shared/corpus/camera-formats/metadata is absent")
        }
        let names = try FileManager.default.contentsOfDirectory(atPath: folder).filter {
            $0.lowercased().hasSuffix(".jpg")
        }.sorted()
        for name in names {
            _ = try tmp.write("in/" + name, Array(try Data(contentsOf: URL(fileURLWithPath: folder + "/" + name))))
        }
        let library = try makeLibrary()
        _ = try runImport(library, [tmp.file("in")])
        let stored = try photos(library)
        var withPosition = 0
        for name in names {
            guard let record = stored[name] else { continue }
            let (lat, lon, alt) = try oracle(folder + "/" + name)
            guard let lat, let lon, abs(lat) <= 90, abs(lon) <= 180, lat != 0 || lon != 0 || alt != nil else {
                XCTAssertNil(record.position, name)
                continue
            }
            withPosition += 1
            let p = try XCTUnwrap(record.position, name)
            XCTAssertEqual(p.latitude, lat, accuracy: 1e-6, name)
            XCTAssertEqual(p.longitude, lon, accuracy: 1e-6, name)
            if let alt, let a = p.altitude { XCTAssertEqual(a, alt, accuracy: 1e-3, name) }
        }
        XCTAssertGreaterThan(withPosition, 0, "the corpus has camera files with GPS")
    }

    /// Malformed GPS IFDs give no position and a problem line, never a crash (a zero
    /// denominator; 200° latitude).
    func testMalformedRationalsGiveNoPosition() throws {
        func block(latitude: [(UInt32, UInt32)], latRef: UInt8 = UInt8(ascii: "N")) -> [UInt8] {
            // II*\0, IFD0 at 8 with one entry: GPS IFD pointer → 26.
            var b: [UInt8] = [0x49, 0x49, 42, 0, 8, 0, 0, 0]
            func u16(_ v: Int) { b += [UInt8(v & 0xFF), UInt8(v >> 8)] }
            func u32(_ v: Int) { b += [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 24)] }
            u16(1); u16(0x8825); u16(4); u32(1); u32(26); u32(0)
            // GPS IFD at 26: 4 entries (2 + 48 + 4 bytes) → rationals at 80 and 104.
            u16(4)
            u16(1); u16(2); u32(2); b += [latRef, 0, 0, 0]
            u16(2); u16(5); u32(3); u32(80)
            u16(3); u16(2); u32(2); b += [UInt8(ascii: "E"), 0, 0, 0]
            u16(4); u16(5); u32(3); u32(104)
            u32(0)
            XCTAssertEqual(b.count, 80)
            for (n, d) in latitude { u32(Int(n)); u32(Int(d)) }
            for (n, d) in [(UInt32(10), UInt32(1)), (30, 1), (0, 1)] { u32(Int(n)); u32(Int(d)) }
            return b
        }
        let good = ExifReader.parse(block(latitude: [(43, 1), (36, 1), (1674, 100)]))
        XCTAssertEqual(good.position?.latitude ?? 0, 43 + 36.0 / 60 + 16.74 / 3600, accuracy: 1e-9)
        XCTAssertEqual(good.position?.longitude ?? 0, 10.5, accuracy: 1e-9)
        let south = ExifReader.parse(block(latitude: [(43, 1), (0, 1), (0, 1)], latRef: UInt8(ascii: "S")))
        XCTAssertEqual(south.position?.latitude, -43)
        let zero = ExifReader.parse(block(latitude: [(43, 0), (36, 1), (0, 1)]))
        XCTAssertNil(zero.position)
        XCTAssertNotNil(zero.positionProblem)
        let far = ExifReader.parse(block(latitude: [(200, 1), (0, 1), (0, 1)]))
        XCTAssertNil(far.position)
        XCTAssertEqual(far.positionProblem?.contains("out of range"), true, far.positionProblem ?? "")
        let badRef = ExifReader.parse(block(latitude: [(43, 1), (0, 1), (0, 1)], latRef: UInt8(ascii: "X")))
        XCTAssertNil(badRef.position)
        // Truncated anywhere: no crash, no position beyond the bytes.
        let whole = block(latitude: [(43, 1), (36, 1), (0, 1)])
        for cut in stride(from: 0, to: whole.count, by: 3) {
            let part = ExifReader.parse(Array(whole.prefix(cut)))
            XCTAssertNil(part.position, "cut at \(cut)")
        }
    }
}

/// Issue 26 item 2: `--bbox` and `--with-location`/`--without-location` select exactly the
/// photos a brute-force check selects, across the antimeridian and at the poles.
final class PositionFilterTests: ImportTestCase {
    func testBoxesAgainstBruteForce() throws {
        let library = try makeLibrary()
        let summary = try runImport(library, [samplesDir + "/ladybird.jpg"])
        XCTAssertEqual(summary.imported, 1)
        let zone = try XCTUnwrap(try library.catalog.scalarString("SELECT zone_id FROM photo"))
        try library.catalog.run("UPDATE photo SET latitude_e7 = NULL, longitude_e7 = NULL, altitude_mm = NULL")
        // A seeded generator: the same 2,000 positions every run, poles and ±180 included.
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state >> 11
        }
        var positions: [String: (Int, Int)] = [:]
        try library.catalog.beginWriteTransaction()
        for i in 0..<2000 {
            var lat = Int(next() % 1_800_000_001) - 900_000_000
            var lon = Int(next() % 3_600_000_001) - 1_800_000_000
            if i % 100 == 0 { lat = i % 200 == 0 ? 900_000_000 : -900_000_000 }
            if i % 97 == 0 { lon = i % 194 == 0 ? 1_800_000_000 : -1_800_000_000 }
            if i % 50 == 1 {
                // Beside the antimeridian, on either side.
                lat = -160_000_000 + i * 1000
                lon = (i % 4 == 1 ? 1 : -1) * (1_799_990_000 + (i % 3) * 5000)
            }
            let name = "p\(i)"
            positions[name] = (lat, lon)
            _ = try library.catalog.insert(
                "INSERT INTO photo (unique_name, display_name, imported_at, width, height, format, orientation, zone_id, latitude_e7, longitude_e7) VALUES (?, ?, '2024-01-01T00:00:00Z', 1, 1, 'jpeg', 1, ?, ?, ?)",
                [RandomUUID.make().uuidString, name, zone, lat, lon])
        }
        try library.catalog.execute("COMMIT")
        func selected(_ filter: PhotoFilter) throws -> Set<String> {
            var names = Set<String>()
            try library.forEachPhoto(matching: filter) { names.insert($0.displayName) }
            return names
        }
        let boxes: [(Double, Double, Double, Double)] = [
            (-20, 170, -10, -170), // across the antimeridian
            (-90, -180, 90, 180), // the whole world
            (80, -180, 90, 180), // the north polar cap
            (-90, 179.99, -80, -179.99), // the south pole, across the antimeridian
            (43.5, 1.3, 43.7, 1.6), // Toulouse
            (-17, 179.999, -15, 179.9999)
        ]
        for box in boxes {
            var filter = PhotoFilter()
            filter.box = box
            let e7 = (
                Int((box.0 * 1e7).rounded()), Int((box.1 * 1e7).rounded()), Int((box.2 * 1e7).rounded()),
                Int((box.3 * 1e7).rounded())
            )
            let expected = Set(
                positions.filter { _, p in
                    p.0 >= e7.0 && p.0 <= e7.2
                        && (e7.1 <= e7.3 ? (p.1 >= e7.1 && p.1 <= e7.3) : (p.1 >= e7.1 || p.1 <= e7.3))
                }.keys)
            XCTAssertEqual(try selected(filter), expected, "\(box)")
            if box.0 == -20 { XCTAssertGreaterThan(expected.count, 10, "the antimeridian box holds photos") }
        }
        var with = PhotoFilter()
        with.hasPosition = true
        XCTAssertEqual(try selected(with), Set(positions.keys))
        var without = PhotoFilter()
        without.hasPosition = false
        XCTAssertEqual(try selected(without), ["ladybird.jpg"])
    }
}

/// Issue 26 item 2: `--near LAT,LON[,KM]` selects exactly the photos within the great-circle
/// distance a brute-force haversine over every position selects (10,000 seeded positions,
/// poles and the antimeridian included), also with `--limit` and a sort.
final class PositionNearTests: ImportTestCase {
    func testNearAgainstBruteForce() throws {
        let library = try makeLibrary()
        let summary = try runImport(library, [samplesDir + "/ladybird.jpg"])
        XCTAssertEqual(summary.imported, 1)
        let zone = try XCTUnwrap(try library.catalog.scalarString("SELECT zone_id FROM photo"))
        try library.catalog.run("UPDATE photo SET latitude_e7 = NULL, longitude_e7 = NULL, altitude_mm = NULL")
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state >> 11
        }
        var positions: [String: (Double, Double)] = [:]
        try library.catalog.beginWriteTransaction()
        for i in 0..<10_000 {
            var lat = Int(next() % 1_800_000_001) - 900_000_000
            var lon = Int(next() % 3_600_000_001) - 1_800_000_000
            if i % 4 == 0 {
                // Clustered around the test centres, so that small circles hold photos.
                let centres = [(436_046_520, 14_442_090), (-165_000_000, 1_799_000_000), (895_000_000, 0)]
                let c = centres[(i / 4) % centres.count]
                lat = max(-900_000_000, min(900_000_000, c.0 + Int(next() % 20_000_001) - 10_000_000))
                lon = c.1 + Int(next() % 20_000_001) - 10_000_000
                if lon > 1_800_000_000 { lon -= 3_600_000_000 }
            }
            if i % 1000 == 1 { lat = i % 2000 == 1 ? 900_000_000 : -900_000_000 }
            let name = String(format: "p%05d", i)
            positions[name] = (Double(lat) / 1e7, Double(lon) / 1e7)
            _ = try library.catalog.insert(
                "INSERT INTO photo (unique_name, display_name, imported_at, width, height, format, orientation, zone_id, latitude_e7, longitude_e7) VALUES (?, ?, '2024-01-01T00:00:00Z', 1, 1, 'jpeg', 1, ?, ?, ?)",
                [RandomUUID.make().uuidString, name, zone, lat, lon])
        }
        try library.catalog.execute("COMMIT")
        func selected(_ filter: PhotoFilter) throws -> [String] {
            var names: [String] = []
            try library.forEachPhoto(matching: filter) { names.append($0.displayName) }
            return names
        }
        let circles = [
            GeoCircle(latitude: 43.604652, longitude: 1.444209, radiusKm: 1), // Toulouse
            GeoCircle(latitude: 43.604652, longitude: 1.444209, radiusKm: 50),
            GeoCircle(latitude: -16.5, longitude: 179.95, radiusKm: 80), // across the antimeridian
            GeoCircle(latitude: -16.5, longitude: -180, radiusKm: 30),
            GeoCircle(latitude: 89.5, longitude: 0, radiusKm: 150), // reaching the north pole
            GeoCircle(latitude: 90, longitude: 0, radiusKm: 60),
            GeoCircle(latitude: -89.99, longitude: 120, radiusKm: 5), // the south pole
            GeoCircle(latitude: 10, longitude: 20, radiusKm: 3000),
            GeoCircle(latitude: 0, longitude: 0, radiusKm: 25_000) // the whole world
        ]
        for circle in circles {
            var filter = PhotoFilter()
            filter.near = circle
            filter.sort = .name
            let expected = positions.filter { _, p in
                GeoCircle.distanceKm(circle.latitude, circle.longitude, p.0, p.1) <= circle.radiusKm
            }.keys.sorted()
            XCTAssertEqual(try selected(filter), expected, "\(circle)")
            if circle.radiusKm == 50 || circle.radiusKm == 80 || circle.radiusKm == 150 {
                XCTAssertGreaterThan(expected.count, 20, "\(circle) holds photos")
            }
            filter.limit = 7
            filter.reverse = true
            XCTAssertEqual(try selected(filter), Array(expected.reversed().prefix(7)), "\(circle) --limit 7")
        }
        // The haversine distance itself: a degree of the equator is 2πR / 360, pole to pole πR.
        XCTAssertEqual(GeoCircle.distanceKm(0, 0, 0, 1), 111.195_08, accuracy: 1e-4)
        XCTAssertEqual(GeoCircle.distanceKm(90, 0, -90, 45), 20_015.1144, accuracy: 1e-3)
        XCTAssertEqual(GeoCircle.distanceKm(0, 179.9, 0, -179.9), 22.239, accuracy: 0.01)
    }
}
