import Foundation
import Testing

/// CoolNotes (seed 000, part B): notebooks and notes, autosave only when there are changes,
/// and the version 1 → 2 migration that adds PhotoFrame.
@Suite struct CoolNotesExampleTests {
    @Test func version1NotesSurviveTheMigrationToVersion2() throws {
        let app = ExampleProcess("CoolNotes")
        try app.run("add-notebook", "--model-version", "1", "Coding Notes")
        try app.run("add", "--model-version", "1", "Coding Notes", "Swift is fun")
        try app.run("add", "--model-version", "1", "Coding Notes", "Core Data")
        try app.run("add-notebook", "--model-version", "1", "Shopping")
        try app.run("add", "--model-version", "1", "Shopping", "Milk")
        #expect(
            try app.run("notes", "--model-version", "1", "Coding Notes").lines == ["1. Swift is fun", "2. Core Data"])
        let noFrames = try app.run("frame", "--model-version", "1", "Coding Notes", "1", "/dev/null")
        #expect(noFrames.status == 1)
        #expect(noFrames.output.contains("arrived with model version 2"))

        // The current app: the store migrates on opening, its notes intact ("Coding Notes" holds 2 of 3).
        #expect(try app.run().lines == ["- Coding Notes (2 notes)", "- Shopping (1 note)"])
        let picture = app.home.appendingPathComponent("picture.bin")
        try Data(repeating: 7, count: 300_000).write(to: picture)
        #expect(try app.run("frame", "Coding Notes", "1", picture.path).status == 0)
        #expect(
            try app.run("notes", "Coding Notes").lines == ["1. Swift is fun [photo, 300000 bytes]", "2. Core Data"])

        let old = try app.run("notebooks", "--model-version", "1")
        #expect(old.status == 1)
        #expect(
            old.output.contains("The model used to open the store is incompatible"),
            "the old app cannot open the new store: \(old.output)")
        #expect(
            try app.run("notes", "Coding Notes").lines.first == "1. Swift is fun [photo, 300000 bytes]",
            "and did not touch it")
    }

    @Test func anEditingSessionAutosavesOnlyWhenThereAreChanges() throws {
        let app = ExampleProcess("CoolNotes")
        try app.run("add-notebook", "Shopping")
        // One note, then time for several autosaves: only the first has something to save.
        let session = try app.run("edit", "Shopping", "--autosave", "0.3", input: "Eggs\nwait 3\nquit\n")
        #expect(session.status == 0)
        #expect(
            session.lines.filter { $0.hasPrefix("autosaved") } == ["autosaved 2 changes"],
            "the note and its notebook, once: \(session.output)")
        #expect(!session.lines.contains("saved on quit"), "nothing was left to save")
        // What was not autosaved yet is saved when the session ends.
        let quick = try app.run("edit", "Shopping", "--autosave", "60", input: "Bread\n")
        #expect(quick.lines.last == "saved on quit")
        #expect(!quick.output.contains("autosaved"))
        #expect(try app.run("notes", "Shopping").lines == ["1. Eggs", "2. Bread"])

        let missing = try app.run("edit", "Garden", input: "")
        #expect(missing.status == 1)
        #expect(missing.output.contains("no notebook is called Garden"))
    }

    @Test func anotherWriterDuringASessionIsAConflictReportedInOneLine() throws {
        let app = ExampleProcess("CoolNotes")
        try app.run("add-notebook", "Shopping")
        // The session reads the notebook with its first note; another process then adds to it.
        let session = try app.start("edit", "Shopping", "--autosave", "60")
        session.write("Eggs\n")
        try session.waitForOutput(containing: "Writing in Shopping")
        Thread.sleep(forTimeInterval: 0.2)
        #expect(try app.run("add", "Shopping", "Milk").status == 0)
        let conflict = try session.finish()
        #expect(conflict.status == 1)
        #expect(
            conflict.lines == [
                "Writing in Shopping; one note per line, `quit` to end.",
                "Error: another program changed the same data while this one was working, so nothing was saved: run the command again.",
            ], "\(conflict.output)")
        #expect(try app.run("notes", "Shopping").lines == ["1. Milk"])

        let badVersion = try app.run("notebooks", "--model-version", "3")
        #expect(badVersion.status == 64)
        #expect(badVersion.lines.first == "Error: there is no model version 3 (versions: 1, 2)")
    }
}
