import Foundation
import PhotosCore

/// What the `tag` commands share: the zone option, the name argument and the listing row.
enum TagArguments {
    static let nameHelp = "The tag name."

    /// `--zone ID` into `field`.
    static func zone<Options>(_ field: WritableKeyPath<Options, String?>) -> Option<Options> {
        .value(
            field, "--zone", value: "ID", help: "Only tags of this record zone (default, or a share's id).",
            default: "every zone")
    }

    /// A tag name, parsed once here (`TagName(parsing:)`: trimmed and NFC-normalized; 65 for an
    /// empty name or one with control characters).
    static func name<Options>(
        _ field: WritableKeyPath<Options, TagName>, _ name: String = "name", help: String = nameHelp
    ) -> Argument<Options> {
        .one(field, name, help: help, parse: TagName.init(parsing:))
    }
}
