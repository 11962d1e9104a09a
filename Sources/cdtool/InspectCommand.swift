import ArgumentParser
import CDToolCore
import OpenCoreData

/// `cdtool inspect <store> [--model <path>]`: entities, row counts, metadata, model check.
struct InspectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Show a store's entities with row counts, its metadata, and whether a model fits it.",
        discussion:
            "Without --model, the model Core Data cached in the store is used, else one inferred from its tables. With --model, the exit code is 1 when the model does not fit the store. The exit code is 1 when the store's metadata is damaged."
    )

    @Argument(help: "The SQLite store file.")
    var store: String

    @Option(help: "A model (.xcdatamodeld, .xcdatamodel, .momd or .mom) to check against the store.")
    var model: String?

    func run() throws {
        try CommandSupport.run {
            let model = try model.map { try ModelFile.load(at: CommandSupport.url($0)) }
            let inspection = try StoreInspection.inspect(storeAt: CommandSupport.url(store), model: model)
            CommandSupport.output(inspection.text)
            if let damage = inspection.metadataDamage {
                // The report is printed, but a script must not take the store for sound.
                throw CDToolError(
                    "the store's metadata is damaged (\(damage))\(model == nil ? "" : "; the model was not checked against it")"
                )
            }
            if let compatibility = inspection.compatibility, !compatibility.isCompatible {
                throw CDToolError("the model does not fit the store")
            }
        }
    }
}
