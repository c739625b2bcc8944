import CExempi
import Foundation

/// Keywords (flat and hierarchical) and the photo's identity as `XMPSidecar.parse` reads them.
///
/// Hierarchical keywords become one tag named by the path with `/` between the levels
/// (`Places/France/Paris`), from
/// - `lr:hierarchicalSubject` (namespace `http://ns.adobe.com/lightroom/1.0/`, an `rdf:Bag`
///   whose items separate the levels with `|`: `Places|France|Paris`), written by Lightroom,
///   darktable, digiKam and `photos export`;
/// - `digiKam:TagsList` (namespace `http://www.digikam.org/ns/1.0/`, an `rdf:Seq` whose items
///   separate the levels with `/`: `Places/France/Paris`), written by digiKam;
/// - `MicrosoftPhoto:LastKeywordXMP` (`/`) and `mediapro:CatalogSets` (`|`), which digiKam
///   writes beside its own and Windows Photo Gallery and Media Pro write alone.
///
/// Levels are trimmed of white space and empty levels dropped. These writers also list the
/// hierarchy flattened: the levels as separate `dc:subject` keywords (`Places`, `France`,
/// `Paris`), and the ancestors as paths of their own (`Places`, `Places|France`). Both are
/// projections of the one path, not tags of their own, so a `dc:subject` keyword equal to a
/// level of some path, and a path that is an ancestor of another path of the same packet, are
/// not imported. A one-level hierarchical keyword that is no ancestor (`Paris` beside
/// `Places|France|Paris`) is a flat tag: Lightroom lists every keyword in
/// `lr:hierarchicalSubject`, and so does `photos export` when a photo has a tag with `/`, which
/// keeps a flat tag `Paris` next to `Places/France/Paris` through the round trip.
extension XMPSidecar {
    /// Lightroom's namespace (`lr:`), Adobe Lightroom Classic's XMP.
    static let lightroomNS = "http://ns.adobe.com/lightroom/1.0/"
    /// digiKam's namespace (`digiKam:`), digiKam's XMP schema.
    static let digiKamNS = "http://www.digikam.org/ns/1.0/"
    /// Windows Photo Gallery's namespace (`MicrosoftPhoto:`): `LastKeywordXMP`, a Bag of
    /// `/`-separated paths, which digiKam writes too.
    static let microsoftPhotoNS = "http://ns.microsoft.com/photo/1.0/"
    /// Phase One Media Pro's namespace (`mediapro:`): `CatalogSets`, a Bag of `|`-separated
    /// paths, which digiKam writes too.
    static let mediaProNS = "http://ns.iview-multimedia.com/mediapro/1.0/"

    /// The keywords of a parsed packet as tag names to be: `dc:subject`'s flat keywords that are
    /// not a level of a hierarchical keyword, then the hierarchical keywords as `A/B/C` (ancestors
    /// of another listed path left out), each once, at most `limit`.
    /// - Returns: the keywords, and whether the packet has any of the three properties at all
    ///   (an empty `dc:subject` bag included: a file whose keywords were all removed).
    static func keywords(_ xmp: XmpPtr, limit: Int) -> (keywords: [String], present: Bool) {
        var present = false
        func list(_ ns: String, _ name: String) -> [String] {
            if xmp_has_property(xmp, ns, name) { present = true }
            return XMPToolkit.items(xmp, ns, name, limit: limit * 2)
        }
        let flat = list(dcNS, "subject").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        let paths =
            list(lightroomNS, "hierarchicalSubject").map { levels($0, separator: "|") }
            + list(digiKamNS, "TagsList").map { levels($0, separator: "/") }
            + list(microsoftPhotoNS, "LastKeywordXMP").map { levels($0, separator: "/") }
            + list(mediaProNS, "CatalogSets").map { levels($0, separator: "|") }
        let found = hierarchicalKeywords(flat: flat, paths: paths, limit: limit)
        return (exactTags(xmp, found: found, paths: paths, limit: limit) ?? found, present)
    }

