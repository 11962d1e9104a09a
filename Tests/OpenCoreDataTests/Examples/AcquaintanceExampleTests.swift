import Foundation
import Testing

/// Runs the Acquaintance example as a user would, across process restarts.
@Suite struct AcquaintanceExampleTests {
    @Test
    func addUpdateDeleteSurviveRestarts() throws {
        let app = ExampleProcess("Acquaintance")
        let first = try app.run()
        #expect(first.status == 0)
        #expect(first.output.contains("with sample people"))
        #expect(first.output.contains("- Grace Hopper (555-0102)"))
        #expect(try app.run("add", "Bob", "555-9").status == 0)
        #expect(try app.run("update", "Bob", "email", "bob@example.com").status == 0)
        #expect(try app.run("delete", "Grace Hopper").status == 0)
        let last = try app.run("list")
        #expect(!last.output.contains("sample people"), "preloading happens only on first run")
        #expect(last.output.contains("- Bob (555-9, bob@example.com)"))
        #expect(!last.output.contains("Grace Hopper"))
        let missing = try app.run("delete", "Nobody")
        #expect(missing.status != 0)
        #expect(missing.output.contains("nobody is named Nobody"))
        let help = try app.run("--help")
        #expect(help.status == 0)
        #expect(help.output.contains("USAGE: Acquaintance"))
        let unknown = try app.run("adopt")
        #expect(unknown.status == 1)
        #expect(unknown.output.contains("unknown command adopt"))
    }

    @Test func version1ArchiveThenVersion2TakesItIn() throws {
        let app = ExampleProcess("Acquaintance")
        #expect(try app.run("--archive", "add", "Bob", "555-9").status == 0)
        #expect(try app.run("--archive", "add", "Alice").status == 0)
        #expect(try app.run("--archive", "update", "bob", "email", "bob@example.com").status == 0)
        #expect(try app.run("--archive", "list").lines == ["Acquaintances in acqList.plist:", "- Alice", "- Bob (555-9, bob@example.com)"])
        #expect(FileManager.default.fileExists(atPath: app.home.appendingPathComponent("Documents/acqList.plist").path))
        let missing = try app.run("--archive", "delete", "Carol")
        #expect(missing.status == 1)
        #expect(missing.output.contains("nobody is named Carol"))

        let first = try app.run()
        #expect(first.lines.first?.hasSuffix("with 2 people from acqList.plist.") == true, "\(first.output)")
        #expect(Array(first.lines.dropFirst(2)) == ["- Alice", "- Bob (555-9, bob@example.com)"], "no sample people when the archive had some")
    }
}
