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

    /// An e-mail address, checked and lower-cased (`Email.normalize`).
    static func email<Options>(_ field: WritableKeyPath<Options, String>) -> Argument<Options> {
        .one(field, "email", help: "The participant's e-mail address.", parse: Email.normalize)
    }
}

extension ValueParser where Value == SharePermission {
    /// `read-only`, `read-write`, and `none` when `allowNone` (`SharePermission.parse`).
    static func permission(allowNone: Bool) -> ValueParser {
        ValueParser { text, name in try SharePermission.parse(text, option: name, allowNone: allowNone) }
    }
}

extension ValueParser where Value == String {
    /// A share title, trimmed and checked (`ShareTitle.normalize`).
    static var shareTitle: ValueParser { ValueParser { text, _ in try ShareTitle.normalize(text) } }
}
