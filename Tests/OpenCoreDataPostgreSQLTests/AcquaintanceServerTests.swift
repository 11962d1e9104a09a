import Foundation
import OpenCoreDataTestSupport
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The example server (Examples/AcquaintanceServer) as it is meant to run: three processes on
/// one PostgreSQL database behind a client that spreads its requests over all of them. Every
/// addition reported saved is there once, and every server's list (a results controller kept
/// current by remote change notifications and persistent history, never refetched) shows
/// every server's additions.
@Suite(
    .enabled(
        if: PostgreSQLTestServer.testsAreEnabled,
        "PostgreSQL server binaries not found (install postgresql, or set OPENCOREDATA_POSTGRES_URL)"))
struct AcquaintanceServerTests {
    static var executable: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(
            "AcquaintanceServer")
    }

    struct Status: Decodable {
        var server: String
        var people: Int
        var remoteChanges: Int
        var mergedTransactions: Int
    }

    struct Person: Codable {
        var name: String
        var phone: String?
    }

    /// Starts a server on `database`; returns it and the address its first line gives.
    private func start(_ database: URL, name: String) throws -> (Process, URL) {
        let process = Process()
        process.executableURL = Self.executable
        process.arguments = ["--database", database.absoluteString, "--name", name]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Read on a thread of its own, so a server that never prints fails the test, not hangs it.
        let first = FirstLine()
        Thread {
            var line = Data()
            while !line.contains(UInt8(ascii: "\n")) {
                let chunk = output.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                line += chunk
            }
            first.set(String(decoding: line, as: UTF8.self))
        }.start()
        let text = (first.wait(timeout: 60) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        guard text.hasPrefix("listening on "), let url = URL(string: String(text.dropFirst("listening on ".count)))
        else {
            process.terminate()
            throw Failure("the server \(name) did not start: \(text)")
        }
        return (process, url)
    }

    /// A line one thread reads and another waits for.
    final class FirstLine: @unchecked Sendable {
        private let condition = NSCondition()
        private var line: String?

        func set(_ line: String) {
            condition.withLock {
                self.line = line
                condition.broadcast()
            }
        }

        func wait(timeout: TimeInterval) -> String? {
            let deadline = Date(timeIntervalSinceNow: timeout)
            return condition.withLock {
                while line == nil { if !condition.wait(until: deadline) { break } }
                return line
            }
        }
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    private func get<T: Decodable>(_ url: URL, as type: T.Type) async throws -> T {
        let (data, _) = try await URLSession.shared.data(from: url)
        return try JSONDecoder().decode(type, from: data)
    }

    private func post(_ person: Person, to server: URL) async throws -> Int {
        var request = URLRequest(url: server.appendingPathComponent("people"))
        request.httpMethod = "POST"
        request.httpBody = try JSONEncoder().encode(person)
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        let (_, response) = try await URLSession.shared.data(for: request)
        return (response as? HTTPURLResponse)?.statusCode ?? 0
    }

    @Test func threeServersOnOneDatabaseEachSeeEveryAddition() async throws {
        #expect(
            FileManager.default.isExecutableFile(atPath: Self.executable.path), "the example is built with the tests")
        let database = try PostgreSQLTestServer.makeDatabase()
        var processes: [Process] = []
        defer { for process in processes { process.terminate() } }
        var servers: [URL] = []
        for name in ["north", "south", "west"] {
            let (process, url) = try start(database, name: name)
            processes.append(process)
            servers.append(url)
        }
        let clients = 4, each = 30
        let statuses = try await withThrowingTaskGroup(of: [Int].self) { group in
            for client in 0..<clients {
                let targets = servers
                group.addTask {
                    var statuses: [Int] = []
                    for index in 0..<each {
                        let person = Person(name: "C\(client)-\(index)", phone: "555-\(client)\(index)")
                        statuses.append(try await post(person, to: targets[(client + index) % targets.count]))
                    }
                    return statuses
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        #expect(statuses.count == clients * each && statuses.allSatisfy { $0 == 201 }, "\(Set(statuses))")
        let expected = Set((0..<clients).flatMap { client in (0..<each).map { "C\(client)-\($0)" } })
        for server in servers {
            var status = try await get(server.appendingPathComponent("status"), as: Status.self)
            let deadline = Date(timeIntervalSinceNow: 30)
            while status.people < expected.count, Date() < deadline {
                try await Task.sleep(nanoseconds: 100_000_000)
                status = try await get(server.appendingPathComponent("status"), as: Status.self)
            }
            #expect(status.people == expected.count, "\(status.server) shows every server's additions")
            #expect(status.mergedTransactions == expected.count, "\(status.server) merged each save once")
            #expect(status.remoteChanges > 0)
            let people = try await get(server.appendingPathComponent("people"), as: [Person].self)
            #expect(Set(people.map(\.name)) == expected && people.count == expected.count, "\(status.server)")
            #expect(people.map(\.name) == people.map(\.name).sorted(), "by name")
        }
    }

    /// Runs the server with `arguments` until it exits: its status and its output and errors.
    private func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = Self.executable
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, text)
    }

    @Test func helpAndUsageErrors() throws {
        let help = try run(["--help"])
        #expect(help.status == 0)
        #expect(help.output.contains("USAGE: AcquaintanceServer --database <database>"), "\(help.output)")
        #expect(help.output.contains("GET  /people"))
        let missing = try run([])
        #expect(missing.status == 64)
        #expect(missing.output.contains("Missing expected argument '--database <database>'"), "\(missing.output)")
        let wrong = try run(["--database", "/tmp/people.sqlite"])
        #expect(wrong.status == 64)
        #expect(wrong.output.contains("--database needs a postgres:// URL"), "\(wrong.output)")
        let unreachable = try run(["--database", "postgres://nobody@127.0.0.1:1/none"])
        #expect(unreachable.status == 1)
        #expect(
            unreachable.output.contains("Can't open the store in postgres://nobody@127.0.0.1:1/none"),
            "\(unreachable.output)")
    }

    @Test func badRequestsAreRefusedClearly() async throws {
        let database = try PostgreSQLTestServer.makeDatabase()
        let (process, server) = try start(database, name: "only")
        defer { process.terminate() }
        #expect(try await post(Person(name: " "), to: server) == 400)
        var request = URLRequest(url: server.appendingPathComponent("people"))
        request.httpMethod = "POST"
        request.httpBody = Data("not JSON".utf8)
        let (_, response) = try await URLSession.shared.data(for: request)
        #expect((response as? HTTPURLResponse)?.statusCode == 400)
        let (_, missing) = try await URLSession.shared.data(from: server.appendingPathComponent("nowhere"))
        #expect((missing as? HTTPURLResponse)?.statusCode == 404)
    }
}
