import Foundation
import PhotosFiles
import PhotosImaging
import PhotosModel

/// A changeset folder read and checked as untrusted input (issue 11 item 4): every header
/// value, entity, identity, attribute, value, stamp, thumbnail and original is checked before
/// anything is written; the originals' sizes and SHA-256 are computed from their bytes. Any
/// fault is `SyncError` `.refused` naming the changeset and the reason.
struct ChangesetReader {
    let path: String
    let header: ChangesetHeader
    /// Checked entries, by object, in key order.
    let entries: [SyncEntry]
    let acknowledgements: [(library: String, scope: String, token: Int64)]
    /// Checked originals by SHA-256 (size and hash verified).
    let originals: [String: ChangesetOriginal]
    private let file: any ChangesetReading

    /// Largest thumbnail accepted, bytes (a 120-pixel JPEG is a few KiB).
    static let thumbnailLimit = 1 << 20

    /// Largest original accepted, bytes (a photo's `byteSize` and an original's file): the
    /// largest file an image of the default `--max-pixels` can be (`ThumbnailOptions.maxFileBytes`,
    /// 922 MiB; issue 31 item 20). A larger one could not be decoded here.
    static let maxOriginalBytes = ThumbnailOptions().maxFileBytes

    /// Opens and checks the changeset at `path`.
    /// - Throws: `SyncError` `.noChangeset` when it does not exist, `.refused` when anything in it is wrong.
    init(path: String, backend: any ChangesetBackend) throws {
        self.path = path
        var st = stat()
        guard stat(path, &st) == 0 else { throw SyncError(.noChangeset, "no changeset at \(path)") }
        guard st.st_mode & S_IFMT == S_IFDIR else {
            throw SyncError(.refused, "\(path) is not a changeset: a changeset is a folder (see 'man photos')")
        }
        let dbPath = path + "/" + backend.fileName
        guard lstat(dbPath, &st) == 0, st.st_mode & S_IFMT == S_IFREG else {
            throw SyncError(.refused, "\(path) is not a changeset: no \(backend.fileName) in it")
        }
        do {
            file = try backend.open(path: dbPath)
            let values = try file.headerValues()
            header = try ChangesetReader.header(values, path)
            acknowledgements = try file.acknowledgements()
            entries = try ChangesetReader.entries(try file.rawEntries(), path)
            originals = try ChangesetReader.originals(try file.originals(), folder: path)
        } catch let e as SyncError {
            throw e
        } catch let e as UntrustedDatabaseError {
            // A schema other than a changeset's, a value too long, work its size cannot explain
            // (issue 31 item 17): refused before anything else is read.
            throw SyncError(.refused, "changeset \(path) refused: \(backend.fileName) \(e.reason)")
        } catch {
            throw SyncError(.refused, "\(path) is not a readable changeset: \(error)")
        }
        for ack in acknowledgements where !SyncValues.isUUID(ack.library) || ack.token < 0 {
            throw bad("an acknowledgement names \(ack.library.debugDescription) with token \(ack.token)")
        }
    }

    private func bad(_ reason: String) -> SyncError { SyncError(.refused, "changeset \(path) refused: \(reason)") }

    /// The thumbnail of `photo`, when the changeset has a sound-looking one (pixels 1…120, at
    /// most `thumbnailLimit` bytes); the caller still checks it decodes (`soundThumbnail`).
    /// - Throws: `SyncError` `.refused` when reading it passes the file's bounds (a value longer
    ///   than a row may hold, work beyond its size: `UntrustedDatabaseError`).
    func thumbnail(photo: String) throws -> (data: [UInt8], width: Int, height: Int)? {
        let found: (data: [UInt8], width: Int, height: Int)?
        do {
            found = try file.thumbnail(photo: photo)
        } catch let e as UntrustedDatabaseError {
            throw bad("the thumbnail of photo \(photo): \(e.reason)")
        } catch {
            return nil
        }
        guard let t = found, (1...120).contains(t.width), (1...120).contains(t.height),
            t.data.count <= ChangesetReader.thumbnailLimit
        else { return nil }
        return t
    }

