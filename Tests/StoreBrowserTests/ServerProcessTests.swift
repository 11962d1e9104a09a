import Foundation
import OpenCoreData
import StoreBrowser
import Synchronization
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `cdtool-serve`, the real server, run as `cdtool serve` runs it: the first line is the
/// address with the token, the token is required and then kept in a cookie, pages come
/// back over HTTP.
@Suite struct ServerProcessTests {
    static var server: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(
            "cdtool-serve")
    }

    @Test func theServerPrintsItsAddressAndServesThePages() async throws {
        let (process, line) = try Self.serve(try BrowserFixture.store(authors: 3))
        defer { process.terminate() }
        #expect(line.hasPrefix("http://127.0.0.1:"))
        #expect(line.hasSuffix("/?token=\(BrowserFixture.token)"))
        let base = try #require(URL(string: String(line.prefix { $0 != "?" })))

        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpShouldSetCookies = false
        let session = URLSession(configuration: configuration)
        let (_, refused) = try await session.data(from: base)
        #expect((refused as? HTTPURLResponse)?.statusCode == 401)

        let (body, response) = try await session.data(from: try #require(URL(string: line)))
        let http = try #require(response as? HTTPURLResponse)
        #expect(http.statusCode == 200)
        #expect(String(decoding: body, as: UTF8.self).contains("Library.sqlite"))
        let cookie = try #require(http.value(forHTTPHeaderField: "Set-Cookie"))

        var request = URLRequest(url: base.appendingPathComponent("entity/Author"))
        request.setValue(String(cookie.prefix { $0 != ";" }), forHTTPHeaderField: "Cookie")
        let (page, pageResponse) = try await session.data(for: request)
        #expect((pageResponse as? HTTPURLResponse)?.statusCode == 200)
        #expect(String(decoding: page, as: UTF8.self).contains(#"<a href="/object/Author/p3">Author/p3</a>"#))

        // A form sends spaces as '+': the predicate arrives as typed.
        var filtered = URLRequest(
            url: try #require(
                URL(string: base.absoluteString + "entity/Author?predicate=name+BEGINSWITH+%27Author+2%27")))
        filtered.setValue(String(cookie.prefix { $0 != ";" }), forHTTPHeaderField: "Cookie")
        let (rows, filteredResponse) = try await session.data(for: filtered)
        #expect((filteredResponse as? HTTPURLResponse)?.statusCode == 200)
        #expect(String(decoding: rows, as: UTF8.self).contains(#"<a href="/object/Author/p3">Author/p3</a>"#))
        #expect(!String(decoding: rows, as: UTF8.self).contains(#"<a href="/object/Author/p2">"#))
    }

    /// `/events` tells an open page of every save another process makes: the server
    /// watches the store and sends a `change` event.
    @Test func savesByAnotherProcessReachTheEventStream() async throws {
        let store = try BrowserFixture.store(authors: 2)
        let (process, line) = try Self.serve(store)
        defer { process.terminate() }
        let base = String(line.prefix { $0 != "?" })
        // This test's process is the other process: it opens the store first (so nothing its
        // opening does is taken for a save), then saves once the stream is open.
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: BrowserFixture.model())
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: store)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let events = EventCollector()
        let session = URLSession(configuration: .ephemeral, delegate: events, delegateQueue: nil)
        var request = URLRequest(url: try #require(URL(string: base + "events")))
        request.setValue("cdtool_token=\(BrowserFixture.token)", forHTTPHeaderField: "Cookie")
        let task = session.dataTask(with: request)
        task.resume()
        defer {
            task.cancel()
            session.invalidateAndCancel()
        }
        #expect(await events.wait(for: ": connected"))

        try context.performAndWait {
            NSEntityDescription.insertNewObject(forEntityName: "Author", into: context).setValue("New", forKey: "name")
            try context.save()
        }
        #expect(await events.wait(for: "event: change\ndata: 1\n\n"))

        let (script, response) = try await URLSession.shared.data(
            for: {
                var request = URLRequest(url: URL(string: base + "browser.js")!)
                request.setValue("cdtool_token=\(BrowserFixture.token)", forHTTPHeaderField: "Cookie")
                return request
            }())
        #expect(
            (response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Content-Type")
                == "text/javascript; charset=utf-8")
        #expect(String(decoding: script, as: UTF8.self).contains("new EventSource(\"/events\")"))
    }

    @Test func aMissingStoreIsAClearErrorAndExitCode() throws {
        let process = Process()
        process.executableURL = Self.server
        process.arguments = ["/nonexistent/store.sqlite"]
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 1)
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(message.hasPrefix("cdtool serve: error: "), "\(message)")
        #expect(message.contains("/nonexistent/store.sqlite"))
    }

    /// `cdtool-serve` started on `store` with the fixture's token, and the first line it
    /// printed (the address).
    static func serve(_ store: URL) throws -> (process: Process, address: String) {
        let process = Process()
        process.executableURL = server
        process.arguments = [store.path, "--token", BrowserFixture.token]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        guard let line = firstLine(of: output.fileHandleForReading) else {
            process.terminate()
            throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "cdtool-serve printed no address"])
        }
        return (process, line)
    }

    /// The first line a process writes, or `nil` if it ends first.
    static func firstLine(of handle: FileHandle) -> String? {
        var bytes = Data()
        while true {
            let chunk = handle.readData(ofLength: 1)
            if chunk.isEmpty { return nil }
            if chunk == Data("\n".utf8) { return String(decoding: bytes, as: UTF8.self) }
            bytes.append(chunk)
        }
    }
}

/// Collects what a streaming response sends, for tests that wait for an event.
final class EventCollector: NSObject, URLSessionDataDelegate, Sendable {
    private let received = Mutex("")

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        received.withLock { $0 += String(decoding: data, as: UTF8.self) }
    }

    /// Whether `text` arrives within thirty seconds (a loaded machine runs tests in parallel).
    func wait(for text: String) async -> Bool {
        for _ in 0..<600 {
            if received.withLock({ $0.contains(text) }) { return true }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return false
    }
}
