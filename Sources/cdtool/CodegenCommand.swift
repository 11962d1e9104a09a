import ArgumentParser
import CDToolCore
import OpenCoreData

/// `cdtool codegen <model> --output <dir>`: NSManagedObject subclasses for a model.
struct CodegenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "codegen",
        abstract: "Generate Swift classes for a model's entities, like Xcode's \"Create NSManagedObject Subclass\"."
    )

    @Argument(help: "A model: .xcdatamodeld or .momd bundle, .xcdatamodel folder or .mom file.")
    var model: String

    @Option(help: "The directory to write the files into (created if needed).")
    var output: String

    @Option(help: "Write every entity into this one file instead of two files per entity (the build plugin's mode).")
    var singleFile: String?

    @Flag(
        help:
            "Follow each entity's Codegen setting (Class Definition, Category/Extension, Manual/None) as Xcode's build-time codegen does."
    )
    var followCodegenSetting = false

    func run() throws {
        try CommandSupport.run {
            let model = try ModelFile.load(at: CommandSupport.url(model))
            let problems = model.problemsPreventingUse
            guard problems.isEmpty else {
                throw CDToolError("invalid model: \(problems.joined(separator: "; "))")
            }
            var generator = CodeGenerator()
            generator.followsCodegenSetting = followCodegenSetting
            let files =
                try singleFile.map { [try generator.singleFile(named: $0, for: model)] } ?? generator.files(for: model)
            try CodeGenerator.write(files, to: CommandSupport.url(output))
            CommandSupport.report("wrote \(files.count) file\(files.count == 1 ? "" : "s") to \(output)")
        }
    }
}
