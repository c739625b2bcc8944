/// The id of a record zone (SPEC §3): `default`, or a share's id (a lowercase UUID string for
/// shares made here; any text for zones merged from elsewhere). Kept exactly as given: zone
/// ids are compared byte for byte.
public struct ZoneID: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }

    /// The zone every library has, of scope `private`, where photos live until shared.
    public static let `default` = ZoneID(rawValue: "default")

    public var description: String { rawValue }
}
