import Foundation
import PhotosCore
import PhotosFiles

/// `photos thumbnail PHOTO -o FILE`.
enum ThumbnailCommand: Command {
    static let configuration = CommandConfiguration(
        path: ["thumbnail"],
        abstract: "Write a photo's thumbnail JPEG to a file (or - for stdout).")

    struct Options: ParsableOptions {
        var photo = ""
        var output = ""

        static var options: [Option<Options>] {
            [
                .required(
                    \.output, "--output", "-o", value: "FILE", help: "Where to write the JPEG; - writes to stdout.")
            ]
        }
        static var arguments: [Argument<Options>] { [.one(\.photo, "photo", help: PhotoArguments.one)] }
    }

    static func run(_ options: Options, _ ctx: CommandContext) throws {
        let output = options.output
        let library = try ctx.openLibraryForReading()
        let photo = try ctx.resolvePhoto(options.photo, in: library)
        let data = try library.thumbnailData(of: photo)
        if output == "-" {
            ctx.console.write(data)
            return
        }
        // A temporary file beside the destination, renamed into place: 73 when it cannot be
        // created, 74 on a write error.
        _ = try data.withUnsafeBytes { try AtomicFile.write($0, to: output) }
        if !ctx.global.quiet && !ctx.global.json {
            ctx.console.note("wrote \(photo.thumbnailWidth)×\(photo.thumbnailHeight) thumbnail to \(output)")
        }
        if ctx.global.json {
            ctx.console.printJSON(
                .object([
                    ("path", .string(output)), ("width", .int(photo.thumbnailWidth)),
                    ("height", .int(photo.thumbnailHeight)), ("bytes", .int(data.count))
                ]))
        }
    }
}
