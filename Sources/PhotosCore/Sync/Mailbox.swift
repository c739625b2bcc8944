import Foundation
import PhotosFiles
import PhotosModel

/// A shared folder as a mailbox for share changesets (issue 29 item 3): for people whose
/// machines never see each other, with a sync tool (Syncthing, Nextcloud), a USB stick or NFS
/// between them. Each changeset is one file, the changeset folder in `ChangesetStream`'s form
/// (every file with its size and SHA-256, then `end`), so a file another tool has not finished
/// copying is seen as incomplete and left for a later run, never half applied. Its name says
/// what it is, so a reader picks its own without opening the others:
///
///     SHARE.SENDER.RECIPIENT.FROM-TO.aACK.photos-changeset
///
/// SHARE is the share's zone id, SENDER the writing library's id, RECIPIENT the participant's
/// e-mail address (the owner's changesets) or `owner` (a participant's, back to the owner), FROM
/// and TO the sender's change tokens it holds (after FROM, up to TO), and ACK the sum of the
/// tokens the sender had applied in the zone when it wrote it (its acknowledgements changed when
/// that did). Each field is percent-encoded (RFC 3986 §2.1) except letters, digits, `@`, `_`,
/// `+` and `-`, so a field never holds the separator `.` and a name never starts with a dot.
/// Files are written under a dot-name, fsynced and renamed into place, then the folder is
/// fsynced; a sender keeps one file per share and recipient (a newer one supersedes the older:
/// it starts at the recipient's acknowledgement, which only grows).
public struct MailboxName: Equatable, Sendable {
    /// The suffix of every mailbox file.
    public static let suffix = ".photos-changeset"
    /// The RECIPIENT of a participant's changeset to the share's owner.
    public static let owner = "owner"

    public var share: String
    public var sender: String
    /// A participant's e-mail address, or `MailboxName.owner`.
    public var recipient: String
    public var fromToken: Int64
    public var toToken: Int64
    public var acknowledged: Int64

    public init(share: String, sender: String, recipient: String, fromToken: Int64, toToken: Int64, acknowledged: Int64)
    {
        self.share = share
        self.sender = sender
        self.recipient = recipient
        self.fromToken = fromToken
        self.toToken = toToken
        self.acknowledged = acknowledged
    }

    /// The file name.
    public var fileName: String {
        [share, sender, recipient].map(Self.encode).joined(separator: ".")
            + ".\(fromToken)-\(toToken).a\(acknowledged)" + Self.suffix
    }

    /// Parses a file name; nil for any other name (partial files of sync tools, ours under a
    /// dot-name, anything else a person put there).
    public init?(fileName: String) {
        guard fileName.hasSuffix(Self.suffix), !fileName.hasPrefix("."), fileName.utf8.count <= 1024 else { return nil }
        let fields = fileName.dropLast(Self.suffix.count).split(separator: ".", omittingEmptySubsequences: false)
        guard fields.count == 5,
            let share = Self.decode(fields[0]), let sender = Self.decode(fields[1]),
            let recipient = Self.decode(fields[2]), !share.isEmpty, !sender.isEmpty, !recipient.isEmpty
        else { return nil }
        let range = fields[3].split(separator: "-", omittingEmptySubsequences: false)
        guard range.count == 2, let from = Int64(range[0]), let to = Int64(range[1]), from >= 0, to >= from,
            fields[4].hasPrefix("a"), let ack = Int64(fields[4].dropFirst()), ack >= 0
        else { return nil }
        self.init(share: share, sender: sender, recipient: recipient, fromToken: from, toToken: to, acknowledged: ack)
        // Only the one spelling this type writes: `%2e` for `%2E`, `%41` for `A`, `007` or `+7`
        // for `7` name the same changeset under another file name, which the reader would then
        // open, prune or supersede by the canonical name, not the one in the folder.
        guard self.fileName == fileName else { return nil }
    }

