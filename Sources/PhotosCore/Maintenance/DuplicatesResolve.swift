import Foundation
import PhotosFiles
import PhotosModel

/// What `photos duplicates --resolve` did (or, in a dry run, would do) to one group (issue 27
/// item 3).
public struct DuplicateResolution: Sendable {
    /// The keeper's uniqueName and display name.
    public var keeper: String
    public var keeperName: String
    /// The keeper's zone before and after: it changes only when the keeper joins the share of
    /// the members deleted (`share`).
    public var zoneBefore: String
    public var zone: String
    /// The members deleted: uniqueName and display name, as the plan listed them.
    public var deleted: [(uniqueName: String, displayName: String)] = []
    /// The members left as they are, each with why (another share; gone meanwhile).
    public var kept: [(uniqueName: String, why: String)] = []
    /// The tag names the keeper gained.
    public var tagsAdded: [String] = []
    /// The ratings the keeper gained or whose value changed: author (nil: anonymous), the value
    /// before (nil: it had none by that author) and after, and the member it came from.
    public var ratings: [(author: String?, before: Int?, after: Int, from: String)] = []
    /// The capture time the keeper took (ISO 8601 as shown, its source, and the member), or nil.
    public var capture: (before: String?, after: String, source: String, from: String)?
    /// The title and description the keeper took (it had none), with the member each came
    /// from (issue 26 item 6), or nil.
    public var title: (value: String, from: String)?
    public var description: (value: String, from: String)?

    /// `{"keeper","displayName","zoneBefore","zone","deleted":[{"uniqueName","displayName"}],
    /// "kept":[{"uniqueName","why"}],"tagsAdded":[…],"ratings":[{"author","before","after","from"}],
    /// "capture":{"before","after","source","from"}|null,"title":{"value","from"}|null,
    /// "description":{"value","from"}|null}`.
    public var json: JSONValue {
        .object([
            ("keeper", .string(keeper)), ("displayName", .string(keeperName)), ("zoneBefore", .string(zoneBefore)),
            ("zone", .string(zone)),
            (
                "deleted",
                .array(
                    deleted.map {
                        .object([("uniqueName", .string($0.uniqueName)), ("displayName", .string($0.displayName))])
                    }
                )
            ),
            ("kept", .array(kept.map { .object([("uniqueName", .string($0.uniqueName)), ("why", .string($0.why))]) })),
            ("tagsAdded", .array(tagsAdded.map(JSONValue.string))),
            (
                "ratings",
                .array(
                    ratings.map {
                        .object([
                            ("author", $0.author.map(JSONValue.string) ?? .null),
                            ("before", $0.before.map(JSONValue.int) ?? .null), ("after", .int($0.after)),
                            ("from", .string($0.from))
                        ])
                    })
            ),
            (
                "capture",
                capture.map {
                    .object([
                        ("before", $0.before.map(JSONValue.string) ?? .null), ("after", .string($0.after)),
                        ("source", .string($0.source)), ("from", .string($0.from))
                    ])
                } ?? .null
            ),
            ("title", title.map { .object([("value", .string($0.value)), ("from", .string($0.from))]) } ?? .null),
            (
                "description",
                description.map { .object([("value", .string($0.value)), ("from", .string($0.from))]) } ?? .null
            )
        ])
    }
}

/// What `photos duplicates --resolve` did to every group.
public struct DuplicateResolveReport: Sendable {
    /// The groups resolved, in the order given.
    public var groups: [DuplicateResolution] = []
    /// The groups left whole, by keeper uniqueName, with why (nothing this library may delete).
    public var skipped: [(keeper: String, why: String)] = []
    /// The history token of the one transaction (nil: nothing changed, or a dry run).
    public var token: Int64?
    /// Originals no row references any more that could not be removed after the commit.
    public var filesLeft: [FileLeftInPlace] = []
    /// True for `--dry-run`.
    public var dryRun = false

    /// The photos deleted.
    public var deletedCount: Int { groups.reduce(0) { $0 + $1.deleted.count } }
}

