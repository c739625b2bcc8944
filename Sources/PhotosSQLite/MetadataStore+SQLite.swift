import PhotosModel

extension Database: MetadataStore {
    public func setCaptureTime(ofPhoto photoID: Int64, local: String, offsetMinutes: Int?, source: String) throws {
        try run(
            "UPDATE photo SET capture_date = ?, capture_offset = ?, capture_source = ? WHERE id = ?",
            [local, offsetMinutes, source, photoID])
    }
}
