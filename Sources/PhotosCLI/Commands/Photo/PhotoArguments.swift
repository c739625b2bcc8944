import Foundation

/// Help for the positionals that name photos.
enum PhotoArguments {
    static let one = "A uniqueName, or an unambiguous prefix of at least 4 characters."
    static let many = "uniqueNames or unambiguous prefixes of at least 4 characters."
}
