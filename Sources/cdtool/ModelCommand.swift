import ArgumentParser
import CDToolCore
import OpenCoreData

/// `cdtool model <path>`: prints a model and validates it as a coordinator would.
struct ModelCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "model",
        abstract:
            "Print a model's entities, attributes, relationships and version hashes, and validate it; or, with --diff, what changed from it to another version."
    )

    @Argument(help: "A model: .xcdatamodeld or .momd bundle, .xcdatamodel folder or .mom file.")
    var path: String

    @Option(
        help:
            "Another version of the model: list what changed from <path> to it, and whether lightweight migration can infer the mapping."
    )
    var diff: String?

    func run() throws {
        try CommandSupport.run {
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
