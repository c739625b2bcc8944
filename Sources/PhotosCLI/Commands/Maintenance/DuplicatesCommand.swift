import Foundation
import PhotosCore

/// `photos duplicates [filters] [--threshold same|similar|N]` (issue 27 item 2).
enum DuplicatesCommand: Command {
    static let configuration = CommandConfiguration(
        path: ["duplicates"],
        abstract: "Find photos that are the same picture in other bytes (near-duplicates), with the one to keep.",
        discussion: """
            Compares the perceptual signatures import records (a 64-bit DCT hash of the picture,
            Zauner 2010, and its mean colour): a recompressed, resized or converted copy, or one
            cropped by a few percent, is the same picture at --threshold same (the default);
            similar also takes light edits; N is a Hamming distance 0-32. Each group lists its
            members, their distance to the first, the suggested keeper and why: more pixels, then
            RAW over a camera JPEG over other formats, then the earliest capture time, then the
            earliest import. Near-uniform or tiny pictures are never grouped. Photos imported
            before signatures existed have none: 'photos thumbnails --rebuild' computes them.
            Reads only. With --json, one group object per line.
            """,
        examples: [
            "photos duplicates",
            "photos duplicates --threshold similar --tag holidays",
            "photos duplicates --json | jq -r .keeper"
        ])

    struct Options: ParsableOptions {
        var selection = PhotoFilterOptions()
        var threshold: DuplicateThreshold?

        static var options: [Option<Options>] {
            PhotoFilterOptions.options.map { $0.lifted(\.selection) } + [
                .value(
                    \.threshold, "--threshold", value: "LEVEL",
                    help: "same, similar, or a Hamming distance 0-32 between signatures.", default: "same",
                    parser: ValueParser { text, name in
                        guard let threshold = DuplicateThreshold(argument: text) else {
                            throw UsageError("\(name) takes same, similar or a number 0-32, not '\(text)'")
                        }
                        return threshold
                    })
            ]
        }

        func validate() throws { try selection.validate() }
    }

    static func run(_ options: Options, _ ctx: CommandContext) throws {
        let filter = options.selection.filter
        let library = try ctx.openLibraryForReading()
        if let share = filter.share { _ = try library.resolveShare(share) }
        let report = try library.findDuplicates(matching: filter, threshold: options.threshold ?? .same)
        let t = TerminalText.self
        if report.withoutSignature > 0 {
            ctx.console.note(
                "\(t.plural(report.withoutSignature, "photo")) of \(report.photos) have no signature and were not compared; 'photos thumbnails --rebuild' computes them"
            )
        }
        if ctx.global.json {
            for group in report.groups { ctx.console.printJSON(group.json) }
            return
        }
        for (n, group) in report.groups.enumerated() {
            if n > 0 { ctx.console.print("") }
            ctx.console.print(
                "group \(n + 1): \(group.members.count) photos, distance \(group.distance); keep \(group.keeper.uniqueName): \(group.reason)"
            )
            for (i, member) in group.members.enumerated() {
                let p = member.photo
                ctx.console.print(
                    "  \(i == 0 ? "keep" : "    ")  \(p.uniqueName)  \(t.printable(p.displayName))  \(p.width)×\(p.height) \(p.format.rawValue)  distance \(member.distance)"
                )
            }
        }
        if !ctx.global.quiet {
            let grouped = report.groups.reduce(0) { $0 + $1.members.count }
            ctx.console.note(
                "\(t.plural(report.groups.count, "group")) of \(t.plural(grouped, "photo")) at --threshold \((options.threshold ?? .same).name); \(report.lowInformation) near-uniform or tiny not compared"
            )
        }
    }
}
