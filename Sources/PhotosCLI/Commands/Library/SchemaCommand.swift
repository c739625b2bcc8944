import Foundation
import PhotosCore

/// `photos schema`: the schema version and its DDL.
enum SchemaCommand: Command {
    static let configuration = CommandConfiguration(
        path: ["schema"],
        abstract: "Print the library's schema version and DDL.")

    static func run(_ options: NoOptions, _ ctx: CommandContext) throws {
        let library = try ctx.openLibraryForReading()
        let version = try library.schemaVersion()
        let ddl = try library.schemaSQL()
        if ctx.global.json {
            ctx.console.printJSON(
                .object([("schemaVersion", .int(version)), ("statements", .array(ddl.map(JSONValue.string)))]))
        } else {
            ctx.console.print(try library.schemaHeader())
            for statement in ddl { ctx.console.print(statement + ";") }
        }
    }
}