/// A `duplicates --resolve` that cannot run as planned (issue 27 item 3): nothing was changed.
public enum DuplicateResolveError: Error, Equatable, CustomStringConvertible {
    /// The keeper of a group was deleted after the groups were found.
    case keeperGone(keeper: String, displayName: String)

    public var description: String {
        switch self {
        case let .keeperGone(keeper, displayName):
            return
                "the keeper \(keeper) (\(displayName)) of a duplicate group was deleted meanwhile; nothing was changed (run 'photos duplicates' again)"
        }
    }
}

/// The rank of a capture-time source for `duplicates --resolve` (issue 27 item 3), smaller is
/// better: a time set by hand (`manual`), then EXIF DateTimeOriginal (`exif`, with or without
/// `+gps-offset`), DateTimeDigitized, DateTime, then the container's or a sidecar's creation time
/// (`quicktime-creationdate`, `creation-time`, `xmp`, `json`), the GPS time, and last the
/// file's modification time and no time at all: the order `Importer.captureTime` reads a
/// still's sources in, taking the first that has a value (a video has no EXIF: its container
/// times come first there, and rank the same here).
public enum CaptureSourceRank {
    /// 0…7 (7: no capture time).
    public static func rank(_ source: String?, hasTime: Bool) -> Int {
        guard hasTime, let source else { return 7 }
        let base = source.hasSuffix("+gps-offset") ? String(source.dropLast("+gps-offset".count)) : source
        switch base {
        case CaptureTime.manualSource: return 0
        case "exif": return 1
        case "exif-digitized": return 2
        case "exif-datetime": return 3
        case "quicktime-creationdate", "creation-time", "xmp", "json": return 4
        case "gps": return 5
        default: return 6
        }
    }
}

extension Library {
    /// `photos duplicates --resolve` (issue 27 item 3): for each group, the keeper (its first
    /// member) takes from the members that are deleted the union of their tags (the same-named
    /// tag of the keeper's zone, created when absent: no relationship crosses zones), their
    /// ratings (one per author: a rating by an author the keeper has none from is added; when
    /// two members have one by the same author the later wins, by the rule sync applies to the
    /// rating's `value` — `ratingValueStamps`), and the earliest capture time of the best source
    /// when that source ranks above the keeper's (`CaptureSourceRank`); then those members are
    /// deleted as `delete` deletes them (`deletePhotoRecording`: the same rows and tombstones;
    /// originals no row references removed after the commit).
    ///
    /// Zones (a photo is in exactly one): the keeper stays in its zone, except that a keeper of
    /// the private default zone joins the share of the members deleted when they are all in one
    /// share this library owns (as `share add` moves it), so that the share's participants keep
    /// the picture. A member is deleted only when it is in the keeper's zone (after that move)
    /// or in the default zone while the keeper is in a zone of this library; a member in another
    /// share stays (deleting it would take the picture from that share's participants), and so
    /// does every member of a group whose keeper is in a zone this library may not write (a
    /// share shared with it read-only: `checkSharedZoneWrites`, the rule every write follows).
    ///
    /// Everything is one write transaction with one history transaction (context
    /// `duplicates --resolve`, author `duplicates` unless `--author`), so a peer's `sync`
    /// carries the resolution; in a dry run it is rolled back and no file is removed.
    /// - Parameters:
    ///   - groups: the groups, as `findDuplicates` found them, keeper first.
    ///   - author: the history author.
    /// - Returns: what changed per group.
    /// - Throws: `DuplicateResolveError.keeperGone` when a keeper was deleted meanwhile (nothing
    ///   changes), `LibraryError.busy`, `OriginalRemovalError` (`checkRemovable`), the store's error.
    public func resolveDuplicates(_ groups: [DuplicateGroup], author: HistoryAuthor) throws -> DuplicateResolveReport {
        var report = DuplicateResolveReport()
        report.dryRun = isDryRun
        let references: [String] = try write {
            var history = HistoryWriter(self, author: author, context: .duplicatesResolve)
            var refs: [String] = []
            for group in groups {
                try resolveGroup(group, history: &history, refs: &refs, report: &report)
            }
            try checkRemovable(refs)
            report.token = try history.commit()
            return refs
        }
        if report.dryRun { report.token = nil }
        report.filesLeft = removeUnreferencedFilesSayingWhy(references).left
        return report
    }

