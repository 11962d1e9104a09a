import Foundation
import Testing

/// The Family example (series 002) as a user drives it, each command a new process.
@Suite struct FamilyExampleTests {
    @Test func theSeedsScenarioAcrossRestarts() throws {
        let app = ExampleProcess("Family")
        #expect(try app.run().lines == ["- Ted"], "a new store holds Ted")
        try app.run("add", "Joe")
        try app.run("delete", "Joe")
        #expect(try app.run("list").lines == ["- Ted"])
        try app.run("add", "Sammy")
        #expect(try app.run("rename", "Sammy", "Joe").status == 0)
        #expect(try app.run().lines == ["- Joe", "- Ted"])

        for name in ["Mike", "Abby"] { try app.run("add", name) }
        #expect(try app.run().lines == ["- Abby", "- Joe", "- Mike", "- Ted"], "sorted by name")
        #expect(try app.run("search", "Ted").lines == ["- Ted"])
        #expect(try app.run("search", "ted").lines.isEmpty, "CONTAINS without [c] is case-sensitive")
    }

    @Test func familiesAndTheirPeopleStayConnected() throws {
        let app = ExampleProcess("Family")
        #expect(try app.run("add", "Maggie", "--family", "abc", "--age", "7", "--gender", "female").status == 0)
        try app.run("add", "Bart", "--family", "abc")
        try app.run("add", "Ned", "--family", "Flanders")
        #expect(try app.run("families").lines == ["Flanders: Ned", "abc: Bart, Maggie"])
        #expect(try app.run("search", "Maggie").lines == ["- Maggie (female, 7, family abc)"])
        try app.run("delete", "Bart")
        #expect(
            try app.run("families").lines == ["Flanders: Ned", "abc: Maggie"],
            "deleting a person removes them from their family")
        #expect(try app.run("join", "Ned", "abc").lines == ["Ned joined family abc."])
        #expect(
            try app.run("families").lines == ["Flanders: ", "abc: Maggie, Ned"],
            "addToPeople sets the person's family and leaves the old one")
        #expect(try app.run("search", "Ned").lines == ["- Ned (family abc)"])
    }

    @Test func badInputIsRefusedClearly() throws {
        let app = ExampleProcess("Family")
        let missing = try app.run("delete", "Nobody")
        #expect(missing.status == 1)
        #expect(missing.output.contains("nobody is named Nobody"))
        let noName = try app.run("add")
        #expect(noName.status == 64)
        #expect(noName.output.contains("Missing expected argument '<name>'"))
        let unknown = try app.run("adopt", "Joe")
        #expect(unknown.status == 64)
        #expect(try app.run("--help").output.contains("SUBCOMMANDS"))
        #expect(try app.run().lines == ["- Ted"], "nothing was changed")
    }

    @Test func aFirstLaunchKilledBeforeTedIsSavedMakesTedNextTime() throws {
        let app = ExampleProcess("Family")
        #expect(try app.run(environment: ["OPENCOREDATA_EXAMPLE_KILL_AT": "seed"]).status == SIGKILL)
        #expect(try app.run().lines == ["- Ted"], "the first launch's import is retried")
    }

    @Test func firstLaunchesAtOnceMakeOneTed() async throws {
        let app = ExampleProcess("Family")
        let launches = (0..<4).map { _ in Task.detached { try app.run("list") } }
        for launch in launches {
            let run = try await launch.value
            #expect(run.status == 0, "\(run.output)")
        }
        #expect(try app.run().lines == ["- Ted"])
    }

    @Test(.enabled(if: Unprivileged.isAvailable)) func aFolderItMayNotWriteIsOneClearLine() throws {
        let app = ExampleProcess("Family")
        let locked = app.home.appendingPathComponent("locked")
        try FileManager.default.createDirectory(at: locked, withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: locked.path)
        let notWritable =
            "Error: cannot write in \(locked.path): the folder is not writable; make it writable or choose another folder with --data."
        let refused = try #require(try app.runUnprivileged("add", "Joe", "--data", locked.path))
        #expect(refused.status == 1)
        #expect(refused.lines == [notWritable], "\(refused.output)")

        // A store made while the folder was writable is still read once it is not; a change says why it cannot be saved.
        try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: locked.path)
        #expect(try app.runUnprivileged("add", "Joe", "--data", locked.path)?.status == 0)
        try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: locked.path)
        let list = try app.runUnprivileged("list", "--data", locked.path)
        #expect(list?.lines == ["- Joe", "- Ted"], "\(list?.output ?? "")")
        let change = try app.runUnprivileged("add", "Ann", "--data", locked.path)
        #expect(change?.status == 1)
        #expect(change?.lines == [notWritable], "\(change?.output ?? "")")
    }
}
