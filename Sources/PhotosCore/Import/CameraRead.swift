import PhotosFiles
import PhotosImaging
import PhotosModel

extension Importer {
    /// The camera of an imported file (issue 24 item 1), each part — make, model, lens — from
    /// the first source that has it: the file's EXIF (IFD0 Make/Model, Exif IFD LensModel; for a
    /// RAW its own TIFF IFDs, else its preview's EXIF), the XMP sidecar, the XMP embedded in the
    /// image (`tiff:Make`, `tiff:Model`, `exifEX:LensModel`/`aux:Lens`; `metadata` holds the two
    /// merged, the sidecar's first), and last, for a camera RAW, LibRaw's names (it reads the
    /// maker notes, where Canon and Nikon keep the lens). The file's own EXIF comes first: it is
    /// what the camera wrote, where a sidecar's copy can only repeat or lose it.
    /// - Returns: nil when no source names any part.
    static func camera(_ result: ThumbnailResult, metadata: XMPSidecar?) -> CameraIdentity? {
        cameraIdentity(result, metadata: metadata)
    }

    /// A photo's title and description (issue 26 item 6), each from the first source that has
    /// one: the XMP (`metadata`: the sidecar's, then the embedded packet's `dc:title` /
    /// `dc:description`, or a JSON sidecar's `title`/`description`), then IPTC-IIM Object Name
    /// (2:05) / Caption-Abstract (2:120), then — for the description — EXIF ImageDescription
    /// unless it is a camera's boilerplate (`PhotoText.exifDescription`). Metadata Working Group
    /// Guidelines 2.0 §5.6 and §5.7 give this order (XMP, then IIM, then EXIF).
    static func text(_ result: ThumbnailResult, metadata: XMPSidecar?) -> (title: String?, description: String?) {
        let m = result.metadata
        return (
            metadata?.title ?? PhotoText.title(m.iptcObjectName),
            metadata?.description ?? PhotoText.description(m.iptcCaption)
                ?? PhotoText.exifDescription(m.exif.imageDescription)
        )
    }

    private static func cameraIdentity(_ result: ThumbnailResult, metadata: XMPSidecar?) -> CameraIdentity? {
        let libRaw = result.camera.flatMap { CameraIdentity(make: $0.make, model: $0.model, lens: $0.lens) }
        return CameraIdentity.merged(result.metadata.exif.camera, metadata?.camera, libRaw)
    }

    /// The RAW container's lower-case name of a camera RAW (issue 24 item 7; `photo.camera_format`),
    /// nil for another format. By content: the sniffer's name from the file's signature and IFD0
    /// (`pc_raw_sniff`: "cr2", "nef", "arw", "raf", "cr3", "orf", "rw2", "dng", …). A TIFF-based
    /// RAW whose IFD0 names no maker the sniffer knows ("raw") takes the maker LibRaw identified
    /// (`rawContainer(forMaker:)`). The name's extension is only a tie-break among TIFF-based
    /// RAWs when the content cannot tell them apart: Nikon's NEF and NRW, Sony's ARW, SR2 and
    /// SRF, Kodak's DCR and KDC are the same TIFF layout from the same maker, so a `.nrw` file
    /// the content calls "nef" is "nrw"; and a TIFF RAW of a maker neither the sniffer nor
    /// LibRaw names takes a RAW extension it has. Otherwise nil (the catalog's NULL: unknown).
    static func cameraFormat(_ result: ThumbnailResult, path: String) -> String? {
        guard result.format == .raw else { return nil }
        let ext = PathName.pathExtension(path).lowercased()
        var name = result.camera?.cameraFormat
        if name == "raw" || name.map(CameraIdentity.isRawFormatName) != true {
            name = result.camera.flatMap { rawContainer(forMaker: $0.make) }
        }
        guard let name else {
            return ImageFormat.rawExtensions.contains(ext) && !nonTIFFRawExtensions.contains(ext) ? ext : nil
        }
        if let family = sameLayoutFamilies.first(where: { $0.contains(name) }), family.contains(ext) { return ext }
        return name
    }

    /// The TIFF-based RAW containers one maker writes in one layout, which only the name tells
    /// apart (LibRaw's identify reads them alike).
    static let sameLayoutFamilies: [Set<String>] = [["nef", "nrw"], ["arw", "sr2", "srf"], ["dcr", "kdc"]]

    /// RAW extensions whose containers are not TIFF (own signatures `pc_raw_sniff` always names):
    /// never taken from the name.
    static let nonTIFFRawExtensions: Set<String> = ["cr3", "crw", "raf", "x3f", "mrw", "orf", "rw2", "rwl"]

    /// The TIFF-based container of a maker as LibRaw names it (`imgdata.idata.make`, normalised:
    /// "Nikon", "Sony", "Phase One"), by the sniffer's table (raw.c `pc_raw_sniff`); nil for
    /// another maker.
    static func rawContainer(forMaker make: String) -> String? {
        let m = make.uppercased()
        let table: [(String, String)] = [
            ("CANON", "cr2"), ("NIKON", "nef"), ("SONY", "arw"), ("PENTAX", "pef"), ("RICOH", "pef"),
            ("SAMSUNG", "srw"), ("HASSELBLAD", "3fr"), ("EPSON", "erf"), ("KODAK", "dcr"), ("EASTMAN", "dcr"),
            ("LEAF", "mos"), ("PHASE ONE", "iiq"), ("MAMIYA", "mef")
        ]
        return table.first { m.hasPrefix($0.0) }?.1
    }
}
