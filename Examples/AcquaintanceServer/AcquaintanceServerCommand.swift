import ArgumentParser
import ExampleSupport
import FlyingFox
import Foundation
import OpenCoreData

/// Acquaintance's address book as a small HTTP API over a PostgreSQL store, to run as several
/// processes (on several hosts) against one database: each server keeps its list of people
/// current with every server's saves, through remote change notifications and persistent
/// history, as an app's view context follows its extensions' saves.
@main
struct AcquaintanceServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "AcquaintanceServer",
        abstract: "Serve Acquaintance's address book over HTTP from a PostgreSQL database.",
        discussion: """
            Prints "listening on http://127.0.0.1:PORT" once it serves. Routes:
              GET  /people   the people, by name, as JSON [{"name", "phone"}], from this server's
                             list (kept current with every server's saves)
              POST /people   adds a person: JSON {"name", "phone"}; answers 201 with {"uri"}
              GET  /status   {"server", "people", "remoteChanges", "mergedTransactions"}
            Run several against one --database: each sees the others' additions.
            """
    )

    @Option(help: "The PostgreSQL database: postgres://user@host:port/database.")
    var database: String
    @Option(help: "The schema holding the store.")
    var schema = "public"
    @Option(help: "The port to listen on, on 127.0.0.1 (0: any free port).")
    var port: UInt16 = 0
    @Option(help: "This server's name in /status (default: its process id).")
    var name: String?

    /// Failures are one sentence each (ExampleSupport), never an error's dump.
    static func main() async { await asyncMainPresentingFailures() }

    func validate() throws {
        guard let url = URL(string: database), ["postgres", "postgresql"].contains(url.scheme ?? "") else {
            throw ValidationError("--database needs a postgres:// URL, not \(database)")
        }
    }

    func run() async throws {
        let directory = try PeopleDirectory(database: URL(string: database)!, schema: schema)
        let server = HTTPServer(address: try .inet(ip4: "127.0.0.1", port: port), logger: .disabled)
        await PeopleRoutes.install(on: server, directory: directory, serverName: name ?? "\(getpid())")
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await server.run() }
            try await server.waitUntilListening()
            guard case let .ip4(host, listening)? = await server.listeningAddress else {
                throw ExampleFailure("The server is not listening on an IPv4 address")
            }
            // Unbuffered: whoever started the server reads its address from this line.
            FileHandle.standardOutput.write(Data("listening on http://\(host):\(listening)\n".utf8))
            try await group.waitForAll()
        }
    }
}
