import ArgumentParser
import CDToolCore
import OpenCoreData

/// `cdtool inspect <store> [--model <path>]`: entities, row counts, metadata, model check.
struct InspectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Show a store's entities with row counts, its metadata, and whether a model fits it.",
        discussion: "Without --model, the model Core Data cached in the store is used, else one inferred from its tables. With --model, the exit code is 1 when the model does not fit the store."
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
            if let compatibility = inspection.compatibility, !compatibility.isCompatible {
                throw CDToolError("the model does not fit the store")
            }
        }
    }
}
