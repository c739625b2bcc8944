import Foundation

/// A progress line on stderr for long work (`importing [=====>     ] 120/400  31.2/s  14.6 MiB
/// ETA 0:09`): the count, the rate in items per second, the bytes when the work reports them
/// and the estimated time left, redrawn at most ten times a second and erased by `finish()`.
/// Lines printed while it shows (per-file errors, notes) go above it: `Console` erases the
/// line, prints, and redraws it (`suspend`/`resume`), so a message never lands on the bar.
final class ProgressBar {
    private let label: String
    /// False when progress is not shown (not a terminal, `TERM=dumb`, `--quiet`): every call
    /// does nothing.
    let enabled: Bool
    private let draw: (String) -> Void
    private let clock: () -> Date
    private let started: Date
    private var lastDraw = Date.distantPast
    private var drawn = false
    private var line = ""

    /// - Parameters:
    ///   - clock: the time source (tests pass a fixed sequence; the rate and ETA come from it).
    init(label: String, enabled: Bool, clock: @escaping () -> Date = Date.init, draw: @escaping (String) -> Void) {
        self.label = label
        self.enabled = enabled
        self.clock = clock
        self.draw = draw
        self.started = clock()
    }

    /// Shows `done` of `total` items, and `bytes` processed so far when known. With `totalKnown`
    /// false, `total` is only what was found so far (an import still walking its folders): the
    /// line says so and shows no bar and no ETA.
    func update(done: Int, total: Int, bytes: Int64? = nil, totalKnown: Bool = true) {
        guard enabled, total > 0 else { return }
        let now = clock()
        guard (totalKnown && done == total) || now.timeIntervalSince(lastDraw) > 0.1 else { return }
        lastDraw = now
        line = ProgressBar.render(
            label: label, done: done, total: total, bytes: bytes, elapsed: now.timeIntervalSince(started),
            totalKnown: totalKnown)
        draw("\r" + line + "\u{1B}[K")
        drawn = true
    }

    /// The text of the line (without the carriage return and erase): `label [bar] done/total`,
    /// then the rate once a tenth of a second has passed, the bytes, and the ETA. With
    /// `totalKnown` false: `label done/total+ found so far`, the rate and the bytes (a bar or an
    /// ETA against a total still growing would be a guess).
    static func render(
        label: String, done: Int, total: Int, bytes: Int64?, elapsed: Double, totalKnown: Bool = true
    ) -> String {
        if !totalKnown {
            var text = "\(label) \(done)/\(total)+ found so far"
            if elapsed >= 0.1 {
                let rate = Double(done) / elapsed
                text += "  " + String(format: rate >= 10 ? "%.0f/s" : "%.1f/s", rate)
            }
            if let bytes { text += "  " + TerminalText.bytes(bytes) }
            return text
        }
        let width = 24
        let filled = width * min(done, total) / max(total, 1)
        let bar =
            String(repeating: "=", count: filled) + (filled < width ? ">" : "")
            + String(repeating: " ", count: max(0, width - filled - 1))
        var text = "\(label) [\(bar)] \(done)/\(total)"
        if elapsed >= 0.1 {
            let rate = Double(done) / elapsed
            text += "  " + String(format: rate >= 10 ? "%.0f/s" : "%.1f/s", rate)
            if let bytes { text += "  " + TerminalText.bytes(bytes) }
            if rate > 0 && done < total {
                text += "  ETA " + duration(Double(total - done) / rate)
            }
        } else if let bytes {
            text += "  " + TerminalText.bytes(bytes)
        }
        return text
    }

    /// `m:ss`, or `h:mm:ss` from an hour on.
    static func duration(_ seconds: Double) -> String {
        let s = Int(seconds.rounded(.up))
        return s >= 3600
            ? String(format: "%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60) : String(format: "%d:%02d", s / 60, s % 60)
    }

    /// Erases the line before something is printed above it.
    func suspend() {
        if drawn { draw("\r\u{1B}[K") }
    }

    /// Draws the line again after something was printed above it.
    func resume() {
        if drawn { draw("\r" + line + "\u{1B}[K") }
    }

    /// Erases the bar (when it was drawn).
    func finish() {
        if drawn { draw("\r\u{1B}[K") }
        drawn = false
    }
}
