import ArgumentParser
import CDToolCore
import OpenCoreData

extension ObjectDump.Format: ExpressibleByArgument {}

/// `cdtool dump <store>`: exports objects as JSON or CSV.
struct DumpCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dump",
        abstract: "Export a store's objects as JSON or CSV, relationships as object-ID URIs.",
        discussion:
            "Without --model, the model Core Data cached in the store is used, else one inferred from its tables. Progress goes to stderr."
    )

    @Argument(help: "The SQLite store file.")
    var store: String

    @Option(help: "The store's model (.xcdatamodeld, .xcdatamodel, .momd or .mom).")
    var model: String?

    @Option(help: "Only objects of this entity (and its subentities).")
    var entity: String?

    @Option(help: "Only objects matching this predicate, e.g. 'age > 30 AND name BEGINSWITH \"A\"' (needs --entity).")
    var predicate: String?

    @Option(help: "json or csv (csv needs --entity).")
    var format: ObjectDump.Format = .json

    func validate() throws {
        if predicate != nil && entity == nil {
            throw ValidationError("--predicate needs --entity")
        }
    }

    func run() throws {
        try CommandSupport.run {
            var dump = ObjectDump(storeURL: CommandSupport.url(store))
            dump.model = try model.map { try ModelFile.load(at: CommandSupport.url($0)) }
            dump.entityName = entity
            dump.predicate = predicate
            dump.format = format
            try dump.run(output: CommandSupport.output, progress: CommandSupport.report)
        }
    }
}
