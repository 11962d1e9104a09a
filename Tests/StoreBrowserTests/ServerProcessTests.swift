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

    /// With `--allow-edits`, a form posted over HTTP is saved and answered with the object's page.
    @Test func anEditFormPostedOverHTTPIsSaved() async throws {
        let (process, line) = try Self.serve(try BrowserFixture.store(authors: 2), ["--allow-edits"])
        defer { process.terminate() }
        let base = String(line.prefix { $0 != "?" })
        let session = URLSession(configuration: .ephemeral)
        func request(_ path: String) throws -> URLRequest {
            var request = URLRequest(url: try #require(URL(string: base + path)))
            request.setValue("cdtool_token=\(BrowserFixture.token)", forHTTPHeaderField: "Cookie")
            return request
        }
        let (page, _) = try await session.data(for: try request("object/Author/p2/edit"))
        var form = try StoreEditTests.form(
            of: BrowserResponse(contentType: "text/html", body: page))
        form["value:name"] = "Grace Hopper & co"
        var post = try request("object/Author/p2/edit")
        post.httpMethod = "POST"
        post.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        post.httpBody = Data(
            form.map { name, value in
                [name, value].map { $0.addingPercentEncoding(withAllowedCharacters: allowed) ?? "" }
                    .joined(separator: "=")
            }.joined(separator: "&").utf8)
        // The 303 is followed to the object's page.
        let (answer, response) = try await session.data(for: post)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(response.url?.path == "/object/Author/p2")
        let text = String(decoding: answer, as: UTF8.self)
        #expect(text.contains("Saved."))
        #expect(text.contains("Grace Hopper &amp; co"))

        // A body that is not a form is refused before any page sees it.
        var json = try request("object/Author/p2/edit")
        json.httpMethod = "POST"
        json.setValue("application/json", forHTTPHeaderField: "Content-Type")
        json.httpBody = Data("{}".utf8)
        let (_, refused) = try await session.data(for: json)
        #expect((refused as? HTTPURLResponse)?.statusCode == 400)
    }

    /// An export bigger than one piece is streamed (chunked) and arrives whole, in order.
    @Test func aLargeExportIsStreamedWhole() async throws {
        let store = try BrowserFixture.store(authors: 3_000)
        let (process, line) = try Self.serve(store)
        defer { process.terminate() }
        var request = URLRequest(
            url: try #require(URL(string: String(line.prefix { $0 != "?" }) + "export/Book.csv?sort=-price")))
        request.setValue("cdtool_token=\(BrowserFixture.token)", forHTTPHeaderField: "Cookie")
        let (body, response) = try await URLSession(configuration: .ephemeral).data(for: request)
        let http = try #require(response as? HTTPURLResponse)
        #expect(http.statusCode == 200)
        #expect(http.value(forHTTPHeaderField: "Transfer-Encoding")?.lowercased() == "chunked")
        // Every book once, in order (most expensive first), after the header.
        let lines = String(decoding: body, as: UTF8.self).split(separator: "\n")
        #expect(body.count > 200_000)
        #expect(lines.count == 6_001)
        let column = try #require(lines.first?.split(separator: ",").firstIndex(of: "price"))
        let prices = lines.dropFirst().compactMap { line in
            Double(line.split(separator: ",", omittingEmptySubsequences: false)[column])
        }
        #expect(prices.count == 6_000)
        #expect(prices.elementsEqual(prices.sorted(by: >)))
        #expect(Set(lines.dropFirst().map { $0.prefix { $0 != "," } }).count == 6_000)

        // A reader that takes the first bytes and leaves stops the export; the server goes on.
        // (Many times over: each leaves the server with pieces it had made and cannot send.)
        let port = try #require(URL(string: line)?.port)
        for _ in 0..<5 {
            #expect(try Self.readFirstBytesAndLeave(port: port, path: "/export/Book.csv?sort=-price"))
        }
        try await Task.sleep(for: .milliseconds(500))
        #expect(process.isRunning)
        var overview = URLRequest(url: try #require(URL(string: String(line.prefix { $0 != "?" }))))
        overview.setValue("cdtool_token=\(BrowserFixture.token)", forHTTPHeaderField: "Cookie")
        let (_, after) = try await URLSession(configuration: .ephemeral).data(for: overview)
        #expect((after as? HTTPURLResponse)?.statusCode == 200)
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

    /// `cdtool-serve` started on `store` with the fixture's token and `arguments`, and the first line it
    /// printed (the address).
    static func serve(_ store: URL, _ arguments: [String] = []) throws -> (process: Process, address: String) {
        let process = Process()
        process.executableURL = server
        process.arguments =
            [store.isFileURL ? store.path : store.absoluteString, "--token", BrowserFixture.token] + arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        guard let line = firstLine(of: output.fileHandleForReading) else {
            process.terminate()
            throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "cdtool-serve printed no address"])
        }
        return (process, line)
    }

    /// Asks the server on `port` for `path` over a plain socket, reads the first kilobyte and
    /// closes the connection, so the server is left with pieces it cannot send. Whether the
    /// answer began.
    static func readFirstBytesAndLeave(port: Int, path: String) throws -> Bool {
        #if canImport(Glibc)
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { return false }
        let request = Array(
            "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: cdtool_token=\(BrowserFixture.token)\r\n\r\n".utf8)
        guard send(socket, request, request.count, 0) == request.count else { return false }
        var buffer = [UInt8](repeating: 0, count: 1024)
        let count = recv(socket, &buffer, buffer.count, 0)
        return count > 0 && String(decoding: buffer.prefix(max(count, 0)), as: UTF8.self).hasPrefix("HTTP/1.1 200")
        #else
        return true
        #endif
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
