import Foundation
import PhotosCore

/// Help for the positionals that name photos.
enum PhotoArguments {
    static let one = "A uniqueName, or an unambiguous prefix of at least 4 characters; - reads it from stdin."
    static let many =
        "uniqueNames or unambiguous prefixes of at least 4 characters; - reads them from stdin, one per line."

    /// The most stdin may hold for `-`, in bytes, and the longest line: photo names are short,
    /// so a larger input is a mistake (a binary file piped in), refused before it fills memory.
    static let stdinLimit = 64 << 20
    static let lineLimit = 4096
}

extension CommandContext {
    /// `words` with each `-` replaced by the photo names read from stdin: one per line, trimmed
    /// of white space, blank lines skipped (`photos list --json | jq -r .uniqueName | photos tag
    /// add Y -`). An empty stdin gives no names. stdin is read once.
    /// - Throws: `UsageError` (64) when stdin is larger than 64 MiB or a line longer than 4096
    ///   bytes, `CommandFailure` 74 when it cannot be read.
    func photoArguments(_ words: [String]) throws -> [String] {
        guard words.contains("-") else { return words }
        let fromStdin = try readStdinNames()
        return words.flatMap { $0 == "-" ? fromStdin : [$0] }
    }

    /// Resolves photo arguments (`-` reads names from stdin), every one before anything changes.
    func resolvePhotos(_ words: [String], in library: Library) throws -> [PhotoRecord] {
        try photoArguments(words).map(library.resolvePhoto)
    }

    /// Resolves one photo argument; `-` reads exactly one name from stdin.
    /// - Throws: `UsageError` when stdin holds no name or more than one.
    func resolvePhoto(_ word: String, in library: Library) throws -> PhotoRecord {
        let names = try photoArguments([word])
        guard names.count == 1 else {
            throw UsageError("'-' reads one photo from stdin, and stdin held \(names.count)")
        }
        return try library.resolvePhoto(names[0])
    }

    private func readStdinNames() throws -> [String] {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = read(0, &buffer, buffer.count)
            if n < 0 {
                if errno == EINTR { continue }
                throw CommandFailure(
                    .ioError, "cannot read photo names from stdin: \(String(cString: strerror(errno)))")
            }
            if n == 0 { break }
            bytes += buffer.prefix(n)
            if bytes.count > PhotoArguments.stdinLimit {
                throw UsageError(
                    "stdin holds more than \(PhotoArguments.stdinLimit >> 20) MiB: not a list of photo names")
            }
        }
        var names: [String] = []
        for line in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true) {
            guard line.count <= PhotoArguments.lineLimit else {
                throw UsageError("a line of stdin is longer than \(PhotoArguments.lineLimit) bytes: not a photo name")
            }
            let name = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            if !name.isEmpty { names.append(name) }
        }
        return names
    }
}
