import Foundation

/// Runs one of the example apps as a person would, in its own process, with its data in a
/// folder of the test's own (so each run after the first is a real restart).
struct ExampleProcess {
    let name: String
    /// Stands in for the user's home: the XDG data, config and documents folders are in it.
    let home: URL

    init(_ name: String) {
        self.name = name
        home = FileManager.default.temporaryDirectory.appendingPathComponent("example-\(name)-\(UUID().uuidString)", isDirectory: true)
    }

    /// The built example, next to the test bundle in the build folder.
    static func executable(_ name: String) -> URL? {
        var folder = Bundle.main.bundleURL
        for _ in 0..<4 {
            let candidate = folder.appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            folder.deleteLastPathComponent()
        }
        return nil
    }

    /// The result of one run: exit status, and standard output and error together.
    struct Run {
        let status: Int32
        let output: String
        /// The output's lines.
        var lines: [String] { output.split(separator: "\n").map(String.init) }
    }

    /// Runs the app with `arguments` (and `input` on its standard input) until it exits.
    @discardableResult
    func run(_ arguments: String..., input: String? = nil) throws -> Run {
        guard let executable = Self.executable(name) else {
            throw CocoaError(.fileNoSuchFile, userInfo: [NSLocalizedDescriptionKey: "the \(name) example is not built (swift build builds it)"])
        }
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_DATA_HOME"] = home.appendingPathComponent("data").path
        environment["XDG_CONFIG_HOME"] = home.appendingPathComponent("config").path
        environment["XDG_DOCUMENTS_DIR"] = home.appendingPathComponent("Documents").path
        environment["HOME"] = home.path
        process.environment = environment
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        let stdin = Pipe()
        process.standardInput = stdin
        try process.run()
        if let input { stdin.fileHandleForWriting.write(Data(input.utf8)) }
        try stdin.fileHandleForWriting.close()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Run(status: process.terminationStatus, output: String(decoding: data, as: UTF8.self))
    }
}
