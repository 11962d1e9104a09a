import ArgumentParser
import Foundation

/// `cdtool`: inspect Core Data models and SQLite stores, export objects, generate classes,
/// compile models.
///
/// The commands' logic lives in `CDToolCore`; these types only parse arguments and
/// turn failures into one line on stderr and a non-zero exit.
@main
struct CDTool: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cdtool",
        abstract:
            "Inspect Core Data models and SQLite stores, export their objects, generate NSManagedObject subclasses, compile models, migrate stores, browse a store in a web page.",
        subcommands: [
            ModelCommand.self, InspectCommand.self, DumpCommand.self, CodegenCommand.self, CompileCommand.self,
            MigrateCommand.self, ServeCommand.self,
        ]
    )

    /// Refuses arguments that are not UTF-8 before parsing: Swift reads them with U+FFFD in
    /// place of their bytes, so a path would name another file (or none) without a word.
    static func main() {
        if let (number, shown) = CommandSupport.firstArgumentNotUTF8() {
            CommandSupport.report(
                "cdtool: error: argument \(number) (\(shown)) is not UTF-8 text: type it in UTF-8 (or rename the file it names)."
            )
            Foundation.exit(ExitCode.validationFailure.rawValue)
        }
        main(nil)
    }
}
