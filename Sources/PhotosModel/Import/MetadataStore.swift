/// The one write `photos import --refresh-metadata` needs beyond the catalog's tag and rating
/// writes: a photo's capture time as read again from its file's metadata. Called inside the
/// library's write transaction.
public protocol MetadataStore: AnyObject {
    /// Sets the capture time of photo row `photoID`.
    /// - Parameters:
    ///   - local: the wall-clock time `YYYY-MM-DDTHH:MM:SS[.fff]`, no zone.
    ///   - offsetMinutes: its UTC offset in minutes east (−1080…1080), nil when unknown.
    ///   - source: where it came from (`exif`, `exif-digitized`, `exif-datetime`, `xmp`, `json`).
    /// - Throws: the store's error.
    func setCaptureTime(ofPhoto photoID: Int64, local: String, offsetMinutes: Int?, source: String) throws
}
