import PhotosModel

/// What a catalog lookup did not find (`LibraryError.notFound`). Each case holds what the
/// command was given, as given, so that the CLI can name it.
public enum CatalogItem: Equatable, Sendable {
    /// A photo argument (uniqueName or prefix) that matches no photo.
    case photo(String)
    /// A share argument (id or prefix), or a share id, that matches no share.
    case share(String)
    /// A rating id.
    case rating(Int64)
    /// A record zone id.
    case zone(ZoneID)
    /// A tag name (normalized) in a zone, or in every zone when `zone` is nil.
    case tag(String, zone: ZoneID?)
    /// A tag name (normalized) absent from every zone of the photos given; `zoneCount` is the
    /// number of those zones.
    case tagInPhotoZones(String, zoneCount: Int)
    /// An e-mail address that is not a participant of the share `share`.
    case participant(Email, share: String)
}

/// The kind of key a command-line prefix names (SPEC §5: photo arguments and share ids).
public enum PrefixKind: Equatable, Sendable {
    /// A photo's uniqueName.
    case photo
    /// A share's id.
    case share
    /// A tag's name, matched ignoring case and accents (`TagName.sameTag`): not a prefix, but
    /// ambiguous the same way when several tags of one zone match.
    case tag
}

/// Why a sharing command refuses (SPEC §5 `share …`). The CLI words each case and gives its
/// status (64 for `.noPhotos`, 65 for the others).
public enum ShareError: Error, Equatable, Sendable {
    /// `share create` without photos.
    case noPhotos
    /// A participant with permission `none`.
    case participantPermissionNone
    /// Inviting the share's owner.
    case ownerInvited(Email, share: String)
    /// Removing the share's owner.
    case ownerRemoved(Email, share: String)
    /// Changing a share of the `shared` scope (someone else's).
    case notOwned(share: String)
    /// Moving a photo out of a zone shared with this library.
    case photoInSharedZone(photo: String, zone: String)
    /// Moving a photo out of another share without `--move`.
    case photoInAnotherShare(photo: String, share: String)
    /// Moving a photo out of a share it is not in (`share remove`).
    case photoNotInShare(photo: String, share: String)
    /// Moving a photo into a zone where photo `other` has the same original (SHA-256): one
    /// photo per original holds within a zone (issue 31 A1).
    case originalInZone(photo: String, other: String, zone: String)
}

extension LibraryError {
    /// True for the catalog's refusals of an argument (`notFound`, `ambiguous`,
    /// `prefixTooShort`): nothing was changed.
    public var isCatalogRefusal: Bool {
        switch self {
        case .notFound, .ambiguous, .prefixTooShort: return true
        default: return false
        }
    }
}
