import Foundation

/// The `ratings` of a photo object of `list --json` / `show --json` (issue #29 item 1:
/// `[{"author":"owner@example.org","value":4}]`, `"author":null` when anonymous), read in one
/// place so that every test of that shape reads it the same way.
public enum RatingsJSON {
    /// The rating values in the object's order, or nil when `ratings` is missing or not of
    /// that shape (an author that is neither a string nor null, a value that is not a number).
    public static func values(_ photo: [String: Any]) -> [Int]? {
        entries(photo)?.map(\.value)
    }

    /// Each rating as `author=value` (`-=value` when anonymous), in the object's order, or nil
    /// when `ratings` is not of that shape.
    public static func byAuthor(_ photo: [String: Any]) -> [String]? {
        entries(photo)?.map { "\($0.author ?? "-")=\($0.value)" }
    }

    /// The ratings as (author, value), or nil when not of the shape.
    public static func entries(_ photo: [String: Any]) -> [(author: String?, value: Int)]? {
        guard let list = photo["ratings"] as? [Any] else { return nil }
        var result: [(author: String?, value: Int)] = []
        for item in list {
            guard let object = item as? [String: Any], object.count == 2, let value = object["value"] as? Int
            else { return nil }
            switch object["author"] {
            case let author as String: result.append((author, value))
            case is NSNull: result.append((nil, value))
            default: return nil
            }
        }
        return result
    }
}