    static func isPlain(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "@"), UInt8(ascii: "_"), UInt8(ascii: "+"),
            UInt8(ascii: "-"):
            return true
        default: return false
        }
    }

    static func encode(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            if isPlain(byte) {
                out.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                out += String(format: "%%%02X", byte)
            }
        }
        return out
    }

    static func decode<S: StringProtocol>(_ text: S) -> String? {
        var bytes: [UInt8] = []
        var it = Array(text.utf8)[...]
        while let byte = it.popFirst() {
            if byte == UInt8(ascii: "%") {
                guard it.count >= 2, let value = UInt8(String(decoding: it.prefix(2), as: UTF8.self), radix: 16) else {
                    return nil
                }
                it = it.dropFirst(2)
                bytes.append(value)
            } else {
                guard isPlain(byte) else { return nil }
                bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }
}

/// What `share publish` (or the publishing half of `sync --inbox`) did.
public struct MailboxPublishReport: Equatable, Sendable {
    /// The files written, by name.
    public var written: [String] = []
    /// Share and recipient pairs whose newest file in the folder already said everything.
    public var upToDate = 0
    /// Older files of this library replaced by the newer ones.
    public var superseded = 0
    public var bytes: Int64 = 0

    public init() {}

    public var json: JSONValue {
        .object([
            ("written", .array(written.map { .string($0) })), ("upToDate", .int(upToDate)),
            ("superseded", .int(superseded)), ("bytes", .int(Int(bytes)))
        ])
    }
}

/// What `sync --inbox` did with the folder's files.
public struct MailboxInboxReport: Sendable {
    /// Changesets applied, by file name, with what each did.
    public var applied: [(file: String, report: ApplyReport)] = []
    /// Files for this library whose tokens were all applied before.
    public var alreadyApplied = 0
    /// Files for this library that carry no changes (FROM = TO), only the sender's
    /// acknowledgements: applied each time (a few hundred bytes, no originals), never pruned by
    /// their reader — their writer replaces them when its acknowledgements change, so a reader
    /// that pruned them would only make the writer write them again.
    public var acknowledgements = 0
    /// Files not (yet) whole: a sync tool still copying them, or cut. Left for a later run.
    public var incomplete: [String] = []
    /// Files for this library that were refused, with why (a changeset that is not the
    /// sender's to give, tampered, a gap before it).
    public var refused: [(file: String, reason: String)] = []
    /// Invitations to shares not accepted here (`share accept FILE` takes them).
    public var invitations: [String] = []
    /// Files of participants no longer in the share (uninvited), left alone: never applied.
    public var fromRemoved: [String] = []
    /// Files of this library's that it removed with `--prune` (applied here, acknowledged in
    /// its own changesets).
    public var pruned = 0
    public var published = MailboxPublishReport()

    public init() {}

    public var json: JSONValue {
        .object([
            ("applied", .array(applied.map { .object([("file", .string($0.file)), ("apply", $0.report.json)]) })),
            ("alreadyApplied", .int(alreadyApplied)), ("acknowledgements", .int(acknowledgements)),
            ("incomplete", .array(incomplete.map { .string($0) })),
            (
                "refused",
                .array(refused.map { .object([("file", .string($0.file)), ("reason", .string($0.reason))]) })
            ),
            ("invitations", .array(invitations.map { .string($0) })),
            ("fromRemoved", .array(fromRemoved.map { .string($0) })), ("pruned", .int(pruned)),
            ("published", published.json)
        ])
    }
}

extension ChangesetStream {
    /// Unpacks a mailbox file (`MailboxName`'s form: one changeset stream) into the changeset
    /// folder `folder`, which must not exist (nothing is left there on failure). Memory is one
    /// chunk whatever the file declares.
    /// - Parameter databaseName: the changeset database's file name.
    /// - Throws: `Failure.truncated` for a file that is not whole yet, `.malformed` for one that
    ///   is not a changeset stream (or goes on after its end line), `.io` when it cannot be read.
    public static func unpack(file path: String, into folder: String, databaseName: String) throws {
        // O_NONBLOCK: a FIFO (or a device) under a changeset's name would block open(2) until a
        // writer came, for ever (SIGTERM's handler restarts the call); it is refused by fstat.
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { throw Failure.io("cannot open \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else {
            throw Failure.malformed("\(path) is not a regular file")
        }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        let reader = LineReader(fd: fd)
        try receive(from: reader, into: folder, databaseName: databaseName)
        // Bytes after the end line, in the reader's buffer or still in the file.
        if try !reader.atEnd() {
            try? FileManager.default.removeItem(atPath: folder)
            throw Failure.malformed("\(path) goes on after its end line")
        }
    }
}

extension Library {
    /// `ChangesetStream.unpack(file:into:databaseName:)` with this library's changeset format.
    /// - Throws: what that throws.
    public func unpackMailboxFile(_ path: String, into folder: String) throws {
        try ChangesetStream.unpack(file: path, into: folder, databaseName: try changesetBackend().fileName)
    }

    /// A temporary folder inside the library for a changeset on its way in or out.
    func mailboxTemporaryFolder() -> String {
        root + "/.photos-mailbox-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    }

    /// The sum of the tokens this library applied in zone `share` (its acknowledgements there).
    func acknowledgementSum(zone share: String) throws -> Int64 {
        try store.readTransaction { try syncStore.appliedTokens() }.filter { $0.scope == share }
            .reduce(0) { $0 &+ $1.token }
    }

    /// `photos share publish [SHARE…] --to DIR`: writes into `folder` this library's changeset
    /// of each share for each side that should have it — of a share it owns, one per participant
    /// not removed (the first holds the whole zone, later ones what changed after that
    /// participant's acknowledgement, as `share export --for`); of a share accepted here, one
    /// back to the owner (as `share export`). A changeset is written only when it says
    /// something the newest file for that side does not: new changes, or new acknowledgements.
    /// Each is written under a dot-name, fsynced, renamed, and the folder fsynced; this
    /// library's older files for the same side are removed after.
    /// - Parameter shares: the shares, or nil for every share here (owned and accepted).
    /// - Throws: `SyncError` `.cannotCreate`/`.cannotWrite` when `folder` is missing or cannot be
    ///   written; what `exportShare` throws.
    public func publishShares(_ shares: [SharedZone]?, to folder: String) throws -> MailboxPublishReport {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else {
            throw SyncError(.cannotCreate, "no folder \(folder) for the changesets")
        }
        let me = try libraryID()
        let zones: [SharedZone]
        if let shares {
            zones = shares
        } else {
            let owned = try store.readTransaction { try catalogStore.shares() }.map(\.id)
            let joined = try store.readTransaction { try syncStore.memberships() }.map(\.zone)
            zones = try Array(Set(owned + joined)).sorted().map { try resolveSharedZone($0) }
        }
        var existing: [MailboxName] = []
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] {
            if let parsed = MailboxName(fileName: name), parsed.sender == me { existing.append(parsed) }
            // This library's dot-file of a run killed before its rename (kill -9, power loss):
            // a whole changeset's bytes the sync tool would carry for ever, and, when a later
            // run gets the same process id, an O_EXCL failure on every publish.
            if let stale = Self.staleMailboxDotFile(name, sender: me) { unlink(folder + "/" + stale) }
        }
        removeStaleMailboxFolders()
        var report = MailboxPublishReport()
        for zone in zones {
            var recipients: [(email: Email?, name: String)] = []
            if zone.membership != nil {
                // A participant: back to the owner (its leave too, after it left).
                recipients.append((nil, MailboxName.owner))
            } else {
                for p in try store.readTransaction({ try catalogStore.participants(ofShare: zone.id) })
                where p.role != ParticipantRole.owner.rawValue && p.acceptance != Acceptance.removed.rawValue {
                    recipients.append((Email(rawValue: p.email), p.email))
                }
            }
            let acknowledged = try acknowledgementSum(zone: zone.id)
            for recipient in recipients {
                let older = existing.filter { $0.share == zone.id && $0.recipient == recipient.name }
                let temp = mailboxTemporaryFolder()
                defer { try? FileManager.default.removeItem(atPath: temp) }
                // Only the database is written here: the originals are read once, from the
                // library, if the file is written at all.
                let exported = try exportShare(zone, for: recipient.email, to: temp, originalsInPlace: true)
                let name = MailboxName(
                    share: zone.id, sender: me, recipient: recipient.name, fromToken: exported.fromToken,
                    toToken: exported.toToken, acknowledged: acknowledged)
                let empty = exported.objects == 0 && exported.deletes == 0
                if older.contains(where: { $0 == name || (empty && $0.acknowledged == acknowledged) }) {
                    report.upToDate += 1
                    continue
                }
                report.bytes += try writeMailboxFile(
                    from: temp, originals: exported.originalsInPlace, to: folder + "/" + name.fileName)
                report.written.append(name.fileName)
                for old in older where old != name {
                    if unlink(folder + "/" + old.fileName) == 0 { report.superseded += 1 }
                }
            }
        }
        return report
    }

    /// `name` when it is a dot-file `writeMailboxFile` leaves only when killed (`.NAME.PID.tmp`,
    /// NAME a mailbox name of `sender`) whose process is gone or is this one (a reused id).
    static func staleMailboxDotFile(_ name: String, sender: String) -> String? {
        guard name.hasPrefix("."), name.hasSuffix(".tmp") else { return nil }
        let parts = name.dropFirst().dropLast(".tmp".count).split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count > 1, let pid = Int32(parts[parts.count - 1]), pid > 0,
            let parsed = MailboxName(fileName: parts.dropLast().joined(separator: ".")), parsed.sender == sender,
            pid == getpid() || (kill(pid, 0) != 0 && errno == ESRCH)
        else { return nil }
        return name
    }

    /// Removes the library's `.photos-mailbox-PID-N` folders of runs killed meanwhile (their
    /// process gone): an unpacked changeset with its originals each.
    func removeStaleMailboxFolders() {
        for name in (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        where name.hasPrefix(".photos-mailbox-") {
            let fields = name.dropFirst(".photos-mailbox-".count).split(separator: "-")
            guard fields.count == 2, let pid = Int32(fields[0]), pid > 0, pid != getpid(),
                kill(pid, 0) != 0, errno == ESRCH
            else { continue }
            try? FileManager.default.removeItem(atPath: root + "/" + name)
        }
    }

    /// Streams the changeset folder `source` (its originals read from `originals`, in the
    /// library) into the file `path`: under a dot-name beside it, fsynced, renamed into place,
    /// the folder fsynced. Returns the bytes written.
    /// - Throws: `SyncError` `.cannotWrite` (the dot-file is removed again).
    func writeMailboxFile(
        from source: String, originals: [ChangesetStream.FileSource], to path: String
    ) throws -> Int64 {
        let folder = (path as NSString).deletingLastPathComponent
        let temp = folder + "/." + (path as NSString).lastPathComponent + ".\(getpid()).tmp"
        let fd = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw SyncError(.cannotWrite, "cannot write \(temp): \(String(cString: strerror(errno)))")
        }
        var isOpen = true
        defer { if isOpen { close(fd) } }
        do {
            try ChangesetStream.send(
                folder: source, databaseName: try changesetBackend().fileName, originalsInPlace: originals, to: fd)
            var st = stat()
            guard fsync(fd) == 0, fstat(fd, &st) == 0 else {
                throw SyncError(.cannotWrite, "cannot write \(temp): \(String(cString: strerror(errno)))")
            }
            isOpen = false
            close(fd)
            guard rename(temp, path) == 0 else {
                throw SyncError(.cannotWrite, "cannot rename \(temp) to \(path): \(String(cString: strerror(errno)))")
            }
            let dir = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            if dir >= 0 {
                _ = fsync(dir)
                close(dir)
            }
            return Int64(st.st_size)
        } catch {
            unlink(temp)
            if let e = error as? ChangesetStream.Failure { throw SyncError(.cannotWrite, "cannot write \(temp): \(e)") }
            throw error
        }
    }

    /// `photos sync --inbox DIR`: applies, in token order per sender, every changeset file in
    /// `folder` addressed to this library and not applied yet — of a share it owns, the
    /// participants' (`owner` as recipient); of a share accepted here, the owner library's for
    /// this library's participant address — then (unless `publish` is false) writes its own
    /// changesets back (`publishShares`), and with `prune` removes the files it applied (its
    /// acknowledgement of them is in what it just wrote). Files of other names, for others, not
    /// whole yet (a sync tool still copying) or gone while read are left alone; invitations to
    /// shares not accepted here are named (`share accept FILE`). Safe beside other runs: each
    /// apply is its own write transaction and checks everything first.
    /// - Throws: `SyncError` `.noChangeset` when `folder` is not a folder; `LibraryError` 75 when
    ///   busy; what `publishShares` throws. A refused file is reported, not thrown.
    public func applyInbox(
        _ folder: String, author: HistoryAuthor = .default, publish: Bool = true, prune: Bool = false
    ) throws -> MailboxInboxReport {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else {
            throw SyncError(.noChangeset, "no folder \(folder)")
        }
        let me = try libraryID()
        let owned = Set(
            try store.readTransaction { try catalogStore.shares() }.filter { $0.scope == ZoneScope.private.rawValue }
                .map(\.id))
        var memberships: [String: SyncMembership] = [:]
        for m in try store.readTransaction({ try syncStore.memberships() }) where m.leftAt == nil {
            memberships[m.zone] = m
        }
        removeStaleMailboxFolders()
        var report = MailboxInboxReport()
        var mine: [MailboxName] = []
        for name in ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted() {
            guard let parsed = MailboxName(fileName: name), parsed.sender != me else { continue }
            // A folder, FIFO, socket or device under a changeset's name (or a symlink to one) is
            // no file a sender wrote: left alone like any other name, never opened or refused.
            var st = stat()
            if stat(folder + "/" + name, &st) == 0, st.st_mode & S_IFMT != S_IFREG { continue }
            if owned.contains(parsed.share) {
                if parsed.recipient == MailboxName.owner { mine.append(parsed) }
            } else if let m = memberships[parsed.share] {
                if parsed.recipient == m.email && parsed.sender == m.owner { mine.append(parsed) }
            } else if parsed.recipient != MailboxName.owner {
                report.invitations.append(name)
            }
        }
        mine.sort { ($0.sender, $0.share, $0.fromToken, $0.toToken) < ($1.sender, $1.share, $1.fromToken, $1.toToken) }
        var applied: [MailboxName] = []
        for name in mine {
            let file = folder + "/" + name.fileName
            let onlyAcknowledgements = name.fromToken >= name.toToken
            if !onlyAcknowledgements, try appliedToken(sender: name.sender, scope: name.share) >= name.toToken {
                report.alreadyApplied += 1
                applied.append(name)
                continue
            }
            let temp = mailboxTemporaryFolder()
            defer { try? FileManager.default.removeItem(atPath: temp) }
            do {
                try unpackMailboxFile(file, into: temp)
            } catch ChangesetStream.Failure.truncated {
                report.incomplete.append(name.fileName)
                continue
            } catch ChangesetStream.Failure.io where !FileManager.default.fileExists(atPath: file) {
                continue // superseded and removed by its writer meanwhile
            } catch {
                report.refused.append((name.fileName, "\(error)"))
                continue
            }
            var header: ChangesetHeader?
            do {
                // The name decided whether it was applied before and what --prune removes: it
                // must say what the file holds.
                let applyReport = try applyChangeset(
                    at: temp, author: author,
                    expecting: { h in
                        header = h
                        guard h.sender == name.sender, h.scope == name.share, h.fromToken == name.fromToken,
                            h.toToken == name.toToken
                        else {
                            return
                                "its name says tokens \(name.fromToken)-\(name.toToken) of library \(name.sender) in share \(name.share), it holds \(h.fromToken)-\(h.toToken) of library \(h.sender) in zone \(h.scope)"
                        }
                        return nil
                    })
                if onlyAcknowledgements {
                    report.acknowledgements += 1
                } else {
                    report.applied.append((name.fileName, applyReport))
                    applied.append(name)
                }
            } catch let error as SyncError {
                // The last file of a participant this library removed from the share (uninvite):
                // it can never be applied, and its writer no longer gets changesets to replace
                // it, so refusing it would fail every later run; it is left alone, named.
                if error.kind == .notPermitted, owned.contains(name.share), let email = header?.participant,
                    try store.readTransaction({
                        try catalogStore.participant(ofShare: name.share, email: Email(rawValue: email))
                    }).map({ $0.acceptance == Acceptance.removed.rawValue }) ?? true
                {
                    report.fromRemoved.append(name.fileName)
                    continue
                }
                report.refused.append((name.fileName, error.message))
            }
        }
        if publish { report.published = try publishShares(nil, to: folder) }
        if prune {
            for name in applied where unlink(folder + "/" + name.fileName) == 0 { report.pruned += 1 }
        }
        return report
    }
}
