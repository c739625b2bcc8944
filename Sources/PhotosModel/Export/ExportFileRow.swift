/// One row of an export folder's state (`export_file`): the only place that knows its columns.
public struct ExportFileRow: Equatable, Sendable {
    /// Path relative to DEST.
    public var path: String
    public var uniqueName: String
    /// `original`, `xmp`, `json` or `thumbnail`.
    public var kind: String
    public var sha256: String
    /// Bytes.
    public var byteSize: Int
    /// Modification time after writing, nanoseconds since 1970.
    public var mtimeNanoseconds: Int64

    public init(path: String, uniqueName: String, kind: String, sha256: String, byteSize: Int, mtimeNanoseconds: Int64)
    {
        self.path = path
        self.uniqueName = uniqueName
        self.kind = kind
        self.sha256 = sha256
        self.byteSize = byteSize
        self.mtimeNanoseconds = mtimeNanoseconds
    }
}
