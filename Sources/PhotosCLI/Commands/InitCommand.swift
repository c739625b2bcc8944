import Foundation
import PhotosCore

/// `photos init`: create the library or migrate it to the current schema; idempotent.
enum InitCommand {
    static let spec = CommandSpec(
        path: ["init"],
        abstract: "Create the library, or migrate it to this version's schema.",
        discussion: "Safe to run again: an up-to-date library is left as it is.",
        run: { _, ctx in
            let path = ctx.libraryPath
            let existed = Library.exists(at: path)
            let before: Int
            if existed {
                // Read the version first, so that the message says what was migrated.
                before = try Library(root: path, create: false, busyTimeout: ctx.wait, readOnly: true,
                                     acceptingOlderSchema: true).schemaVersion()
            } else {
                before = 0
            }
            let library: Library
            do {
                library = try Library(root: path, create: true, busyTimeout: ctx.wait)
            } catch let error where ExitStatus(for: error, libraryPath: path) == .noPermission && existed && before == Library.currentSchemaVersion {
                // Up to date: nothing to write, so a library this user may only read is fine.
                library = try Library(root: path, create: false, busyTimeout: ctx.wait, readOnly: true)
            } catch let error where ExitStatus(for: error, libraryPath: path) == .noPermission && existed && before < Library.currentSchemaVersion {
                throw PhotosError(.noPermission, "library \(path) has schema version \(before) and cannot be upgraded to \(Library.currentSchemaVersion) by this user (run 'photos init' as a user who can write it): \(Library.whatIsNotWritable(path))")
            }
            let version = try library.schemaVersion()
            if ctx.json {
                ctx.printJSON(.object([("library", .string(path)), ("created", .bool(!existed)),
                                       ("previousVersion", .int(before)), ("schemaVersion", .int(version))]))
            } else if !ctx.quiet {
                if !existed { ctx.print("Created library at \(path) (schema version \(version))") }
                else if before < version { ctx.print("Migrated library at \(path) from schema version \(before) to \(version)") }
                else { ctx.print("Library at \(path) is up to date (schema version \(version))") }
            }
            return .ok
        })
}

/// `photos schema`: the schema version and its DDL.
enum SchemaCommand {
    static let spec = CommandSpec(
        path: ["schema"],
        abstract: "Print the library's schema version and DDL.",
        run: { _, ctx in
            let library = try ctx.openLibraryForReading()
            let version = try library.schemaVersion()
            let ddl = try library.schemaSQL()
            if ctx.json {
                ctx.printJSON(.object([("schemaVersion", .int(version)), ("statements", .array(ddl.map(JSONValue.string)))]))
            } else {
                ctx.print(try library.schemaHeader())
                for statement in ddl { ctx.print(statement + ";") }
            }
            return .ok
        })
}
