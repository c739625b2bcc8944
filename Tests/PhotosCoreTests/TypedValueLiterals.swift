import PhotosCore

// Literals for the typed domain values in tests only: the tool itself parses every value
// once, at the edge, with the throwing `init(parsing:)`. A literal that does not parse traps.
extension RatingValue: ExpressibleByIntegerLiteral {
    public init(integerLiteral value: Int) {
        guard let rating = RatingValue(rawValue: value) else { preconditionFailure("test literal rating \(value)") }
        self = rating
    }
}

extension Email: ExpressibleByStringLiteral, ExpressibleByStringInterpolation, ExpressibleByUnicodeScalarLiteral,
    ExpressibleByExtendedGraphemeClusterLiteral
{
    public init(stringLiteral value: String) {
        guard let email = try? Email(parsing: value) else { preconditionFailure("test literal e-mail \(value)") }
        self = email
    }
}

extension ShareTitle: ExpressibleByStringLiteral, ExpressibleByStringInterpolation, ExpressibleByUnicodeScalarLiteral,
    ExpressibleByExtendedGraphemeClusterLiteral
{
    public init(stringLiteral value: String) {
        guard let title = try? ShareTitle(parsing: value) else { preconditionFailure("test literal title \(value)") }
        self = title
    }
}