    private static func header(_ v: [String: String], _ path: String) throws -> ChangesetHeader {
        func fail(_ why: String) -> SyncError { SyncError(.refused, "changeset \(path) refused: \(why)") }
        guard v["format"] == ChangesetHeader.formatName else { throw fail("it is not a photos changeset") }
        guard v["version"] == String(ChangesetHeader.currentVersion) else {
            throw fail("format version \(v["version"] ?? "none") is not \(ChangesetHeader.currentVersion)")
        }
        guard let sender = v["sender"], SyncValues.isUUID(sender) else { throw fail("the sender is not a library id") }
        guard let scope = v["scope"], scope == Library.wholeLibraryScope || SyncValues.isZoneID(scope) else {
            throw fail("the scope is not a zone id")
        }
        guard let from = v["fromToken"].flatMap({ Int64($0) }), let to = v["toToken"].flatMap({ Int64($0) }),
            from >= 0, from <= to
        else { throw fail("the token range is not two tokens in order") }
        // Tokens are milliseconds of the sender's clock (SyncClock.nextToken): one far beyond
        // now was never handed out, and recorded as applied it would hide every later gap.
        guard to <= SyncClock.latestPlausibleToken() else {
            throw fail("the token range ends at \(to), beyond any token a library can have handed out by now")
        }
        let participant = try v["participant"].map { try Email(parsing: $0).rawValue }
        return ChangesetHeader(
            sender: sender, scope: scope, fromToken: from, toToken: to, created: v["created"] ?? "",
            participant: participant)
    }

    private static func entries(
        _ raw: [RawChangesetEntry], _ path: String
    ) throws -> [SyncEntry] {
        var result: [SyncEntry] = []
        result.reserveCapacity(raw.count)
        // One value per attribute of an object (issue 31 B18): a second entry for the same one
        // would make the outcome depend on the order of reading.
        var keys = Set<String>()
        for r in raw {
            func fail(_ why: String) -> SyncError {
                SyncError(.refused, "changeset \(path) refused: \(r.entity) \(r.objectID.debugDescription): \(why)")
            }
            guard keys.insert(r.entity + " " + r.objectID + " " + r.attribute).inserted else {
                throw fail("two values for attribute \(r.attribute.debugDescription)")
            }
            guard let entity = SyncEntity(rawValue: r.entity) else { throw fail("unknown entity") }
            if entity == .photoData, let problem = SyncValues.originalRoleProblem(r.objectID) {
                throw fail(problem)
            }
            guard SyncValues.isObjectID(r.objectID, of: entity) else { throw fail("not a valid identity") }
            guard entity.attributes.contains(r.attribute) || (r.attribute == SyncEntity.deleted && entity != .photoData)
            else {
                throw fail("unknown attribute \(r.attribute.debugDescription)")
            }
            if let problem = SyncValues.problem(entity, r.attribute, r.value) {
                throw fail("\(r.attribute) \(problem)")
            }
            // Stamps order as strings (`SyncStamp`), so only the one form export writes is
            // accepted: another form of the same instant (no milliseconds, microseconds) would
            // order wrongly against it, and a stamp near year 9999 would leave no room for the
            // 1-ms bump of a later local edit (`SyncClock.stamp`), pinning the value for ever.
            guard SyncClock.isStamp(r.time), r.time < SyncValues.latestStamp, SyncValues.isUUID(r.library) else {
                throw fail(
                    "the stamp of \(r.attribute) is not a time YYYY-MM-DDTHH:MM:SS.fffZ before \(SyncValues.latestStamp) and a library id"
                )
            }
            if let zone = r.zone, !SyncValues.isZoneID(zone) {
                throw fail("zone \(zone.debugDescription) is not a zone id")
            }
            result.append(
                SyncEntry(
                    entity: entity, objectID: r.objectID, attribute: r.attribute, value: r.value,
                    stamp: SyncStamp(time: r.time, library: r.library), zone: r.zone))
        }
        return result
    }

