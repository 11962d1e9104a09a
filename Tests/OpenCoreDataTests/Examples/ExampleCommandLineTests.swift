import Foundation
import Testing

/// What every example's command line does alike: help, usage errors, and the `main` that
/// ExampleSupport gives the examples (which parses before it presents failures).
@Suite struct ExampleCommandLineTests {
    static let examples = [
        "Acquaintance", "Family", "Tags", "TagsSwiftData", "FavoriteActors", "Shutterbug", "CoolNotes",
        "VirtualTourist",
    ]

    @Test(arguments: examples)
    func helpAndUsageErrors(_ name: String) throws {
        let app = ExampleProcess(name)
        let help = try app.run("--help")
        #expect(help.status == 0, "\(help.output)")
        #expect(help.output.contains("USAGE: \(name) <subcommand>"))
        let helpCommand = try app.run("help")
        #expect(helpCommand.status == 0, "\(helpCommand.output)")
        #expect(helpCommand.output.contains("SUBCOMMANDS:"))
        let unknown = try app.run("frobnicate")
        #expect(unknown.status == 64)
        #expect(unknown.lines.first == "Error: Unexpected argument 'frobnicate'", "\(unknown.output)")
    }
}
