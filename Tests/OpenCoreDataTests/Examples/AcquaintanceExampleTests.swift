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
        let badField = try app.run("update", "Bob", "colour", "red")
        #expect(badField.status != 0)
        #expect(badField.output.contains("'name', 'phone', 'email' or 'notes'"))
        let help = try app.run("--help")
        #expect(help.status == 0)
        #expect(help.output.contains("USAGE: Acquaintance <subcommand>"))
        let unknown = try app.run("adopt")
        #expect(unknown.status != 0)
        #expect(unknown.output.contains("Unexpected argument 'adopt'"))
        #expect(
            FileManager.default.fileExists(
                atPath: app.home.appendingPathComponent("data/Acquaintance/Acquaintance.sqlite").path))
    }

    @Test func aStoreWhereEarlierVersionsKeptItMovesIntoTheAppFolder() throws {
        let app = ExampleProcess("Acquaintance")
        #expect(try app.run("add", "Zed").status == 0)
        let data = app.home.appendingPathComponent("data")
        let folder = data.appendingPathComponent("Acquaintance")
        for suffix in ["", "-wal", "-shm"]
        where FileManager.default.fileExists(atPath: folder.path + "/Acquaintance.sqlite" + suffix) {
            try FileManager.default.moveItem(
                atPath: folder.path + "/Acquaintance.sqlite" + suffix,
                toPath: data.path + "/Acquaintance.sqlite" + suffix)
        }
        let moved = try app.run("list")
        #expect(moved.lines.first == "Moved \(data.path)/Acquaintance.sqlite to \(folder.path)/Acquaintance.sqlite.")
        #expect(moved.output.contains("- Zed"), "the earlier store's people, not new sample people")
        #expect(!FileManager.default.fileExists(atPath: data.path + "/Acquaintance.sqlite"))
    }

    @Test func dataOptionKeepsStoreAndArchiveInOneFolder() throws {
        let app = ExampleProcess("Acquaintance")
        let folder = app.home.appendingPathComponent("book").path
        #expect(try app.run("add", "--archive", "--data", folder, "Zed").status == 0)
        let first = try app.run("list", "--data", folder)
        #expect(
            first.lines == [
                "Created \(folder)/Acquaintance.sqlite with 1 people from acqList.plist.",
                "Acquaintances in Acquaintance.sqlite:", "- Zed",
            ])
        #expect(try app.run("delete", "zed", "--data", folder).status == 0)
        #expect(
            try app.run("list", "--data", folder).lines == ["Acquaintances in Acquaintance.sqlite:"],
            "the archive is taken in once, by a new store")
        #expect(
            !FileManager.default.fileExists(atPath: app.home.appendingPathComponent("Documents/acqList.plist").path))
    }

    @Test func version1ArchiveThenVersion2TakesItIn() throws {
        let app = ExampleProcess("Acquaintance")
        #expect(try app.run("add", "--archive", "Bob", "555-9").status == 0)
        #expect(try app.run("add", "Alice", "--archive").status == 0)
        #expect(try app.run("update", "--archive", "bob", "email", "bob@example.com").status == 0)
        #expect(
            try app.run("list", "--archive").lines == [
                "Acquaintances in acqList.plist:", "- Alice", "- Bob (555-9, bob@example.com)",
            ])
        #expect(FileManager.default.fileExists(atPath: app.home.appendingPathComponent("Documents/acqList.plist").path))
        let missing = try app.run("delete", "--archive", "Carol")
        #expect(missing.status == 1)
        #expect(missing.output.contains("nobody is named Carol"))

        let first = try app.run()
        #expect(first.lines.first?.hasSuffix("with 2 people from acqList.plist.") == true, "\(first.output)")
        #expect(
            Array(first.lines.dropFirst(2)) == ["- Alice", "- Bob (555-9, bob@example.com)"],
            "no sample people when the archive had some")
    }

    @Test func aFirstLaunchKilledBeforeItsImportIsSavedImportsAgain() throws {
        let app = ExampleProcess("Acquaintance")
        let killed = try app.run("list", environment: ["OPENCOREDATA_EXAMPLE_KILL_AT": "seed"])
        #expect(killed.status == SIGKILL, "\(killed.output)")
        let next = try app.run()
        #expect(next.status == 0)
        #expect(next.output.contains("with sample people"), "the import was not marked done: \(next.output)")
        #expect(next.lines.filter { $0.hasPrefix("- ") }.count == 3)
    }

    @Test func aDamagedArchiveIsOneClearLineAndItsImportWaits() throws {
        let app = ExampleProcess("Acquaintance")
        let archive = app.home.appendingPathComponent("Documents/acqList.plist")
        try FileManager.default.createDirectory(
            at: archive.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("not an archive".utf8).write(to: archive)
        for arguments in [["list", "--archive"], ["list"]] {
            let damaged = try app.run(arguments)
            #expect(damaged.status == 1)
            #expect(
                damaged.lines == [
                    "Error: \(archive.path) is damaged or is not an address book archive: move it away and run again."
                ], "\(damaged.output)")
        }
        // Version 2's first launch failed while taking the archive in: without the archive,
        // the next launch starts the store afresh.
        try FileManager.default.removeItem(at: archive)
        let next = try app.run()
        #expect(next.output.contains("with sample people"), "\(next.output)")
    }

    @Test func argumentsThatAreNotUTF8AreRefused() throws {
        let app = ExampleProcess("Acquaintance")
        let refused = try app.runThroughShell(#"add "$(printf 'Zo\351')""#)
        #expect(refused.status == 64)
        #expect(
            refused.lines.first
                == "Error: argument 2 (Zo\u{FFFD}) is not UTF-8 text: type it in UTF-8 (or rename the file it names).",
            "\(refused.output)")
        #expect(
            !FileManager.default.fileExists(atPath: app.home.appendingPathComponent("data/Acquaintance").path),
            "nothing was made")
    }
}
