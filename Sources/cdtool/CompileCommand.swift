import ArgumentParser
import CDToolCore
import OpenCoreData

/// `cdtool compile <model> --output <dir>`: Xcode's compiled model (`.momd` or `.mom`) for a model source.
struct CompileCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compile",
        abstract: "Compile a model as Xcode does: a .xcdatamodeld into Name.momd, a .xcdatamodel into Name.mom.",
        discussion: """
            The output loads with NSManagedObjectModel(contentsOf:) here and in Core Data: \
            Name.momd holds one Version.mom per model version and VersionInfo.plist naming the \
            current version and each version's entity hashes. An earlier output of the same \
            name in the directory is replaced.
            """
    )

    @Argument(help: "A model source: .xcdatamodeld bundle or .xcdatamodel folder.")
    var model: String

    @Option(help: "The directory to write Name.momd or Name.mom into (created if needed).")
    var output: String

    func run() throws {
        try CommandSupport.run {
            let written = try ModelCompilation.compile(
                modelAt: CommandSupport.url(model), into: CommandSupport.url(output))
            CommandSupport.report("wrote \(written.path)")
        }
    }
}
