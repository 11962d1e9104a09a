import ArgumentParser
import CDToolCore
import FlyingFox
import FlyingSocks
import Foundation
import OpenCoreData
import StoreBrowser

/// `cdtool-serve STORE`: the store browser's web server (`cdtool serve` runs it).
@main
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cdtool-serve",
        abstract:
            "Browse a Core Data store in a web page: its model, its objects filtered by a predicate, each object, exports. Read-only.",
        discussion:
            "Prints the page's address, access token included, on its first line, then serves until interrupted."
    )

    @Argument(help: "The store: a SQLite file made by Core Data or OpenCoreData.")
    var store: String

    @Option(
        help:
            "The model to read the store with (.xcdatamodeld, .momd, .xcdatamodel, .mom); by default the one the store caches, or one inferred from its tables."
    )
    var model: String?

    @Option(
        help: "The address to listen on. Anything but loopback shares the store with the network: only with the token.")
    var host = "127.0.0.1"

    @Option(help: "The port (0 picks a free one).")
    var port: UInt16 = 0

    @Option(help: "The access token (by default a new random one each run).")
    var token: String?

    @Flag(help: "Open the page in the default browser (xdg-open).")
    var open = false

    func validate() throws {
        if let token, !StoreBrowser.isValidToken(token) {
            throw ValidationError("--token must be at least 16 letters, digits, '-' or '_'")
        }
    }

    func run() async throws {
        let browser: StoreBrowser
        do {
            let url = URL(fileURLWithPath: store)
            let given = try model.map { try ModelFile.load(at: URL(fileURLWithPath: $0)) }
            browser = try StoreBrowser(storeURL: url, model: given, token: token ?? StoreBrowser.newToken())
        } catch {
            FileHandle.standardError.write(Data("cdtool serve: error: \(CDToolError(wrapping: error))\n".utf8))
            throw ExitCode.failure
        }
        let server: HTTPServer
        do {
            server = HTTPServer(
                address: try .inet(ip4: host, port: port), logger: .disabled, handler: BrowserHandler(browser: browser))
        } catch {
            FileHandle.standardError.write(Data("cdtool serve: error: \(host) is not an IPv4 address\n".utf8))
            throw ExitCode.failure
        }
        let task = Task { try await server.run() }
        try await server.waitUntilListening()
        guard case let .ip4(_, listening)? = await server.listeningAddress else {
            throw ExitCode.failure
        }
        let link = "http://\(host):\(listening)/?token=\(browser.token)"
        // Unbuffered, so a script reading the first line gets it now.
        FileHandle.standardOutput.write(Data((link + "\n").utf8))
        if open { _ = try? Process.run(URL(fileURLWithPath: "/usr/bin/xdg-open"), arguments: [link]) }
        try await task.value
    }
}

/// Hands FlyingFox's requests to the browser's pages and back.
struct BrowserHandler: HTTPHandler {
    let browser: StoreBrowser

    func handleRequest(_ request: HTTPRequest) async throws -> HTTPResponse {
        let asked = BrowserRequest(
            method: request.method.rawValue, path: request.path,
            query: Self.formQuery(request.target.query(percentEncoded: true)),
            cookies: BrowserRequest.cookies(fromHeader: request.headers[.cookie]))
        if browser.acceptsEventStream(asked) { return eventStream() }
        let page = browser.respond(to: asked)
        var headers = HTTPHeaders()
        for (name, value) in page.headers { headers.addValue(value, for: HTTPHeader(name)) }
        return HTTPResponse(
            statusCode: HTTPStatusCode(page.status, phrase: Self.phrases[page.status] ?? ""), headers: headers,
            body: page.body)
    }

    /// `/events`: server-sent events, a `change` event (with the count of remote changes)
    /// each time another process saves, and a comment every 15 seconds that keeps the
    /// connection open through idle proxies.
    func eventStream() -> HTTPResponse {
        let updates = browser.changes.updates()
        let (lines, continuation) = AsyncStream<[UInt8]>.makeStream(bufferingPolicy: .bufferingNewest(8))
        let forward = Task {
            for await count in updates { continuation.yield(Array("event: change\ndata: \(count)\n\n".utf8)) }
            continuation.finish()
        }
        let ping = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(15))
                continuation.yield(Array(": ping\n\n".utf8))
            }
        }
        continuation.onTermination = { _ in
            forward.cancel()
            ping.cancel()
        }
        continuation.yield(Array(": connected\n\n".utf8))
        var headers = HTTPHeaders()
        headers[.contentType] = "text/event-stream"
        headers[HTTPHeader("Cache-Control")] = "no-store"
        return HTTPResponse(statusCode: .ok, headers: headers, body: HTTPBodySequence(from: EventBytes(chunks: lines)))
    }

    /// A query string as a browser's form sends it: `+` for a space, then percent-decoded
    /// (`URLComponents` keeps a `+` as it is, which would turn `a == 'b c'` into `a+==+…`).
    static func formQuery(_ query: String) -> [String: String] {
        var items: [String: String] = [:]
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decoded(_ part: Substring) -> String {
                part.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(part)
            }
            items[decoded(parts[0])] = parts.count > 1 ? decoded(parts[1]) : ""
        }
        return items
    }

    static let phrases = [
        200: "OK", 400: "Bad Request", 401: "Unauthorized", 404: "Not Found", 405: "Method Not Allowed",
        500: "Internal Server Error",
    ]
}

/// Chunks of bytes as FlyingFox's buffered body sequence, sent as they come (chunked).
struct EventBytes: AsyncBufferedSequence, Sendable {
    typealias Element = UInt8
    let chunks: AsyncStream<[UInt8]>

    func makeAsyncIterator() -> Iterator { Iterator(base: chunks.makeAsyncIterator()) }

    struct Iterator: AsyncBufferedIteratorProtocol {
        var base: AsyncStream<[UInt8]>.Iterator
        var pending: [UInt8] = []

        mutating func next() async -> UInt8? {
            if pending.isEmpty {
                guard let chunk = await base.next() else { return nil }
                pending = chunk
            }
            return pending.isEmpty ? nil : pending.removeFirst()
        }

        mutating func nextBuffer(suggested count: Int) async -> [UInt8]? {
            if !pending.isEmpty {
                defer { pending = [] }
                return pending
            }
            return await base.next()
        }
    }
}
