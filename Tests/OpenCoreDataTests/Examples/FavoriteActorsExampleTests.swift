import Foundation
import Testing

/// Favorite Actors (seed 000, part A): an NSCoding archive first, then Core Data taking it in;
/// the actor picker's results are never saved.
@Suite struct FavoriteActorsExampleTests {
    @Test func fromTheArchiveToCoreData() throws {
        let app = ExampleProcess("FavoriteActors")
        #expect(try app.run("add", "--archive", "tom hanks").lines == ["Added Tom Hanks."])
        #expect(try app.run("add", "--archive", "Rachel Weisz").status == 0)
        // The archive is the whole graph: actors with their movies, read back after a restart.
        #expect(try app.run("list", "--archive").lines == ["- Rachel Weisz (1 movie)", "- Tom Hanks (3 movies)"])
        #expect(
            try app.run("movies", "--archive", "Tom Hanks").lines == [
                "- Big (1988-06-03)", "- Forrest Gump (1994-07-06)", "- Toy Story (1995-11-22)",
            ])
        #expect(
            FileManager.default.fileExists(
                atPath: app.home.appendingPathComponent("Documents/favoriteActors.archive").path))

        // Version 2: the first run of the Core Data store takes in the archive, once.
        #expect(
            try app.run("list").lines == [
                "Imported 2 favorites from the archive.", "- Rachel Weisz (1 movie)", "- Tom Hanks (3 movies)",
            ])
        #expect(try app.run("list").lines == ["- Rachel Weisz (1 movie)", "- Tom Hanks (3 movies)"])
        #expect(try app.run("movies", "tom hanks").lines.first == "- Big (1988-06-03)")
    }

    @Test func pickerResultsAreThrownAwayAndPicksAreKept() throws {
        let app = ExampleProcess("FavoriteActors")
        #expect(try app.run("search", "sam").lines == ["- Samuel L. Jackson"])
        #expect(
            try app.run("search", "AN").lines == ["- Morgan Freeman", "- Scarlett Johansson", "- Tom Hanks"],
            "ignoring case")
        #expect(try app.run("list").lines.isEmpty, "search results live in a scratch context and are not saved")
        #expect(try app.run("add", "Morgan Freeman").status == 0)
        #expect(try app.run("list").lines == ["- Morgan Freeman (2 movies)"], "only the pick, with its movies")
        let again = try app.run("add", "morgan freeman")
        #expect(again.status == 1)
        #expect(again.output.contains("already a favorite"))
        #expect(try app.run("remove", "Morgan Freeman").status == 0)
        #expect(try app.run("list").lines.isEmpty)
        let unknown = try app.run("add", "Nobody")
        #expect(unknown.status == 1)
        #expect(unknown.output.contains("no actor called Nobody"))
    }

    @Test func aKilledImportIsRetriedAndADamagedArchiveIsOneClearLine() throws {
        let app = ExampleProcess("FavoriteActors")
        #expect(try app.run("add", "--archive", "Rachel Weisz").status == 0)
        #expect(try app.run("list", environment: ["OPENCOREDATA_EXAMPLE_KILL_AT": "seed"]).status == SIGKILL)
        #expect(
            try app.run("list").lines == ["Imported 1 favorite from the archive.", "- Rachel Weisz (1 movie)"],
            "the killed import is done again")

        let archive = app.home.appendingPathComponent("Documents/favoriteActors.archive")
        try Data("not an archive".utf8).write(to: archive)
        let damaged = try app.run("list", "--archive")
        #expect(damaged.status == 1)
        #expect(
            damaged.lines == [
                "Error: \(archive.path) is damaged or is not an archive of favorite actors: move it away and run again."
            ], "\(damaged.output)")
    }
}
