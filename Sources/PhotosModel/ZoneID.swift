/// The id of a record zone (SPEC §3): `default` for the private scope's default zone, a share's
/// id for the share's zone (a lowercase UUID for shares made here), or whatever id another
/// library gave a zone it shared with this one. Compared exactly, as stored.
public struct ZoneID: RawRepresentable, Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The id as stored in the catalog (`zone.id`).
    public let rawValue: String

    /// Wraps an id read back from the catalog.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// A zone id typed on the command line (`history --zone`), kept as typed: ids of zones shared
    /// with this library come from elsewhere, so no form is imposed (SPEC §3). Share ids given
    /// by prefix are resolved against the catalog instead (`Library.resolveZone`).
    public init(parsing text: String) { rawValue = text }

    /// The private scope's default zone, `default` (SPEC §3): every library has it, and photos
    /// live there until shared.
    public static let `default` = ZoneID(rawValue: "default")

    public static func < (a: ZoneID, b: ZoneID) -> Bool { a.rawValue < b.rawValue }

    public var description: String { rawValue }
}
