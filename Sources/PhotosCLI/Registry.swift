import Foundation

/// Every command, in the order help lists them.
enum Registry {
    static let commands: [CommandDescriptor] = [
        CommandDescriptor(InitCommand.self), CommandDescriptor(SchemaCommand.self),
        CommandDescriptor(ImportCommand.self), CommandDescriptor(ListCommand.self),
        CommandDescriptor(ShowCommand.self), CommandDescriptor(ThumbnailCommand.self),
        CommandDescriptor(ThumbnailsCommand.self),
        CommandDescriptor(DateSetCommand.self), CommandDescriptor(DateShiftCommand.self),
        CommandDescriptor(GeotagCommand.self), CommandDescriptor(PlacesLoadCommand.self),
        CommandDescriptor(PlacesStatusCommand.self), CommandDescriptor(PlaceSetCommand.self),
        CommandDescriptor(PlaceClearCommand.self), CommandDescriptor(DescribeCommand.self),
        CommandDescriptor(DeleteCommand.self), CommandDescriptor(VerifyCommand.self),
        CommandDescriptor(TagListCommand.self), CommandDescriptor(TagAddCommand.self),
        CommandDescriptor(TagRemoveCommand.self), CommandDescriptor(TagDeleteCommand.self),
        CommandDescriptor(TagPruneCommand.self),
        CommandDescriptor(TagRenameCommand.self),
        CommandDescriptor(RateCommand.self), CommandDescriptor(RatingListCommand.self),
        CommandDescriptor(RatingDeleteCommand.self),
        CommandDescriptor(ShareCreateCommand.self), CommandDescriptor(ShareAddCommand.self),
        CommandDescriptor(ShareRemoveCommand.self),
        CommandDescriptor(ShareListCommand.self), CommandDescriptor(ShareShowCommand.self),
        CommandDescriptor(ShareInviteCommand.self), CommandDescriptor(ShareUninviteCommand.self),
        CommandDescriptor(ShareSetCommand.self), CommandDescriptor(ShareExportCommand.self),
        CommandDescriptor(SharePublishCommand.self),
        CommandDescriptor(ShareAcceptCommand.self), CommandDescriptor(ShareLeaveCommand.self),
        CommandDescriptor(ShareStopCommand.self),
        CommandDescriptor(IdentitySetCommand.self), CommandDescriptor(IdentityShowCommand.self),
        CommandDescriptor(IdentityClearCommand.self),
        CommandDescriptor(ExportCommand.self), CommandDescriptor(GalleryCommand.self),
        CommandDescriptor(DedupeTagsCommand.self), CommandDescriptor(DuplicatesCommand.self),
        CommandDescriptor(PurgeCommand.self),
        CommandDescriptor(HistoryCommand.self), CommandDescriptor(HistoryConsumersCommand.self),
        CommandDescriptor(HistoryCompactCommand.self), CommandDescriptor(MergeCommand.self),
        CommandDescriptor(SyncCommand.self), CommandDescriptor(SyncServeCommand.self),
        CommandDescriptor(StatsCommand.self),
        CommandDescriptor(BackupCommand.self), CommandDescriptor(RestoreCommand.self),
        CommandDescriptor(CatalogMoveCommand.self), CommandDescriptor(CatalogSetOriginalsCommand.self),
        CommandDescriptor(CompletionsCommand.self)
    ]

    /// The command named by the leading words of `words`, and how many words name it (the
    /// longest match: `history consumers` before `history`).
    static func find(_ words: [String]) -> (CommandDescriptor, Int)? {
        commands
            .filter { words.count >= $0.path.count && Array(words.prefix($0.path.count)) == $0.path }
            .max(by: { $0.path.count < $1.path.count })
            .map { ($0, $0.path.count) }
    }

    /// The commands of a family (`tag`): those whose first word is `group`.
    static func family(_ group: String) -> [CommandDescriptor] { commands.filter { $0.path.first == group } }
}