    private func resolveGroup(
        _ group: DuplicateGroup, history: inout HistoryWriter, refs: inout [String],
        report: inout DuplicateResolveReport
    ) throws {
        let keeperRecord = group.keeper
        guard let at = try catalogStore.photoLocation(keeperRecord.rowID), at.uniqueName == keeperRecord.uniqueName
        else {
            throw DuplicateResolveError.keeperGone(
                keeper: keeperRecord.uniqueName, displayName: keeperRecord.displayName)
        }
        var keeper = PhotoKey(rowID: keeperRecord.rowID, uniqueName: at.uniqueName, zone: at.zone, scope: at.scope)
        var resolution = DuplicateResolution(
            keeper: keeper.uniqueName, keeperName: keeperRecord.displayName, zoneBefore: keeper.zone, zone: keeper.zone)
        do {
            try checkSharedZoneWrites([keeper.zone], context: .duplicatesResolve)
        } catch {
            report.skipped.append((keeper.uniqueName, "the keeper is in a share this library may not change: \(error)"))
            return
        }
        var others: [(record: PhotoRecord, key: PhotoKey)] = []
        for member in group.members.dropFirst() {
            let p = member.photo
            guard let loc = try catalogStore.photoLocation(p.rowID), loc.uniqueName == p.uniqueName else {
                resolution.kept.append((p.uniqueName, "deleted meanwhile"))
                continue
            }
            others.append((p, PhotoKey(rowID: p.rowID, uniqueName: loc.uniqueName, zone: loc.zone, scope: loc.scope)))
        }
        // The share the keeper may join: the one share (ours) of the members outside the
        // default zone, when the keeper is in the default zone and may move there.
        let defaultZone = ZoneID.default.rawValue
        let shareZones = Set(others.map(\.key.zone).filter { $0 != defaultZone })
        if keeper.zone == defaultZone, shareZones.count == 1, let share = shareZones.first,
            others.contains(where: { $0.key.zone == share && $0.key.scope == .private }),
            (try? checkMovable(keeper, into: share, allowMove: false)) != nil
        {
            try movePhoto(keeper, to: share, history: &history)
            keeper.zone = share
            resolution.zone = share
        }
        var deleting: [(record: PhotoRecord, key: PhotoKey)] = []
        for other in others {
            if other.key.zone == keeper.zone || (other.key.zone == defaultZone && keeper.scope == .private) {
                deleting.append(other)
            } else if other.key.zone == defaultZone {
                resolution.kept.append(
                    (
                        other.key.uniqueName,
                        "this library's own copy in the default zone, while the keeper is in share \(keeper.zone) shared with this library"
                    ))
            } else {
                resolution.kept.append(
                    (
                        other.key.uniqueName,
                        "in share \(other.key.zone) while the keeper is in \(keeper.zone == defaultZone ? "the default zone" : "share \(keeper.zone)"): deleting it would take the picture from that share"
                    ))
            }
        }
        guard !deleting.isEmpty else {
            if resolution.zone != resolution.zoneBefore {
                report.groups.append(resolution)
            } else {
                report.skipped.append(
                    (keeper.uniqueName, resolution.kept.map { "\($0.uniqueName): \($0.why)" }.joined(separator: "; ")))
            }
            return
        }
        try mergeTags(into: keeper, from: deleting.map(\.key), history: &history, resolution: &resolution)
        try mergeRatings(into: keeper, from: deleting.map(\.key), history: &history, resolution: &resolution)
        try mergeCaptureTime(into: keeper, from: deleting.map(\.key), history: &history, resolution: &resolution)
        try mergeText(into: keeper, from: deleting.map(\.key), history: &history, resolution: &resolution)
        for other in deleting {
            refs += try deletePhotoRecording(other.key.rowID, history: &history)
            resolution.deleted.append((other.key.uniqueName, other.record.displayName))
        }
        report.groups.append(resolution)
    }

