import Foundation
import Testing

/// The Image Feed with Tags example (seed 001): its model comes from Tags.xcdatamodeld and its
/// classes from the codegen plugin, as in an Xcode project.
@Suite struct TagsExampleTests {
    @Test func oneTagPerNameAndItsImagesWithoutAFetch() throws {
        let app = ExampleProcess("Tags")
        #expect(try app.run("tag", "shaking", "Earthquake 1", "--url", "https://example.com/1.jpg").status == 0)
        #expect(try app.run("tag", "shaking", "Earthquake 2").status == 0)
        #expect(try app.run("tag", "calm", "Lake").status == 0)
        // A restart later: one "shaking" tag with both images, through `tag.images`.
        #expect(try app.run().lines == ["calm (1 image): Lake", "shaking (2 images): Earthquake 1, Earthquake 2"])
        #expect(
            try app.run("show", "shaking").lines == ["- Earthquake 1 <https://example.com/1.jpg>", "- Earthquake 2"])

        #expect(try app.run("delete", "calm").status == 0)
        #expect(
            try app.run().lines == ["shaking (2 images): Earthquake 1, Earthquake 2"],
            "the tag went with its image (cascade)")
        let missing = try app.run("show", "calm")
        #expect(missing.status == 1)
        #expect(missing.output.contains("no tag is called calm"))
    }

    @Test func aDataFolderUnderAFileIsOneClearLine() throws {
        let app = ExampleProcess("Tags")
        let file = app.home.appendingPathComponent("notes.txt")
        try FileManager.default.createDirectory(at: app.home, withIntermediateDirectories: true)
        try Data("x".utf8).write(to: file)
        let refused = try app.run("tag", "calm", "Lake", "--data", file.appendingPathComponent("Tags").path)
        #expect(refused.status == 1)
        #expect(
            refused.lines == [
                "Error: cannot make the folder \(file.path)/Tags: \(file.path) is a file, not a folder; choose another folder with --data."
            ], "\(refused.output)")
    }
}
