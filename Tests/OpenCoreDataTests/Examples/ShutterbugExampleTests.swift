import Foundation
import Testing

/// Shutterbug / Photomania (lecture 003): a UIManagedDocument of photos and photographers.
@Suite struct ShutterbugExampleTests {
    @Test func importFindsOrCreatesAndTheLecturesQueriesAnswer() throws {
        let app = ExampleProcess("Shutterbug")
        #expect(try app.run("import").lines == ["Imported 8 new photos (0 already there)."])
        #expect(
            try app.run("import").lines == ["Imported 0 new photos (8 already there)."], "never two photos with one id")
        #expect(
            FileManager.default.fileExists(
                atPath: app.home.appendingPathComponent(
                    "data/Shutterbug/Photomania.document/StoreContent/persistentStore"
                ).path))

        // Sections by first letter from a results controller.
        #expect(
            try app.run().lines == [
                "A", "- Ansel Adams (2 photos)", "D", "- Dorothea Lange (1 photo)", "E", "- Edward Weston (1 photo)",
                "V", "- Vivian Maier (4 photos)",
            ])
        #expect(
            try app.run("photos", "--by", "Vivian Maier").lines == [
                "- Chicago [p7] by Vivian Maier", "- photo 2 [p5] by Vivian Maier", "- photo 10 [p4] by Vivian Maier",
                "- Self-portrait [p6] by Vivian Maier",
            ], "localizedStandardCompare: photo 2 before photo 10")
        #expect(try app.run("search", "MOON").lines == ["- Ansel Adams (2 photos)"])
        #expect(try app.run("prolific", "2").lines == ["- Vivian Maier (4 photos)"])
        let negative = try app.run("prolific", "--", "-1")
        #expect(negative.status == 64)
        #expect(negative.lines.first == "Error: N is a number of photos, 0 or more, not -1", "\(negative.output)")
        #expect(try app.run("recent").lines == ["- Edward Weston (1 photo)", "- Vivian Maier (4 photos)"])
        #expect(try app.run("find", "Dorothea Lange").lines == ["- Migrant Mother by Dorothea Lange"])
        #expect(try app.run("find", "Dunes").lines == ["- Dunes by Edward Weston"])
    }

    @Test func viewsAreRememberedAndDeletingAPhotographerKeepsThePhotos() throws {
        let app = ExampleProcess("Shutterbug")
        try app.run("import")
        #expect(try app.run("view", "p1").lines == ["Half Dome by Ansel Adams: Yosemite at dawn", "First view."])
        #expect(try app.run("view", "p1").lines.last == "Viewed before.", "the document saved the view when it closed")
        #expect(try app.run("delete-photographer", "Edward Weston").status == 0)
        #expect(try app.run("find", "Dunes").lines == ["- Dunes by nobody"], "Nullify")
        #expect(try app.run().lines.contains("- Edward Weston (1 photo)") == false)

        let missing = try app.run("view", "nope")
        #expect(missing.status == 1)
        #expect(missing.output.contains("no photo has the id nope"))
    }

    @Test func aFeedFileAndADamagedDocument() throws {
        let app = ExampleProcess("Shutterbug")
        let feed = app.home.appendingPathComponent("feed.json")
        try FileManager.default.createDirectory(at: app.home, withIntermediateDirectories: true)
        try Data(#"[{"id": "x1", "title": "Tower", "owner": "Berenice Abbott", "uploaded": 0}]"#.utf8).write(to: feed)
        #expect(try app.run("import", "--feed", feed.path).lines == ["Imported 1 new photo (0 already there)."])
        #expect(try app.run().lines == ["B", "- Berenice Abbott (1 photo)"])
        let bad = try app.run("import", "--feed", app.home.appendingPathComponent("missing.json").path)
        #expect(bad.status == 1)
        #expect(bad.output.contains("cannot read the feed"))

        let store = app.home.appendingPathComponent("data/Shutterbug/Photomania.document/StoreContent/persistentStore")
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: store.path + suffix) }
        try Data(repeating: 0x42, count: 8192).write(to: store)
        let damaged = try app.run()
        #expect(damaged.status == 1)
        #expect(damaged.output.contains("cannot open the document"))
        #expect(
            try Data(contentsOf: store) == Data(repeating: 0x42, count: 8192), "the damaged file is left for the user")
    }
}
