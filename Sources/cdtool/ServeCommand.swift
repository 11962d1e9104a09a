import ArgumentParser
import Foundation

/// `cdtool serve STORE …`: runs `cdtool-serve`, the store browser's server, which is built
/// beside `cdtool` as its own executable so that the server library stays out of `cdtool`
/// (the codegen plugin builds `cdtool`).
struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Browse a store in a web page (read-only): runs cdtool-serve with the same arguments.",
        discussion:
            "See 'cdtool-serve --help' for the options: --model, --schema, --host, --port, --token, --open, --allow-edits. The store is a SQLite file or a postgres:// URL."
    )

    @Argument(parsing: .allUnrecognized, help: "The store and cdtool-serve's options.")
    var arguments: [String] = []

    func run() throws {
        // The running executable itself (`arguments[0]` is only `cdtool` when found on PATH).
        let executable = Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
        let directory = executable.resolvingSymlinksInPath().deletingLastPathComponent()
        let server = directory.appendingPathComponent("cdtool-serve")
        guard FileManager.default.isExecutableFile(atPath: server.path) else {
            CommandSupport.report(
                "cdtool: error: cdtool serve runs cdtool-serve, which is not built beside cdtool (\(directory.path)): build it with 'swift build --product cdtool-serve'"
            )
            throw ExitCode.failure
        }
        let process = Process()
        process.executableURL = server
        process.arguments = arguments
        try process.run()
        process.waitUntilExit()
        throw ExitCode(process.terminationStatus)
    }
}
