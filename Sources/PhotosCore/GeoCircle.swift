import Foundation

/// A circle on the Earth's surface: the photos `--near LAT,LON[,RADIUS]` selects (issue 26
/// item 2). Distances are great-circle distances on a sphere of the mean Earth radius
/// (`earthRadiusKm`, IUGG mean radius R1), by the haversine formula (R. W. Sinnott, "Virtues
/// of the Haversine", Sky and Telescope 68(2), 1984), good to about 0.5 % against WGS 84.
public struct GeoCircle: Sendable, Equatable {
    /// Degrees north, −90…90.
    public var latitude: Double
    /// Degrees east, −180…180.
    public var longitude: Double
    /// Kilometres, > 0.
    public var radiusKm: Double

    /// The mean Earth radius in kilometres (IUGG R1 = (2a + b) / 3 of WGS 84).
    public static let earthRadiusKm = 6371.0088

    public init(latitude: Double, longitude: Double, radiusKm: Double) {
        self.latitude = latitude
        self.longitude = longitude
        self.radiusKm = radiusKm
    }

    /// The great-circle distance in kilometres between two points given in degrees (haversine).
    public static func distanceKm(_ lat1: Double, _ lon1: Double, _ lat2: Double, _ lon2: Double) -> Double {
        let radians = Double.pi / 180
        let dLat = (lat2 - lat1) * radians
        let dLon = (lon2 - lon1) * radians
        let s1 = sin(dLat / 2)
        let s2 = sin(dLon / 2)
        let a = s1 * s1 + cos(lat1 * radians) * cos(lat2 * radians) * s2 * s2
        return 2 * earthRadiusKm * asin(min(1, sqrt(max(0, a))))
    }

    /// Whether a point (degrees) is within the radius, bounds included.
    public func contains(latitude lat: Double, longitude lon: Double) -> Bool {
        Self.distanceKm(latitude, longitude, lat, lon) <= radiusKm
    }

    /// A box (degrees: south, west, north, east; west > east across the antimeridian) holding
    /// every point of the circle, a little larger (1e-5 degrees, about a metre) so that
    /// rounding to the catalog's 1e-7 degrees loses none: the index range before the exact
    /// distance. Near a pole (the circle reaching it) the box spans every longitude.
    /// (J. P. Matuschek, "Finding Points Within a Distance of a Latitude/Longitude Using
    /// Bounding Coordinates", 2010.)
    public var boundingBox: (south: Double, west: Double, north: Double, east: Double) {
        let margin = 1e-5
        let angle = radiusKm / Self.earthRadiusKm
        let degrees = angle * 180 / Double.pi
        let south = latitude - degrees - margin
        let north = latitude + degrees + margin
        if angle >= Double.pi || south <= -90 || north >= 90 {
            return (max(-90, south), -180, min(90, north), 180)
        }
        let sinRatio = sin(angle) / cos(latitude * Double.pi / 180)
        guard sinRatio < 1 else { return (south, -180, north, 180) }
        let spread = asin(sinRatio) * 180 / Double.pi + margin
        guard spread < 180 else { return (south, -180, north, 180) }
        var west = longitude - spread
        var east = longitude + spread
        if west < -180 { west += 360 }
        if east > 180 { east -= 360 }
        return (south, west, north, east)
    }
}
