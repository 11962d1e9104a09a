import ArgumentParser
import CDToolCore
import OpenCoreData

/// `cdtool model <path>`: prints a model and validates it as a coordinator would.
struct ModelCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "model",
        abstract:
            "Print a model's entities, attributes, relationships and version hashes, and validate it; or, with --diff, what changed from it to another version; or, with --upgrade, write an Xcode 3 model's 'contents'."
    )

    @Argument(help: "A model: .xcdatamodeld or .momd bundle, .xcdatamodel folder or .mom file.")
    var path: String

    @Option(
        help:
            "Another version of the model: list what changed from <path> to it, and whether lightweight migration can infer the mapping."
    )
    var diff: String?

    @Flag(
        help:
            "Write today's 'contents' XML beside an Xcode 3 model folder's 'elements' archive (every such version of a .xcdatamodeld), checked to keep the version hashes."
    )
    var upgrade = false

    func validate() throws {
        if upgrade, diff != nil { throw ValidationError("--upgrade and --diff cannot be used together") }
    }

    func run() throws {
        try CommandSupport.run {
            if upgrade {
                for line in try ModelUpgrade.upgrade(at: CommandSupport.url(path)) {
                    CommandSupport.output(line + "\n")
                }
                return
            }
            let model = try ModelFile.load(at: CommandSupport.url(path))
            let problems = model.problemsPreventingUse
            guard problems.isEmpty else {
                for problem in problems { CommandSupport.report("cdtool: invalid model: \(problem)") }
                throw ExitCode.failure
            }
            if let diff {
                CommandSupport.output(ModelDiff.text(from: model, to: try ModelFile.load(at: CommandSupport.url(diff))))
            } else {
                CommandSupport.output(ModelDescription.text(of: model))
            }
        }
    }
}
