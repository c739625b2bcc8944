import Foundation
import PhotosFiles
import PhotosModel

/// Chooses each photo's name and tells whether a file on disk already holds what it should.
struct Planner {
    let root: String
    let state: ExportState?
    /// Trust a state row whose file has the recorded size and mtime, without hashing (`--update`).
    let trustState: Bool
    /// The companion files this export writes beside each original; only these are reserved
    /// when names are chosen, so a photo never takes ` (1)` for a file that is not written.
    var companionKinds: Set<ExportState.Entry.Kind> = []

    /// `export --per-tag` (issue 32 item 6): one copy of each photo per tag, named with that
    /// tag as `{tag}`; a photo without tags has one copy, `{tag}` = `untagged`.
    var perTag = false

    init(
        root: String, state: ExportState?, trustState: Bool, companionKinds: Set<ExportState.Entry.Kind> = [],
        perTag: Bool = false
    ) {
        self.root = root
        self.state = state
        self.trustState = trustState
        self.companionKinds = companionKinds
        self.perTag = perTag
    }

    /// The copies `photos` are written as, in order: each photo once (tag nil: `{tag}` is its
    /// first tag), or with `perTag` once per tag in sort order (nil for a photo without tags).
    func copies(_ photos: [PhotoRecord]) -> [(photo: PhotoRecord, tag: String?)] {
        guard perTag else { return photos.map { ($0, nil) } }
        return photos.flatMap { photo -> [(photo: PhotoRecord, tag: String?)] in
            photo.tags.isEmpty ? [(photo, nil)] : Set(photo.tags).sorted().map { (photo, $0) }
        }
    }

    /// The key of one copy in `reserved`: the photo's uniqueName, with `--per-tag` its tag too
    /// (each copy keeps its own recorded name).
    private func copyKey(_ photo: PhotoRecord, _ tag: String?) -> UInt64 {
        NameFingerprints.fingerprint(tag.map { photo.uniqueName + "\u{0}" + $0 } ?? photo.uniqueName)
    }

    /// The companions `--sidecar` and `--thumbnails` write: the XMP or JSON sidecar (none for
    /// `--sidecar none`) and, with `--thumbnails`, `STEM.thumb.jpg`.
    static func companionKinds(sidecar: SidecarFormat, thumbnails: Bool) -> Set<ExportState.Entry.Kind> {
        var kinds = Set<ExportState.Entry.Kind>()
        switch sidecar {
        case .xmp: kinds.insert(.xmp)
        case .json: kinds.insert(.json)
        case .none: break
        }
        if thumbnails { kinds.insert(.thumbnail) }
        return kinds
    }

    struct Plan {
        var items: [Exporter.Planned] = []
        var failures: [(PhotoRecord, String)] = []
    }

    /// The names taken in this run so far (each original and the companions this export
    /// writes, lowercased): kept across pages because a later photo may not take a name an
    /// earlier one took. The one part of the plan that grows with the photos, held as 64-bit
    /// fingerprints (`NameFingerprints`, issue 31 A11): about 22 bytes a name, ~44 MB for
    /// 1,000,000 photos with XMP sidecars (the strings took ~280 MB).
    private(set) var taken = NameFingerprints()
    /// With `trustState`: the recorded name each photo keeps (`reserveRecordedNames`), until
    /// `plan` hands it out, as the fingerprints of its uniqueName and of the path (issue 31
    /// A11: ~40 bytes a recorded photo; `plan` reads the path back from the state).
    private var reserved: [UInt64: UInt64] = [:]

    /// The lowercased names `path` takes: itself, the photo's other originals (`extras`, named
    /// by `ExportNaming.extraOriginalPath`) and the companions this export writes.
    private func keys(_ path: String, photo: PhotoRecord, extras: [PhotoOriginal]) -> [String] {
        let c = ExportNaming.companions(of: path)
        var result = [path]
        for extra in extras {
            result.append(
                ExportNaming.extraOriginalPath(primaryPath: path, role: extra.role, cameraFormat: photo.cameraFormat))
        }
        if companionKinds.contains(.xmp) { result.append(c.xmp) }
        if companionKinds.contains(.json) { result.append(c.json) }
        if companionKinds.contains(.thumbnail) { result.append(c.thumbnail) }
        return result.map { $0.lowercased() }
    }

