import Foundation
import PhotosModel

/// How a command-line argument names a row: its whole key or an unambiguous prefix of at least
/// 4 characters, compared case-insensitively (SPEC §5: photo arguments and share ids).
enum KeyResolution: Equatable {
    case found(String)
    case none
    case tooShort
    /// The first candidates (at most 11, so that "and more" can be told).
    case ambiguous([String])
}

extension Library {
    /// Shortest prefix accepted in place of a whole key.
    static let minimumPrefixLength = 4

    /// Resolves `argument` against the text key `key` of the catalog.
    /// - Throws: the store's error.
    func resolveKey(_ key: CatalogKey, _ argument: String) throws -> KeyResolution {
        let text = argument.trimmingCharacters(in: .whitespaces)
        if let exact = try catalogStore.exactKey(key, text) { return .found(exact) }
        guard text.count >= Library.minimumPrefixLength else { return .tooShort }
        let matches = try catalogStore.keys(key, withPrefix: text, limit: 11)
        switch matches.count {
        case 0: return .none
        case 1: return .found(matches[0])
        default: return .ambiguous(matches)
        }
    }

    /// Resolves `argument` against the text key `column` of `table`: the form `purge` calls,
    /// forwarding to `resolveKey(_:_:)` (`photo.unique_name`, `share.id`, `zone.id`).
    /// - Throws: the store's error.
    func resolveKey(table: String, column: String, _ argument: String) throws -> KeyResolution {
        let key: CatalogKey
        switch (table, column) {
        case ("photo", "unique_name"): key = .photoUniqueName
        case ("share", "id"): key = .shareID
        default: key = .zoneID
        }
        return try resolveKey(key, argument)
    }

    /// "a, b, c, …" for an error message listing candidates.
    static func candidateList(_ items: [String]) -> String {
        items.prefix(10).joined(separator: ", ") + (items.count > 10 ? ", …" : "")
    }
}
