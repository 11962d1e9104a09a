import Foundation
import Testing

/// `cdtool`'s own argument handling, run as a user runs it.
@Suite struct CDToolArgumentTests {
    @Test func argumentsThatAreNotUTF8AreRefusedNotRead() throws {
        let tool = ExampleProcess("cdtool")
        // A file whose name is Latin-1: Swift would read the argument as "store\u{FFFD}.sqlite".
        let refused = try tool.runThroughShell(#"inspect "$(printf 'store\351.sqlite')""#)
        #expect(refused.status == 64)
        #expect(
            refused.lines == [
                "cdtool: error: argument 2 (store\u{FFFD}.sqlite) is not UTF-8 text: type it in UTF-8 (or rename the file it names)."
            ], "\(refused.output)")
        let help = try tool.run("--help")
        #expect(help.status == 0)
        #expect(help.output.contains("SUBCOMMANDS"))
    }
}