    /// `photos:tags` (`XMPWriter.photosNamespace`, a Bag `photos export` writes when a tag is an
    /// ancestor of another, `Places` beside `Places/France`: the standard lists cannot tell such
    /// a tag from the ancestor paths Lightroom and digiKam list, which are dropped) when it
    /// still agrees with the standard lists: it holds every keyword `found` there, and the rest
    /// of it are ancestors of their paths. A packet edited since by another tool (a keyword
    /// added, removed or renamed) no longer agrees, and `found` is used. Nil when absent or not
    /// agreeing.
    static func exactTags(_ xmp: XmpPtr, found: [String], paths: [[String]], limit: Int) -> [String]? {
        guard xmp_has_property(xmp, XMPWriter.photosNamespace, "tags") else { return nil }
        var exact: [String] = []
        var seen = Set<String>()
        for item in XMPToolkit.items(xmp, XMPWriter.photosNamespace, "tags", limit: limit) {
            let tag = item.trimmingCharacters(in: .whitespacesAndNewlines)
            if !tag.isEmpty, seen.insert(tag).inserted { exact.append(tag) }
        }
        var ancestors = Set<String>()
        for path in paths where path.count > 1 {
            for n in 1..<path.count { ancestors.insert(path[0..<n].joined(separator: "/")) }
        }
        let foundSet = Set(found)
        guard foundSet.isSubset(of: seen), exact.allSatisfy({ foundSet.contains($0) || ancestors.contains($0) })
        else { return nil }
        return exact
    }

    /// The levels of one hierarchical keyword, trimmed, empty ones dropped.
    static func levels(_ text: String, separator: Character) -> [String] {
        text.split(separator: separator).map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
            .filter { !$0.isEmpty }
    }

    /// The rule of this extension's overview over already-split keywords: `flat` in order
    /// without the levels and ancestors of the paths, then the one-level paths that are no
    /// ancestor, then each path of two or more levels that is no other's ancestor joined by `/`.
    static func hierarchicalKeywords(flat: [String], paths: [[String]], limit: Int) -> [String] {
        let deep = paths.filter { $0.count > 1 }
        let joined = deep.map { $0.joined(separator: "/") }
        var prefixes = Set<String>()
        for path in deep {
            for n in 1..<path.count { prefixes.insert(path[0..<n].joined(separator: "/")) }
        }
        let levelNames = Set(deep.joined())
        var result: [String] = []
        var seen = Set<String>()
        func add(_ keyword: String) {
            if result.count < limit, !keyword.isEmpty, seen.insert(keyword).inserted { result.append(keyword) }
        }
        for keyword in flat where !levelNames.contains(keyword) && !prefixes.contains(keyword) { add(keyword) }
        for path in paths where path.count == 1 && !prefixes.contains(path[0]) { add(path[0]) }
        for path in joined where !prefixes.contains(path) { add(path) }
        return result
    }

    /// `photos:uniqueName` when it is a UUID in its text form (RFC 9562 §4: 36 characters,
    /// hexadecimal digits and hyphens), as written; nil otherwise. Every uniqueName `photos`
    /// makes is one, so anything else in a sidecar is not this tool's identity and is ignored.
    static func readUniqueName(_ xmp: XmpPtr) -> String? {
        XMPToolkit.property(xmp, XMPWriter.photosNamespace, "uniqueName").flatMap(validUniqueName)
    }

    /// `text` trimmed, in upper case, when it is a UUID in its 36-character text form, else nil.
    /// A UUID's hexadecimal digits are case-insensitive (RFC 9562 §4), so `ebbe7434-…` names the
    /// same photo as `EBBE7434-…`; upper case is the form the library makes (`UUID().uuidString`),
    /// so a sidecar in another case neither takes a second photo's identity under a different
    /// spelling nor makes every prefix of it ambiguous.
    static func validUniqueName(_ text: String) -> String? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard trimmed.utf8.count == 36, let uuid = UUID(uuidString: trimmed) else { return nil }
        return uuid.uuidString
    }
}
