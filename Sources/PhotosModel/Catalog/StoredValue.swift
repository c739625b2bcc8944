/// A column value read from a catalog (this library's, another library merged from, a
/// changeset's) that this version does not know: a `photo.format` that is no `ImageFormat`, an
/// orientation outside EXIF 2.32 Table 4's 1…8. The schema's CHECKs keep such values out of a
/// catalog photos wrote, so the database was written by something else: the data is wrong
/// (`StoreError.Kind.corrupt`, exit 65), never a crash and never a silent default.
public struct StoredValueError: Error, CustomStringConvertible, Equatable, Sendable {
    /// The column, `table.column` (`photo.format`).
    public let column: String
    /// The value as stored, quoted for the message.
    public let value: String

    public init(column: String, value: String) {
        self.column = column
        self.value = value
    }

    public var description: String { "\(column) holds '\(value)', which this version of photos does not know" }
}

extension StoredValueError: StoreErrorConvertible {
    /// Always `.corrupt`: the stored value is at fault.
    public var storeError: StoreError { StoreError(.corrupt, message: description, detail: description) }
}

extension ImageFormat {
    /// Decodes `photo.format` as stored (the raw value).
    /// - Throws: `StoredValueError` (`.corrupt`, exit 65) for a value that is no `ImageFormat`.
    public init(stored text: String, column: String = "photo.format") throws {
        guard let format = ImageFormat(rawValue: text) else { throw StoredValueError(column: column, value: text) }
        self = format
    }
}

extension Orientation {
    /// Decodes `photo.orientation` as stored: EXIF Orientation 1…8 (EXIF 2.32 §4.6.4 Table 4).
    /// Unlike `init(exif:)`, which reads a file's reserved value as `.up`, a catalog's value
    /// outside 1…8 is an error: the schema's CHECK allows no other.
    /// - Throws: `StoredValueError` (`.corrupt`, exit 65) for a value outside 1…8.
    public init(stored value: Int, column: String = "photo.orientation") throws {
        guard let orientation = Orientation(rawValue: value) else {
            throw StoredValueError(column: column, value: String(value))
        }
        self = orientation
    }
}

extension ZoneScope {
    /// Decodes `zone.scope` as stored (`private` or `shared`).
    /// - Throws: `StoredValueError` (`.corrupt`, exit 65) for any other value (the schema's
    ///   CHECK allows none).
    public init(stored text: String, column: String = "zone.scope") throws {
        guard let scope = ZoneScope(rawValue: text) else { throw StoredValueError(column: column, value: text) }
        self = scope
    }
}
