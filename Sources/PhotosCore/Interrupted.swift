/// A command that commits in batches stopped by an error after committing some of them: `report`
/// says what was committed (and stays committed), `error` why it stopped (`LibraryError.busy`
/// when another process held the lock). Running the same command again continues where it
/// stopped. The CLI prints the report, then the error, and exits with the error's status.
public struct Interrupted<Report: Sendable>: Error {
    /// What was done and committed before the error.
    public var report: Report
    /// Why the command stopped.
    public var error: Error

    public init(report: Report, error: Error) {
        self.report = report
        self.error = error
    }
}
