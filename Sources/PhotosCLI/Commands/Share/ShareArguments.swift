import Foundation
import PhotosCore

/// What the `share` commands share: the share argument, the `--move` flag, the e-mail argument.
enum ShareArguments {
    static let shareHelp = "A share id, or an unambiguous prefix of at least 4 characters."

    static func share<Options>(_ field: WritableKeyPath<Options, String>) -> Argument<Options> {
        .one(field, "id", help: shareHelp)
    }

    static func move<Options>(_ field: WritableKeyPath<Options, Bool>) -> Option<Options> {
        .flag(field, "--move", help: "Also move photos that are already in another share.")
    }

    /// An e-mail address, checked and lower-cased (`Email(parsing:)`).
    static func email<Options>(_ field: WritableKeyPath<Options, Email>) -> Argument<Options> {
        .one(field, "email", help: "The participant's e-mail address.", parse: { try Email(parsing: $0) })
    }
}

extension ValueParser where Value == SharePermission {
    /// `read-only`, `read-write`, and `none` when `allowNone` (`SharePermission(parsing:)`);
    /// a refusal names the option.
    static func permission(allowNone: Bool) -> ValueParser {
        ValueParser { text, name in
            try parseOption(name, text) { try SharePermission(parsing: $0, allowNone: allowNone) }
        }
    }
}

extension ValueParser where Value == ShareTitle {
    /// A share title, trimmed and checked (`ShareTitle(parsing:)`).
    static var shareTitle: ValueParser { ValueParser { text, _ in try ShareTitle(parsing: text) } }
}