    /// The name a photo's original starts from: the template (rendered with `context`, its
    /// tag the copy's), else its uniqueName with the extension, sanitized.
    private func base(
        _ photo: PhotoRecord, template: ExportNameTemplate, context: ExportNameContext, tag: String?
    ) -> String {
        let (_, ext) = ExportNaming.split(photo.displayName)
        let fallback = photo.uniqueName + "." + (ext.isEmpty ? photo.format.fileExtension : ext)
        var context = context
        context.tag = tag
        return ExportNaming.sanitize(template.render(photo, context: context)) ?? ExportNaming.sanitize(fallback)
            ?? photo.uniqueName
    }

    /// With `trustState`, the first pass over every photo (pages in uniqueName order, before
    /// any `plan`): a photo keeps the recorded name it had, when that is still one of its base
    /// name's variants and no earlier photo kept it.
    mutating func reserveRecordedNames(
        _ photos: [PhotoRecord], extras: [Int64: [PhotoOriginal]] = [:], template: ExportNameTemplate,
        context: ExportNameContext = ExportNameContext()
    ) {
        guard trustState, let state else { return }
        for (photo, tag) in copies(photos) {
            let others = extras[photo.rowID] ?? []
            // One index lookup a photo (issue 31 A11: the state is not held in memory).
            let paths = state.entries(ofPhoto: photo.uniqueName).filter { $0.kind == .original }.map(\.path)
            guard !paths.isEmpty else { continue }
            let base = base(photo, template: template, context: context, tag: tag)
            for path in paths.sorted() where ExportNaming.isVariant(path, of: base) {
                let k = keys(path, photo: photo, extras: others)
                guard k.allSatisfy({ !taken.contains($0) }) else { continue }
                // Its file may be gone or changed since: then it is rewritten under the same name.
                let present = currentEntry(
                    path, uniqueName: photo.uniqueName, kind: .original,
                    sha256: photo.sha256, byteSize: photo.byteSize)
                if present == nil, diskStatus(path) == .other { continue }
                guard extraPlans(photo, primaryPath: path, extras: others) != nil else { continue }
                taken.formUnion(k)
                reserved[copyKey(photo, tag)] = NameFingerprints.fingerprint(path)
                break
            }
        }
    }

    /// Names the photos of one page (pages in uniqueName order, after `reserveRecordedNames`
    /// with `trustState`): a photo keeps its reserved name; each other photo, in uniqueName
    /// order, takes the first variant (`base`, `base (1)`, …) whose original and the companions
    /// this export writes (`companionKinds`) are not taken in this run (compared
    /// case-insensitively, for exports to case-insensitive file systems) and that is free on
    /// disk or already holds its bytes. The same names as naming every photo at once.
    mutating func plan(
        _ photos: [PhotoRecord], extras: [Int64: [PhotoOriginal]] = [:], template: ExportNameTemplate,
        context: ExportNameContext = ExportNameContext()
    ) -> Plan {
        var result = Plan()
        for (photo, tag) in copies(photos) {
            let others = extras[photo.rowID] ?? []
            if let print = reserved.removeValue(forKey: copyKey(photo, tag)),
                let path = state?.entries(ofPhoto: photo.uniqueName).first(where: {
                    $0.kind == .original && NameFingerprints.fingerprint($0.path) == print
                })?.path
            {
                // Its file may have changed since the reservation: looked at again now.
                let present = currentEntry(
                    path, uniqueName: photo.uniqueName, kind: .original, sha256: photo.sha256,
                    byteSize: photo.byteSize)
                // Checked free (or its own) when it was reserved; looked at again now as well.
                if let planned = extraPlans(photo, primaryPath: path, extras: others) {
                    result.items.append(
                        Exporter.Planned(photo: photo, path: path, present: present, extras: planned, tag: tag))
                    continue
                }
            }
            let base = base(photo, template: template, context: context, tag: tag)
            var found: Exporter.Planned?
            for n in 0..<Exporter.maxVariants {
                let candidate = ExportNaming.variant(base, n)
                let k = keys(candidate, photo: photo, extras: others)
                guard k.allSatisfy({ !taken.contains($0) }),
                    let planned = extraPlans(photo, primaryPath: candidate, extras: others)
                else { continue }
                if let present = currentEntry(
                    candidate, uniqueName: photo.uniqueName, kind: .original,
                    sha256: photo.sha256, byteSize: photo.byteSize)
                {
                    found = Exporter.Planned(photo: photo, path: candidate, present: present, extras: planned, tag: tag)
                } else if diskStatus(candidate) == .missing {
                    found = Exporter.Planned(photo: photo, path: candidate, present: nil, extras: planned, tag: tag)
                } else if trustState, let entry = state?.entry(candidate), entry.uniqueName == photo.uniqueName {
                    // Recorded as this photo's, changed on disk since: rewritten in place.
                    found = Exporter.Planned(photo: photo, path: candidate, present: nil, extras: planned, tag: tag)
                }
                if found != nil {
                    taken.formUnion(k)
                    break
                }
            }
            if let found {
                result.items.append(found)
            } else {
                result.failures.append((photo, "no free name for \(base) after \(Exporter.maxVariants) tries"))
            }
        }
        return result
    }