    /// Checks each original: SHA-256 form, path exactly `originals/SHA256` (no other path, no
    /// `..`, no link), a regular file of the recorded size whose bytes hash to the SHA-256.
    private static func originals(_ list: [ChangesetOriginal], folder: String) throws -> [String: ChangesetOriginal] {
        var result: [String: ChangesetOriginal] = [:]
        for o in list {
            func fail(_ why: String) -> SyncError {
                SyncError(.refused, "changeset \(folder) refused: original \(o.path.debugDescription): \(why)")
            }
            guard SyncValues.isSHA256(o.sha256) else { throw fail("\(o.sha256.debugDescription) is not a SHA-256") }
            guard o.path == changesetOriginalsFolder + "/" + o.sha256 else {
                throw fail("its path must be \(changesetOriginalsFolder)/\(o.sha256)")
            }
            let file = folder + "/" + o.path
            var st = stat()
            guard lstat(file, &st) == 0, st.st_mode & S_IFMT == S_IFREG else {
                throw fail("missing or not a regular file")
            }
            guard Int(st.st_size) == o.byteSize else { throw fail("\(st.st_size) bytes, recorded \(o.byteSize)") }
            // Before a byte is hashed or copied: a size no image here can have, or a sparse file
            // (a 500 KB changeset carrying a "3 GiB" original of zeros, issue 31 item 20).
            do {
                let (fd, status) = try ImageFile.openRegularFile(path: file)
                defer { close(fd) }
                if let problem = ImageFile.sizeProblem(fd: fd, status: status, maxBytes: maxOriginalBytes) {
                    throw fail(problem)
                }
            } catch let e as FileError {
                throw fail("cannot be read: \(e.reason)")
            }
            let digest: (hex: String, bytes: Int)
            do { digest = try SHA256Hasher.hex(ofFileAt: file) } catch { throw fail("cannot be read: \(error)") }
            guard digest.hex == o.sha256, digest.bytes == o.byteSize else {
                throw fail("its bytes do not have the SHA-256 \(o.sha256)")
            }
            result[o.sha256] = o
        }
        return result
    }
}

/// The forms sync accepts for identities and values from another library.
enum SyncValues {
    static let hex = Set("0123456789abcdef")

    /// The bound on a changeset's stamp times (exclusive): far enough from year 9999 that local
    /// edits can always be stamped after any accepted stamp in the same 24-character form.
    static let latestStamp = "9000-01-01T00:00:00.000Z"

    /// A lowercase RFC 9562 UUID string (36 characters, hyphens at 8, 13, 18, 23).
    static func isUUID(_ s: String) -> Bool {
        let chars = Array(s)
        guard chars.count == 36 else { return false }
        for (i, c) in chars.enumerated() {
            if [8, 13, 18, 23].contains(i) { if c != "-" { return false } } else if !hex.contains(c) { return false }
        }
        return true
    }

    /// A photo's uniqueName: a UUID string in either case (import writes uppercase).
    static func isUniqueName(_ s: String) -> Bool { isUUID(s.lowercased()) }

