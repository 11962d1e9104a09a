import ArgumentParser

/// `cdtool`: inspect Core Data models and SQLite stores, export objects, generate classes.
///
/// The commands' logic lives in `CDToolCore`; these types only parse arguments and
/// turn failures into one line on stderr and a non-zero exit.
@main
struct CDTool: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cdtool",
        abstract: "Inspect Core Data models and SQLite stores, export their objects, generate NSManagedObject subclasses, migrate stores.",
        subcommands: [ModelCommand.self, InspectCommand.self, DumpCommand.self, CodegenCommand.self, MigrateCommand.self]
    )
}
