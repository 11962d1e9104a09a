import Foundation
import OpenCoreDataTestSupport

/// Runs one of the example apps as a person would, in its own process, with its data in a
/// folder of the test's own (so each run after the first is a real restart).
struct ExampleProcess {
    let name: String
    /// Stands in for the user's home: the XDG data, config and documents folders are in it.
    let home: URL

    init(_ name: String) {
        self.name = name
        home = testFilesFolder.appendingPathComponent("example-\(name)-\(UUID().uuidString)", isDirectory: true)
    }

    /// The app `name` in the home of `other`: the same data folders, so the same default store.
    init(_ name: String, sharingHomeWith other: ExampleProcess) {
        self.name = name
        home = other.home
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

    /// Runs the app with `arguments` (and `input` on its standard input, `environment` added
    /// to the test's) until it exits.
    @discardableResult
    func run(_ arguments: String..., input: String? = nil, environment: [String: String] = [:]) throws -> Run {
        try run(arguments, input: input, environment: environment)
    }

    /// Runs the app with `arguments`, given as an array.
    @discardableResult
    func run(_ arguments: [String], input: String? = nil, environment: [String: String] = [:]) throws -> Run {
        try launch(try built(), arguments, input: input, environment: environment)
    }

    /// Runs the app through `/bin/sh` as `exec APP <words>`, for arguments a `String` cannot
    /// hold (bytes that are not UTF-8, made with `$(printf '\377')`).
    @discardableResult
    func runThroughShell(_ words: String) throws -> Run {
        try launch(
            URL(fileURLWithPath: "/bin/sh"), ["-c", "exec \"$EXAMPLE\" \(words)"],
            environment: ["EXAMPLE": try built().path])
    }

    /// Runs the app as an ordinary user (`nobody` through `setpriv` when the tests run as
    /// root, whom permissions do not stop), for folders it may not write; `nil` when that
    /// is not possible here.
    func runUnprivileged(_ arguments: String...) throws -> Run? {
        guard getuid() == 0 else { return try launch(try built(), arguments) }
        let setpriv = URL(fileURLWithPath: "/usr/bin/setpriv")
        guard FileManager.default.isExecutableFile(atPath: setpriv.path) else { return nil }
        // nobody must be able to reach the app's folders.
        try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: home.path)
        return try launch(setpriv, ["--reuid=65534", "--regid=65534", "--clear-groups", try built().path] + arguments)
    }

    /// A run of the app that the test talks to while it runs: its input stays open until
    /// `finish()`.
    final class Session {
        private let process: Process
        private let input: FileHandle
        private let output: FileHandle
        private var received = Data()

        fileprivate init(_ process: Process, input: FileHandle, output: FileHandle) {
            self.process = process
            self.input = input
            self.output = output
        }

        func write(_ text: String) { input.write(Data(text.utf8)) }

        /// A session the test left (a failed expectation) ends with it.
        deinit {
            if process.isRunning { process.terminate() }
        }

        /// Waits until the app has written `text` (its standard output or error), for 30
        /// seconds at the most.
        func waitForOutput(containing text: String) throws {
            let deadline = Date().addingTimeInterval(30)
            while !String(decoding: received, as: UTF8.self).contains(text) {
                var ready = pollfd(fd: output.fileDescriptor, events: Int16(POLLIN), revents: 0)
                let waited = poll(&ready, 1, Int32(max(0, deadline.timeIntervalSinceNow) * 1000))
                let more = waited > 0 ? output.availableData : Data()
                guard !more.isEmpty else {
                    throw CocoaError(
                        .fileReadUnknown,
                        userInfo: [
                            NSLocalizedDescriptionKey:
                                "\(waited > 0 ? "ended" : "30 s passed") without writing \(text): \(String(decoding: received, as: UTF8.self))"
                        ])
                }
                received += more
            }
        }

        /// Closes the app's input and waits for it to exit.
        func finish() throws -> Run {
            try input.close()
            received += output.readDataToEndOfFile()
            process.waitUntilExit()
            return Run(status: process.terminationStatus, output: String(decoding: received, as: UTF8.self))
        }
    }

    /// Starts the app with `arguments`, for a test that talks to it while it runs.
    func start(_ arguments: String...) throws -> Session {
        let (process, input, output) = try prepare(try built(), arguments)
        try process.run()
        return Session(process, input: input, output: output)
    }

    private func built() throws -> URL {
        guard let executable = Self.executable(name) else {
            throw CocoaError(
                .fileNoSuchFile,
                userInfo: [NSLocalizedDescriptionKey: "the \(name) example is not built (swift build builds it)"])
        }
        return executable
    }

    private func launch(
        _ executable: URL, _ arguments: [String], input: String? = nil, environment extra: [String: String] = [:]
    ) throws -> Run {
        let (process, stdin, output) = try prepare(executable, arguments, environment: extra)
        try process.run()
        if let input { stdin.write(Data(input.utf8)) }
        try stdin.close()
        let data = output.readDataToEndOfFile()
        process.waitUntilExit()
        return Run(status: process.terminationStatus, output: String(decoding: data, as: UTF8.self))
    }

    /// A process for the app in the test's home, not started, with its input and its output
    /// (standard output and error together).
    private func prepare(
        _ executable: URL, _ arguments: [String], environment extra: [String: String] = [:]
    ) throws -> (Process, FileHandle, FileHandle) {
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_DATA_HOME"] = home.appendingPathComponent("data").path
        environment["XDG_CONFIG_HOME"] = home.appendingPathComponent("config").path
        environment["XDG_DOCUMENTS_DIR"] = home.appendingPathComponent("Documents").path
        environment["HOME"] = home.path
        environment.merge(extra) { $1 }
        process.environment = environment
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        let stdin = Pipe()
        process.standardInput = stdin
        return (process, stdin.fileHandleForWriting, pipe.fileHandleForReading)
    }
}