    /// Links the keeper to the same-named tag of its zone of every tag of `members` it lacks.
    private func mergeTags(
        into keeper: PhotoKey, from members: [PhotoKey], history: inout HistoryWriter,
        resolution: inout DuplicateResolution
    ) throws {
        var have = try catalogStore.tags(ofPhoto: keeper.rowID).map(\.name)
        var linked = false
        // By name, whatever order the members come in.
        var names: [String] = []
        for member in members { names += try catalogStore.tags(ofPhoto: member.rowID).map(\.name) }
        for name in names.sorted() where !have.contains(where: { TagName.sameTag($0, name) }) {
            let target = try findOrCreateTag(named: name, zone: keeper.zone, history: &history)
            try catalogStore.link(photo: keeper.rowID, tag: target.rowID)
            have.append(target.name)
            resolution.tagsAdded.append(target.name)
            linked = true
        }
        if linked { history.update(.photo(uniqueName: keeper.uniqueName), ["tags"], zone: keeper.zone) }
    }

    /// Gives the keeper one rating per author of the ratings of it and `members`: the value of
    /// the latest (`ratingValueStamps`). Anonymous ratings (an XMP sidecar's or embedded
    /// `xmp:Rating`, authorless) count as one author: a member's later anonymous value replaces
    /// that of the keeper's latest anonymous rating (a keeper from before schema 5 may hold
    /// several; the others stay), and the change is reported as every other is.
    private func mergeRatings(
        into keeper: PhotoKey, from members: [PhotoKey], history: inout HistoryWriter,
        resolution: inout DuplicateResolution
    ) throws {
        let own = try catalogStore.ratings(ofPhoto: keeper.rowID)
        var theirs: [(rating: StoredRating, from: String)] = []
        for member in members {
            theirs += try catalogStore.ratings(ofPhoto: member.rowID).map { ($0, member.uniqueName) }
        }
        guard !theirs.isEmpty else { return }
        let stamps = try ratingValueStamps(own + theirs.map(\.rating))
        let least = SyncStamp(time: "", library: "")
        var changed = false
        let authors = Set(theirs.map(\.rating.author)).sorted { ($0 ?? "") < ($1 ?? "") }
        for author in authors {
            let candidates = theirs.filter { $0.rating.author == author }
            guard
                let best = candidates.max(by: {
                    (stamps[$0.rating.uuid] ?? least, $1.from) < (stamps[$1.rating.uuid] ?? least, $0.from)
                })
            else { continue }
            let mine = own.filter { $0.author == author }
            if mine.isEmpty {
                guard let value = RatingValue(rawValue: best.rating.value) else { continue }
                let uuid = newObjectUUID()
                _ = try catalogStore.insertRating(uuid: uuid, photo: keeper.rowID, value: value, author: author)
                history.insert(.rating(uuid: uuid), zone: keeper.zone)
                resolution.ratings.append((author, nil, value.rawValue, best.from))
                changed = true
            } else if let current = mine.max(by: {
                (stamps[$0.uuid] ?? least, $0.id) < (stamps[$1.uuid] ?? least, $1.id)
            }),
                stamps[current.uuid] ?? least < stamps[best.rating.uuid] ?? least, current.value != best.rating.value,
                let value = RatingValue(rawValue: best.rating.value)
            {
                try catalogStore.setValue(ofRating: current.id, to: value)
                history.update(.rating(uuid: current.uuid), ["value"], zone: keeper.zone)
                resolution.ratings.append((author, current.value, value.rawValue, best.from))
                changed = true
            }
        }
        if changed { history.update(.photo(uniqueName: keeper.uniqueName), ["ratings"], zone: keeper.zone) }
    }