    /// Where the photo's other originals go when its primary goes to `primaryPath`, each with
    /// its state entry when an identical file is already there; nil when one of those names
    /// holds something else (a file not recorded as this photo's with other bytes, a folder, a
    /// link): the photo then takes another variant of its name, so that its originals keep one
    /// stem and nothing that is not the export's is replaced.
    func extraPlans(_ photo: PhotoRecord, primaryPath: String, extras: [PhotoOriginal]) -> [Exporter.PlannedExtra]? {
        var result: [Exporter.PlannedExtra] = []
        for extra in extras {
            let path = ExportNaming.extraOriginalPath(
                primaryPath: primaryPath, role: extra.role, cameraFormat: photo.cameraFormat)
            let kind = ExportState.Entry.Kind(role: extra.role)
            if let present = currentEntry(
                path, uniqueName: photo.uniqueName, kind: kind, sha256: extra.sha256, byteSize: extra.byteSize)
            {
                result.append(Exporter.PlannedExtra(original: extra, path: path, kind: kind, present: present))
            } else if let status = diskStatus(path),
                status == .missing || (status == .file && state?.entry(path)?.uniqueName == photo.uniqueName)
            {
                result.append(Exporter.PlannedExtra(original: extra, path: path, kind: kind, present: nil))
            } else {
                return nil
            }
        }
        return result
    }

    enum DiskStatus { case missing, file, other }

    /// What is at `path` (relative to root), without following a final symbolic link; nil when
    /// it cannot be told (e.g. a parent is not a folder).
    func diskStatus(_ path: String) -> DiskStatus? {
        var st = stat()
        if lstat(root + "/" + path, &st) != 0 { return errno == ENOENT ? .missing : (errno == ENOTDIR ? .other : nil) }
        return (st.st_mode & S_IFMT) == S_IFREG ? .file : .other
    }

    /// The state entry describing `path` when the file there already holds `sha256` (a regular
    /// file of `byteSize` bytes; trusted from the state's size and mtime with `trustState`,
    /// otherwise hashed), else nil.
    func currentEntry(
        _ path: String, uniqueName: String, kind: ExportState.Entry.Kind, sha256: String,
        byteSize: Int
    ) -> ExportState.Entry? {
        var st = stat()
        let full = root + "/" + path
        guard lstat(full, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG, Int(st.st_size) == byteSize else { return nil }
        let mtime = FileWriter.mtime(st)
        let fresh = ExportState.Entry(
            path: path, uniqueName: uniqueName, kind: kind, sha256: sha256,
            byteSize: byteSize, mtimeNanoseconds: mtime)
        if trustState, let entry = state?.entry(path), entry == fresh { return entry }
        guard let hash = try? SHA256Hasher.hex(ofFileAt: full).hex, hash == sha256 else { return nil }
        return fresh
    }
}
