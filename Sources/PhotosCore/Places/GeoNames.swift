import Foundation
import PhotosFiles
import PhotosModel

/// A GeoNames file that cannot be loaded (issue 26 item 3).
public struct GeoNamesError: Error, Equatable, CustomStringConvertible {
    public enum Kind: Equatable, Sendable { case data, noInput, io }
    public var kind: Kind
    /// The file as given.
    public var path: String
    public var reason: String
    public var description: String { "\(path): \(reason); nothing was changed" }
}

/// One line of a GeoNames file that was not loaded, and why.
public struct GeoNamesBrokenLine: Equatable, Sendable {
    /// 1-based.
    public var line: Int
    public var reason: String
}

/// What reading a GeoNames dump gave: the places, and the lines left out.
public struct GeoNamesDump: Sendable {
    public var places: [PlaceRow] = []
    /// Rows of another feature class than P (populated places), not loaded.
    public var otherFeatures = 0
    /// Lines that are no row of the format, counted; the first `GeoNamesReader.namedBrokenLines`
    /// are kept with their reasons.
    public var brokenCount = 0
    public var broken: [GeoNamesBrokenLine] = []
}

/// GeoNames' tab-separated dumps (https://download.geonames.org/export/dump/readme.txt, "The
/// main 'geoname' table has the following fields"): `cities500.txt`, `cities1000.txt`,
/// `cities15000.txt` (or any file of the `geoname` table: only feature class P, populated
/// places, is kept), with the optional `admin1CodesASCII.txt` (`CC.CODE`, name, ascii name,
/// geonameid) and `countryInfo.txt` (`#` comments; ISO, ISO3, ISO-Numeric, fips, Country, …).
///
/// The files are untrusted: each is read whole (memory is its bytes plus the rows it holds,
/// bounded by its bytes); a line over `maxLineBytes` or with a field out of its range is a
/// broken line, counted and named by number, and the rest is read.
public enum GeoNamesReader {
    /// The longest line read (GeoNames' longest rows, with thousands of alternate names, are
    /// about 10 KB).
    public static let maxLineBytes = 64 << 10
    /// How many broken lines are named (all are counted).
    public static let namedBrokenLines = 5

    /// The places of the `geoname`-format file at `path`, named with `admin1` (`CC.CODE` →
    /// name) and `countries` (`CC` → name).
    /// - Throws: `GeoNamesError` (`.noInput`, `.io`) when the file cannot be read.
    public static func read(
        path: String, admin1: [String: String] = [:], countries: [String: String] = [:]
    ) throws -> GeoNamesDump {
        var dump = GeoNamesDump()
        try forEachLine(path: path) { number, line in
            if line.isEmpty || line.first == UInt8(ascii: "#") { return }
            switch row(line, admin1: admin1, countries: countries) {
            case .place(let place): dump.places.append(place)
            case .otherFeature: dump.otherFeatures += 1
            case .broken(let reason):
                dump.brokenCount += 1
                if dump.broken.count < namedBrokenLines {
                    dump.broken.append(GeoNamesBrokenLine(line: number, reason: reason))
                }
            }
        }
        return dump
    }

    /// `admin1CodesASCII.txt`: `CC.CODE` → name (broken lines are skipped).
    /// - Throws: `GeoNamesError` when the file cannot be read.
    public static func readAdmin1(path: String) throws -> [String: String] {
        var names: [String: String] = [:]
        try forEachLine(path: path) { _, line in
            let fields = line.split(separator: UInt8(ascii: "\t"), omittingEmptySubsequences: false)
            guard fields.count >= 2, let code = text(fields[0]), let name = text(fields[1]), code.contains(".") else {
                return
            }
            names[code] = name
        }
        return names
    }

    /// `countryInfo.txt`: ISO alpha-2 code → country name (comments and broken lines skipped).
    /// - Throws: `GeoNamesError` when the file cannot be read.
    public static func readCountries(path: String) throws -> [String: String] {
        var names: [String: String] = [:]
        try forEachLine(path: path) { _, line in
            if line.first == UInt8(ascii: "#") { return }
            let fields = line.split(separator: UInt8(ascii: "\t"), omittingEmptySubsequences: false)
            guard fields.count >= 5, let code = text(fields[0]), isCountryCode(code), let name = text(fields[4]) else {
                return
            }
            names[code] = name
        }
        return names
    }

