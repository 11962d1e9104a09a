import Foundation
import PackagePlugin

/// Compiles the Core Data models of a target at build time, as Xcode's model compiler
/// does: each `.xcdatamodeld` becomes `Name.momd` (one `.mom` per version and
/// `VersionInfo.plist`), each lone `.xcdatamodel` becomes `Name.mom`, among the target's
/// resources, so `Bundle.module.url(forResource: "Name", withExtension: "momd")` and
/// `NSManagedObjectModel(contentsOf:)` load the model as they do in an app built by Xcode.
///
/// Add the model to the target as a resource, so the plugin sees it, and the plugin:
/// `resources: [.copy("Model.xcdatamodeld")], plugins: [.plugin(name:
/// "OpenCoreDataModelCompiler", package: "OpenCoreData")]`. (An excluded file is hidden
/// from plugins; the copied source stays beside the compiled model and does no harm.)
/// The model is compiled by `cdtool compile`; a model it cannot compile fails the build
/// with its message.
@main
struct OpenCoreDataModelCompiler: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        guard let target = target as? SourceModuleTarget else { return [] }
        let tool = try context.tool(named: "cdtool")
        let directory = context.pluginWorkDirectoryURL
        return Self.models(in: target.sourceFiles.map(\.url)).map { model in
            let name = model.deletingPathExtension().lastPathComponent
            // A `.momd` is declared as one output, the folder: SwiftPM copies a folder among
            // a target's resources as it is, where files declared one by one would land
            // flat at the top of the bundle, without their `.momd`.
            let output = directory.appendingPathComponent(
                model.pathExtension == "xcdatamodeld" ? "\(name).momd" : "\(name).mom")
            return .buildCommand(
                displayName: "Compiling Core Data model \(model.lastPathComponent)",
                executable: tool.url,
                arguments: ["compile", model.path, "--output", directory.path],
                inputFiles: [model] + Self.files(inside: model),
                outputFiles: [output]
            )
        }
    }

    /// The model files among a target's files: `.xcdatamodeld` bundles, and
    /// `.xcdatamodel` folders that are not versions inside one.
    ///
    /// The same as the codegen plugin's: a SwiftPM plugin can depend on executables only,
    /// not on a library the two could share.
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

    /// Every file inside a model folder, so editing the model compiles it again.
    static func files(inside model: URL) -> [URL] {
        guard let enumerator = FileManager.default.enumerator(at: model, includingPropertiesForKeys: nil) else {
            return []
        }
        return enumerator.compactMap { $0 as? URL }.filter { !$0.hasDirectoryPath }
    }
}
