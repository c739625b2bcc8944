// TEMPORARY stub until branch originals is merged (not committed).
public enum OriginalRole: String, CaseIterable, Sendable {
    case primary
    case raw
    case pairedVideo
}
