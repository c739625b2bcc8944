import Foundation
import PhotosSQLite

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

    /// Resolves `argument` against the text key `column` of `table` (both constants of this
    /// module, never user input).
    /// - Throws: `SQLiteError`.
    func resolveKey(table: String, column: String, _ argument: String) throws -> KeyResolution {
        let key = argument.trimmingCharacters(in: .whitespaces)
        if let exact = try db.scalarString("SELECT \(column) FROM \(table) WHERE \(column) = ? COLLATE NOCASE LIMIT 1", [key]) {
            return .found(exact)
        }
        guard key.count >= Library.minimumPrefixLength else { return .tooShort }
        // LIKE compares ASCII case-insensitively; escape its wildcards in the argument.
        let pattern = key.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%")
            .replacingOccurrences(of: "_", with: "\\_") + "%"
        let matches = try db.statement("SELECT \(column) FROM \(table) WHERE \(column) LIKE ? ESCAPE '\\' ORDER BY \(column) LIMIT 11")
            .map([pattern]) { $0.string(0) }
        switch matches.count {
        case 0: return .none
        case 1: return .found(matches[0])
        default: return .ambiguous(matches)
        }
    }

    /// "a, b, c, …" for an error message listing candidates.
    static func candidateList(_ items: [String]) -> String {
        items.prefix(10).joined(separator: ", ") + (items.count > 10 ? ", …" : "")
    }
}