    enum Row: Equatable {
        case place(PlaceRow)
        case otherFeature
        case broken(String)
    }

    /// One line of the `geoname` table: at least the 15 fields up to `population` (of 19).
    static func row(_ line: ArraySlice<UInt8>, admin1: [String: String], countries: [String: String]) -> Row {
        if line.count > maxLineBytes { return .broken("a line over \(maxLineBytes) bytes") }
        let fields = line.split(separator: UInt8(ascii: "\t"), omittingEmptySubsequences: false)
        guard fields.count >= 15 else {
            return .broken("\(fields.count) tab-separated fields, not the 19 of GeoNames' geoname table")
        }
        guard let idText = text(fields[0]), let id = Int64(idText), id > 0 else {
            return .broken("geonameid '\(printable(fields[0]))' is not a positive integer")
        }
        guard let name = text(fields[1]), name.utf8.count <= 200 else {
            return .broken("the name is empty, over 200 bytes or not UTF-8")
        }
        guard let lat = text(fields[4]).flatMap(Double.init), lat.isFinite, abs(lat) <= 90 else {
            return .broken("latitude '\(printable(fields[4]))' is not a number of degrees within -90…90")
        }
        guard let lon = text(fields[5]).flatMap(Double.init), lon.isFinite, abs(lon) <= 180 else {
            return .broken("longitude '\(printable(fields[5]))' is not a number of degrees within -180…180")
        }
        guard text(fields[6]) == "P" else { return .otherFeature }
        guard let country = text(fields[8]), isCountryCode(country) else {
            return .broken("country code '\(printable(fields[8]))' is not two capital letters")
        }
        let populationText = text(fields[14]) ?? "0"
        guard let population = Int(populationText), population >= 0 else {
            return .broken("population '\(printable(fields[14]))' is not a whole number")
        }
        let key = PlaceRow.searchKey(name)
        guard !key.isEmpty, key.utf8.count <= 800 else { return .broken("the name has nothing to look up by") }
        let admin = text(fields[10]).flatMap { admin1[country + "." + $0] }.flatMap { $0.utf8.count <= 200 ? $0 : nil }
        let countryName = countries[country].flatMap { $0.utf8.count <= 200 ? $0 : nil }
        return .place(
            PlaceRow(
                geonamesID: id, name: name, searchName: key, admin1: admin, countryCode: country,
                countryName: countryName, latitudeE7: Int((lat * 1e7).rounded()),
                longitudeE7: Int((lon * 1e7).rounded()),
                population: population))
    }

    static func isCountryCode(_ text: String) -> Bool {
        text.utf8.count == 2 && text.utf8.allSatisfy { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }
    }

    /// A field as text: UTF-8, NFC, trimmed, without control characters; nil when empty, not
    /// UTF-8 or holding a control character.
    static func text(_ field: ArraySlice<UInt8>) -> String? {
        guard let s = String(validating: field, as: UTF8.self) else { return nil }
        let trimmed = s.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty, !trimmed.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else { return nil }
        return trimmed.precomposedStringWithCanonicalMapping
    }

    /// A field as an error message shows it: at most 40 bytes, control characters as `?`.
    static func printable(_ field: ArraySlice<UInt8>) -> String {
        let s = String(decoding: field.prefix(40), as: UTF8.self)
        return String(s.unicodeScalars.map { $0.properties.generalCategory == .control ? "?" : Character($0) })
    }

    /// Calls `body` with each line of the file (1-based number, bytes without `\n` or `\r\n`).
    private static func forEachLine(path: String, _ body: (Int, ArraySlice<UInt8>) throws -> Void) throws {
        let file: ImageFile
        do {
            file = try ImageFile.read(path: path, maxBytes: Int.max / 2)
        } catch let e as FileError {
            throw GeoNamesError(kind: e.kind == .io ? .io : .noInput, path: path, reason: e.reason)
        }
        let bytes = file.bytes
        var number = 0
        var start = bytes.startIndex
        while start < bytes.endIndex {
            number += 1
            let end = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.endIndex
            var line = bytes[start..<end]
            if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
            try body(number, line)
            start = end < bytes.endIndex ? bytes.index(after: end) : end
        }
    }
}