    /// A zone id: 1–128 of `A–Z a–z 0–9 . _ -`, not `.` or `..` (ids come from other libraries;
    /// this keeps them printable and free of path characters).
    static func isZoneID(_ s: String) -> Bool {
        guard (1...128).contains(s.utf8.count), s != ".", s != ".." else { return false }
        return s.unicodeScalars.allSatisfy {
            ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0)))
                || "._-".unicodeScalars.contains($0)
        }
    }

    /// 64 lowercase hex digits.
    static func isSHA256(_ s: String) -> Bool { isSHA256Hex(s) }

    static func isObjectID(_ id: String, of entity: SyncEntity) -> Bool {
        switch entity {
        case .photo: return isUniqueName(id)
        case .tag, .rating, .participant: return isUUID(id)
        case .share: return isZoneID(id) && id != ZoneID.default.rawValue
        case .photoTag:
            let parts = id.split(separator: "/", omittingEmptySubsequences: false)
            return parts.count == 2 && isUniqueName(String(parts[0])) && isUUID(String(parts[1]))
        case .photoData:
            let parts = id.split(separator: "/", omittingEmptySubsequences: false)
            return parts.count == 2 && isUniqueName(String(parts[0]))
                && SyncEntity.extraOriginalRoles.contains(String(parts[1]))
        }
    }

    /// What is wrong with the role of a `PhotoData` object id `PHOTO/ROLE` (issue 24 item 2),
    /// nil when it is one this build carries: a role this build does not know (a newer peer's)
    /// is refused, not dropped, so that no original is lost silently; `primary` is the photo's
    /// own original (its `sha256`), so a `PhotoData` of that role would be a second primary.
    static func originalRoleProblem(_ id: String) -> String? {
        guard let slash = id.lastIndex(of: "/") else { return nil }
        let role = String(id[id.index(after: slash)...])
        if role == OriginalRole.primary.rawValue {
            return
                "a second primary original: a photo's primary original is its own sha256, and it has exactly one"
        }
        guard SyncEntity.extraOriginalRoles.contains(role) else {
            return
                "original role \(role.debugDescription) is not one this library knows (\(SyncEntity.extraOriginalRoles.joined(separator: ", ")) besides the photo's primary); upgrade photos here to apply it"
        }
        return nil
    }

    /// Text without control characters, at most `limit` UTF-8 bytes.
    static func isText(_ s: String, limit: Int) -> Bool {
        s.utf8.count <= limit && !s.unicodeScalars.contains { $0.properties.generalCategory == .control }
    }

    /// What is wrong with a value, nil when it is acceptable.
    static func problem(_ entity: SyncEntity, _ attribute: String, _ value: String?) -> String? {
        func int(_ range: ClosedRange<Int>) -> String? {
            guard let v = value.flatMap({ Int($0) }), range.contains(v) else {
                return "is not a whole number in \(range)"
            }
            return nil
        }
        func oneOf(_ words: [String]) -> String? {
            guard let v = value, words.contains(v) else { return "is not one of \(words.joined(separator: ", "))" }
            return nil
        }
        func text(_ limit: Int, optional: Bool = false) -> String? {
            guard let v = value else { return optional ? nil : "is missing" }
            return isText(v, limit: limit) ? nil : "is longer than \(limit) bytes or has control characters"
        }
        if attribute == SyncEntity.deleted { return value == "1" ? nil : "must be 1" }
        switch (entity, attribute) {
        case (.photo, "displayName"): return text(1024)
        case (.photo, "importedAt"), (.share, "created"): return text(40)
        case (.photo, "captureDate"), (.photo, "captureSource"): return text(40, optional: true)
        case (.photo, "captureOffset"): return value == nil ? nil : int(-1080...1080)
        case (.photo, "width"), (.photo, "height"): return int(1...1_000_000)
        case (.photo, "orientation"): return int(1...8)
        case (.photo, "latitudeE7"): return value == nil ? nil : int(-900_000_000...900_000_000)
        case (.photo, "longitudeE7"): return value == nil ? nil : int(-1_800_000_000...1_800_000_000)
        case (.photo, "altitudeMM"): return value == nil ? nil : int(-100_000_000_000...100_000_000_000)
        case (.photo, "format"): return oneOf(ImageFormat.allCases.map(\.rawValue))
        case (.photo, "kind"): return oneOf(["still", "video", "motion", "live"])
        case (.photo, "durationMS"): return value == nil ? nil : int(0...Int(Int32.max) * 1000)
        case (.photo, "videoCodec"): return text(64, optional: true)
        // Issue 24 item 1: as import stores them (`CameraIdentity.clean`), or absent.
        case (.photo, "cameraMake"), (.photo, "cameraModel"), (.photo, "lensModel"):
            guard let v = value else { return nil }
            return CameraIdentity.isClean(v)
                ? nil : "is empty, longer than \(CameraIdentity.maxBytes) bytes, padded or has control characters"
        // Issue 26 item 6: as import and `describe` store them (`PhotoText`), or absent.
        case (.photo, "title"):
            guard let v = value else { return nil }
            return PhotoText.isTitle(v)
                ? nil : "is empty, longer than \(PhotoText.maxTitleBytes) bytes, padded or has control characters"
        case (.photo, "placeName"):
            guard let v = value else { return nil }
            return PhotoText.isPlaceName(v)
                ? nil : "is empty, longer than \(PhotoText.maxPlaceNameBytes) bytes, padded or has control characters"
        case (.photo, "description"):
            guard let v = value else { return nil }
            return PhotoText.isDescription(v)
                ? nil : "is empty, longer than \(PhotoText.maxDescriptionBytes) bytes, padded or has control characters"
        case (.photo, "cameraFormat"):
            guard let v = value else { return nil }
            return CameraIdentity.isRawFormatName(v) ? nil : "is not a RAW container name (2 to 8 of a-z, 0-9)"
        case (.photo, "zone"), (.tag, "zone"), (.participant, "share"):
            return value.map(isZoneID) == true ? nil : "is not a zone id"
        case (.photo, "sha256"): return value.map(isSHA256) == true ? nil : "is not a SHA-256"
        case (.photo, "byteSize"): return int(0...ChangesetReader.maxOriginalBytes)
        case (.tag, "name"):
            // Compared by bytes: Swift's String == is canonical equivalence, under which a
            // decomposed name equals its NFC form (and two tags of one name would arrive).
            guard let v = value, let n = try? TagName.normalize(v), n.utf8.elementsEqual(v.utf8) else {
                return "is not a normalized tag name"
            }
            return nil
        case (.rating, "photo"): return value.map(isUniqueName) == true ? nil : "is not a photo's uniqueName"
        case (.rating, "value"): return int(RatingValue.range)
        case (.rating, "author"):
            // The rule `--author` and `$PHOTOS_AUTHOR` are held to (AuthorName), so one person
            // is one author here as in the sender, and `history`/`rate` print it on one line.
            guard let v = value else { return nil }
            if let problem = AuthorName.problem(v) { return problem }
            return AuthorName.isNormalized(v) ? nil : "must be trimmed and in NFC"
        case (.share, "title"): return text(1000)
        case (.share, "publicPermission"): return oneOf(SharePermission.allCases.map(\.rawValue))
        case (.share, "scope"): return oneOf(ZoneScope.allCases.map(\.rawValue))
        case (.participant, "email"):
            guard let v = value, (try? Email(parsing: v))?.rawValue.utf8.elementsEqual(v.utf8) == true else {
                return "is not a lower-case, NFC e-mail address"
            }
            return nil
        case (.participant, "role"): return oneOf(ParticipantRole.allCases.map(\.rawValue))
        case (.participant, "permission"):
            return oneOf([SharePermission.readOnly.rawValue, SharePermission.readWrite.rawValue])
        case (.participant, "acceptance"): return oneOf(Acceptance.allCases.map(\.rawValue))
        case (.photoTag, "present"): return oneOf(["0", "1"])
        case (.photoData, "sha256"): return value == nil || value.map(isSHA256) == true ? nil : "is not a SHA-256"
        case (.photoData, "byteSize"): return value == nil ? nil : int(0...ChangesetReader.maxOriginalBytes)
        case (.photoData, "format"): return value == nil ? nil : oneOf(ImageFormat.allCases.map(\.rawValue))
        default: return "is not an attribute of \(entity.rawValue)"
        }
    }
}