    /// When each rating's value was last set, as sync decides which of two values wins (SYNC.md
    /// "Conflict rule"; `SyncReconciler`): the stamp of the value sync last recorded when the
    /// rating still has that value, else this library's newest history timestamp of the rating
    /// (outside `sync` transactions) with this library's id. A rating that neither names counts
    /// as oldest.
    /// - Returns: rating uuid → stamp.
    /// - Throws: the store's error.
    func ratingValueStamps(_ ratings: [StoredRating]) throws -> [String: SyncStamp] {
        let me = try syncStore.syncState().libraryID
        let uuids = ratings.map(\.uuid)
        var recorded: [String: SyncEntry] = [:]
        for entry in try syncStore.syncEntries(.rating, uuids) where entry.attribute == "value" {
            if let known = recorded[entry.objectID], entry.stamp < known.stamp { continue }
            recorded[entry.objectID] = entry
        }
        let times = try syncStore.newestHistoryTimestamps(
            entity: HistoryEntity.rating.rawValue, objectIDs: uuids, excludingContext: HistoryContext.sync.rawValue)
        var stamps: [String: SyncStamp] = [:]
        for rating in ratings {
            if let entry = recorded[rating.uuid], entry.value.flatMap({ Int($0) }) == rating.value {
                stamps[rating.uuid] = entry.stamp
            } else {
                stamps[rating.uuid] = SyncStamp(time: times[rating.uuid] ?? "", library: me)
            }
        }
        return stamps
    }

    /// Gives the keeper the title and the description of the first member (in the group's
    /// order) that has one, each only when the keeper has none (issue 27 item 3).
    private func mergeText(
        into keeper: PhotoKey, from members: [PhotoKey], history: inout HistoryWriter,
        resolution: inout DuplicateResolution
    ) throws {
        guard let mine = try catalogStore.photo(uniqueName: keeper.uniqueName),
            mine.title == nil || mine.description == nil
        else { return }
        var (title, description) = (mine.title, mine.description)
        for member in members {
            guard let p = try catalogStore.photo(uniqueName: member.uniqueName) else { continue }
            if title == nil, let t = p.title {
                title = t
                resolution.title = (t, member.uniqueName)
            }
            if description == nil, let d = p.description {
                description = d
                resolution.description = (d, member.uniqueName)
            }
        }
        guard title != mine.title || description != mine.description else { return }
        try metadataStore.setText(ofPhoto: keeper.rowID, title: title, description: description)
        history.update(.photo(uniqueName: keeper.uniqueName), SyncEntity.textAttributes, zone: keeper.zone)
    }

    /// Gives the keeper the earliest capture time of the members whose source ranks best, when
    /// that rank is above the keeper's (`CaptureSourceRank`).
    private func mergeCaptureTime(
        into keeper: PhotoKey, from members: [PhotoKey], history: inout HistoryWriter,
        resolution: inout DuplicateResolution
    ) throws {
        guard let mine = try catalogStore.photo(uniqueName: keeper.uniqueName) else { return }
        let myRank = CaptureSourceRank.rank(mine.captureSource, hasTime: mine.captureDate != nil)
        var best: (rank: Int, instant: Double, photo: StoredPhoto)?
        for member in members {
            guard let p = try catalogStore.photo(uniqueName: member.uniqueName), let local = p.captureDate else {
                continue
            }
            let rank = CaptureSourceRank.rank(p.captureSource, hasTime: true)
            let instant =
                CaptureTime(local: local, offsetMinutes: p.captureOffset, source: p.captureSource ?? "").instant
                ?? .infinity
            guard rank < myRank else { continue }
            if let b = best, (b.rank, b.instant) <= (rank, instant) { continue }
            best = (rank, instant, p)
        }
        guard let chosen = best?.photo, let local = chosen.captureDate else { return }
        let source = chosen.captureSource ?? ""
        try metadataStore.setCaptureTime(
            ofPhoto: keeper.rowID, local: local, offsetMinutes: chosen.captureOffset, source: source)
        history.update(
            .photo(uniqueName: keeper.uniqueName), ["captureDate", "captureOffset", "captureSource"], zone: keeper.zone)
        resolution.capture = (
            mine.captureDate.map {
                CaptureTime.iso(local: $0, offsetMinutes: mine.captureOffset, source: mine.captureSource)
            },
            CaptureTime.iso(local: local, offsetMinutes: chosen.captureOffset, source: source), source,
            chosen.uniqueName
        )
    }
}
