import Foundation
import PackagePlugin

/// Generates `NSManagedObject` subclasses from the Core Data models in a target at build
/// time, like Xcode's codegen: each `.xcdatamodeld` or `.xcdatamodel` becomes one
/// `<Model>+CoreDataClasses.swift`, compiled with the target's own sources, holding what
/// each entity's Codegen setting asks for (Class Definition: the class and its
/// properties; Category/Extension: the properties; Manual/None: nothing).
///
/// Add `plugins: [.plugin(name: "OpenCoreDataCodegen", package: "OpenCoreData")]` to the
/// target holding the model. The model is read by `cdtool codegen`; a model it cannot read
/// fails the build with its message.
@main
struct OpenCoreDataCodegen: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        guard let target = target as? SourceModuleTarget else { return [] }
        let tool = try context.tool(named: "cdtool")
        return Self.models(in: target.sourceFiles.map(\.url)).map { model in
            let name = model.deletingPathExtension().lastPathComponent + "+CoreDataClasses.swift"
            let output = context.pluginWorkDirectoryURL.appendingPathComponent(name)
            return .buildCommand(
                displayName: "Generating Core Data classes for \(model.lastPathComponent)",
                executable: tool.url,
                arguments: [
                    "codegen", model.path, "--output", context.pluginWorkDirectoryURL.path, "--single-file", name,
                    "--follow-codegen-setting",
                ],
                inputFiles: [model] + Self.files(inside: model),
                outputFiles: [output]
            )
        }
    }

    /// The model files among a target's files: `.xcdatamodeld` bundles, and
    /// `.xcdatamodel` files that are not versions inside one.
    static func models(in files: [URL]) -> [URL] {
        var models: [URL] = []
        for file in files {
            var path = file.standardizedFileURL.pathComponents
            // A file inside a model folder stands for the model.
            while let last = path.last, !last.hasSuffix(".xcdatamodeld"), !last.hasSuffix(".xcdatamodel"),
                path.count > 1
            {
                path.removeLast()
            }
            if let bundle = path.firstIndex(where: { $0.hasSuffix(".xcdatamodeld") }) { path = Array(path[...bundle]) }
            guard let last = path.last, last.hasSuffix(".xcdatamodeld") || last.hasSuffix(".xcdatamodel") else {
                continue
            }
            let model = URL(fileURLWithPath: NSString.path(withComponents: path))
            if !models.contains(model) { models.append(model) }
        }
        return models
    }

    /// Every file inside a model folder, so editing the model reruns the generator.
    static func files(inside model: URL) -> [URL] {
        guard let enumerator = FileManager.default.enumerator(at: model, includingPropertiesForKeys: nil) else {
            return []
        }
        return enumerator.compactMap { $0 as? URL }.filter { !$0.hasDirectoryPath }
    }
}
