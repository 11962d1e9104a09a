import Foundation
import Testing

/// Runs the Acquaintance example as a user would, across process restarts.
@Suite struct AcquaintanceExampleTests {
    /// The built example, next to the test bundle in the build folder.
    static var executable: URL? {
        var folder = Bundle.main.bundleURL
        for _ in 0..<4 {
            let candidate = folder.appendingPathComponent("Acquaintance")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            folder.deleteLastPathComponent()
        }
        return nil
    }

    func run(_ arguments: [String], dataHome: URL) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = Self.executable
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_DATA_HOME"] = dataHome.path
        process.environment = environment
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    @Test(.enabled(if: executable != nil, "build the Acquaintance product first (swift build)"))
    func addUpdateDeleteSurviveRestarts() throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("acq-\(UUID().uuidString)")
        let first = try run([], dataHome: home)
        #expect(first.status == 0)
        #expect(first.output.contains("with sample people"))
        #expect(first.output.contains("- Grace Hopper (555-0102)"))
        #expect(try run(["add", "Bob", "555-9"], dataHome: home).status == 0)
        #expect(try run(["update", "Bob", "email", "bob@example.com"], dataHome: home).status == 0)
        #expect(try run(["delete", "Grace Hopper"], dataHome: home).status == 0)
        let last = try run(["list"], dataHome: home)
        #expect(!last.output.contains("sample people"), "preloading happens only on first run")
        #expect(last.output.contains("- Bob (555-9, bob@example.com)"))
        #expect(!last.output.contains("Grace Hopper"))
        let missing = try run(["delete", "Nobody"], dataHome: home)
        #expect(missing.status != 0)
        #expect(missing.output.contains("nobody is named Nobody"))
    }
}
