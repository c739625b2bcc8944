/// A refusal of a maintenance command (`purge`, `dedupe-tags`, `history`), typed so that
/// callers match on what happened. It carries no exit status or wording: the CLI's
/// `ErrorReporting` (its `// MARK: maintenance` block) decides both.
public enum MaintenanceError: Error, Equatable, CustomStringConvertible {
    /// No share or zone has this id, and none has it as a prefix of at least 4 characters
    /// (the argument as typed).
    case zoneNotFound(String)
    /// The prefix (as typed) matches several zones: the first candidates, sorted (at most 11,
    /// so that "and more" can be told).
    case zonePrefixAmbiguous(String, candidates: [String])
    /// `purge` of the default zone, which is never purged: its photos are deleted with
    /// `photos delete` (SPEC §5 purge).
    case defaultZoneNotPurgeable
    /// `history consumers --remove` of a consumer that is not registered.
    case consumerNotFound(String)

    public var description: String {
        switch self {
        case .zoneNotFound(let argument): return "no share or zone '\(argument)'"
        case let .zonePrefixAmbiguous(argument, candidates):
            return "share prefix '\(argument)' is ambiguous: \(candidates)"
        case .defaultZoneNotPurgeable: return "the default zone cannot be purged"
        case .consumerNotFound(let name): return "no history consumer '\(name)'"
        }
    }
}
