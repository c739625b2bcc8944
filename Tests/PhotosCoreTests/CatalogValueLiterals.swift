import PhotosCore
import PhotosModel

// A tag name literal for tests only (like TypedValueLiterals.swift): the tool parses every
// name once, at the edge, with the throwing `TagName(parsing:)`. A literal that does not parse
// traps.
extension TagName: ExpressibleByStringLiteral, ExpressibleByStringInterpolation, ExpressibleByUnicodeScalarLiteral,
    ExpressibleByExtendedGraphemeClusterLiteral
{
    public init(stringLiteral value: String) {
        guard let name = try? TagName(parsing: value) else { preconditionFailure("test literal tag name \(value)") }
        self = name
    }
}

extension ZoneID: ExpressibleByStringLiteral, ExpressibleByStringInterpolation, ExpressibleByUnicodeScalarLiteral,
    ExpressibleByExtendedGraphemeClusterLiteral
{
    public init(stringLiteral value: String) { self.init(rawValue: value) }
}
