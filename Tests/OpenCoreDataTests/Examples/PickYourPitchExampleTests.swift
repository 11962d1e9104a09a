import Foundation
import Testing

/// Pick Your Pitch (seed 000, part B): preferences in UserDefaults survive restarts.
@Suite struct PickYourPitchExampleTests {
    @Test func firstLaunchDefaultsThenSavedValues() throws {
        let app = ExampleProcess("PickYourPitch")
        #expect(
            try app.run().lines == [
                "First launch: defaults registered.", "slider: 0.50 (pitch +0.0 semitones)", "midnight theme: off",
            ])
        #expect(
            try app.run().lines.first == "slider: 0.50 (pitch +0.0 semitones)", "only the first launch is the first")
        #expect(try app.run("slider", "0.75").status == 0)
        #expect(try app.run("theme", "toggle").lines == ["midnight theme: on"])
        #expect(
            try app.run().lines == ["slider: 0.75 (pitch +6.0 semitones)", "midnight theme: on"],
            "a Float and a Bool, read back after a restart")
        #expect(
            FileManager.default.fileExists(atPath: app.home.appendingPathComponent("config/PickYourPitch.plist").path))

        let outOfRange = try app.run("slider", "2")
        #expect(outOfRange.status == 64)
        #expect(outOfRange.output.contains("the slider goes from 0 to 1"))
        #expect(try app.run("theme", "dim").status == 64)
        #expect(try app.run("reset").status == 0)
        #expect(try app.run().lines.first == "First launch: defaults registered.")
    }

    @Test func preferencesThatCannotBeWrittenAreOneClearLine() throws {
        let app = ExampleProcess("PickYourPitch")
        let file = app.home.appendingPathComponent("config-file")
        try FileManager.default.createDirectory(at: app.home, withIntermediateDirectories: true)
        try Data("x".utf8).write(to: file)
        let refused = try app.run("slider", "0.25", environment: ["XDG_CONFIG_HOME": file.path])
        #expect(refused.status == 1)
        #expect(
            refused.lines == [
                "Error: the preferences could not be written: make \(file.path) a writable folder and run again."
            ], "\(refused.output)")
    }
}
