import Foundation

/// A progress bar on stderr (`importing [=====>    ] 12/40`), redrawn at most ten times a
/// second, and erased by `finish()`.
final class ProgressBar {
    private let label: String
    private let enabled: Bool
    private let draw: (String) -> Void
    private var lastDraw = Date.distantPast
    private var drawn = false

    init(label: String, enabled: Bool, draw: @escaping (String) -> Void) {
        self.label = label
        self.enabled = enabled
        self.draw = draw
    }

    /// Shows `done` of `total` items.
    func update(done: Int, total: Int) {
        guard enabled, total > 0 else { return }
        let now = Date()
        guard done == total || now.timeIntervalSince(lastDraw) > 0.1 else { return }
        lastDraw = now
        let width = 30
        let filled = width * done / total
        let bar =
            String(repeating: "=", count: filled) + (filled < width ? ">" : "")
            + String(repeating: " ", count: max(0, width - filled - 1))
        draw("\r\(label) [\(bar)] \(done)/\(total)")
        drawn = true
    }

    /// Erases the bar (when it was drawn).
    func finish() {
        if drawn { draw("\r\u{1B}[K") }
        drawn = false
    }
}
