import ArgumentParser
import CDToolCore
import FlyingFox
import FlyingSocks
import Foundation
import OpenCoreData
import OpenCoreDataPostgreSQL
import StoreBrowser

/// `cdtool-serve STORE`: the store browser's web server (`cdtool serve` runs it).
@main
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cdtool-serve",
        abstract:
            "Browse a Core Data store in a web page: its model, its objects filtered by a predicate, each object, its history, exports. Read-only unless --allow-edits.",
        discussion:
            "Prints the page's address, access token included, on its first line, then serves until interrupted."
    )

    @Argument(
        help:
            "The store: a SQLite file made by Core Data or OpenCoreData, or a PostgreSQL store's URL (postgres://user@host:port/database; a password is better kept in PGPASSWORD or ~/.pgpass than in the command line, which other users see)."
    )
    var store: String

    @Option(help: "The schema of a PostgreSQL store (public by default).")
    var schema: String?

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

    @Flag(
        help:
            "Let the page edit objects' attributes and relationships, saved through a managed object context (needs the store's model: given, or cached in the store)."
    )
    var allowEdits = false

    func validate() throws {
        if let token, !StoreBrowser.isValidToken(token) {
            throw ValidationError("--token must be at least 16 letters, digits, '-' or '_'")
        }
        if namesDatabase, databaseURL == nil {
            // Not echoed: the argument may hold a password.
            throw ValidationError(
                "the PostgreSQL URL does not parse: it is postgres://user@host:port/database, with characters such as %, @, /, # or [ in the user or password percent-escaped"
            )
        }
        if schema != nil, databaseURL == nil {
            throw ValidationError("--schema names a PostgreSQL store's schema: give a postgres:// URL")
        }
    }

    /// Whether the store argument is meant as a database's URL (it starts with a PostgreSQL scheme).
    private var namesDatabase: Bool {
        let lowered = store.lowercased()
        return lowered.hasPrefix("postgres:") || lowered.hasPrefix("postgresql:")
    }

    /// The store's URL when it names a database (`postgres://`, `postgresql://`) and parses.
    private var databaseURL: URL? {
        guard namesDatabase, let url = URL(string: store), url.scheme != nil else { return nil }
        return url
    }

    func run() async throws {
        let browser: StoreBrowser
        do {
            let given = try model.map { try ModelFile.load(at: URL(fileURLWithPath: $0)) }
            browser = try StoreBrowser(
                storeURL: databaseURL ?? URL(fileURLWithPath: store),
                storeOptions: schema.map { [NSPostgreSQLSchemaNameOption: $0 as NSString] } ?? [:], model: given,
                token: token ?? StoreBrowser.newToken(), allowsEdits: allowEdits)
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
        var form: [String: String] = [:]
        if request.method == .POST {
            // An edit form is a few kilobytes; a bigger body is no form of ours.
            guard request.headers[.contentType]?.hasPrefix("application/x-www-form-urlencoded") == true,
                let length = request.headers[.contentLength].flatMap({ Int($0) }), length <= Self.formLimit
            else {
                return Self.badRequest(
                    "A form is sent as application/x-www-form-urlencoded, with its length, at most \(Self.formLimit) bytes."
                )
            }
            guard let fields = BrowserRequest.formFields(String(decoding: try await request.bodyData, as: UTF8.self))
            else { return Self.badRequest("The form's body is not valid URL encoding (UTF-8, percent-escaped).") }
            form = fields
        }
        guard let query = BrowserRequest.formFields(request.target.query(percentEncoded: true) ?? "") else {
            return Self.badRequest("The address's query is not valid URL encoding (UTF-8, percent-escaped).")
        }
        let asked = BrowserRequest(
            method: request.method.rawValue, path: request.path, query: query,
            cookies: BrowserRequest.cookies(fromHeader: request.headers[.cookie]), form: form)
        if browser.acceptsEventStream(asked) { return eventStream() }
        let page = browser.respond(to: asked)
        var headers = HTTPHeaders()
        for (name, value) in page.headers { headers.addValue(value, for: HTTPHeader(name)) }
        let status = HTTPStatusCode(page.status, phrase: Self.phrases[page.status] ?? "")
        guard let stream = page.stream else {
            return HTTPResponse(statusCode: status, headers: headers, body: page.body)
        }
        return HTTPResponse(
            statusCode: status, headers: headers, body: HTTPBodySequence(from: ByteChunks.producing(stream)))
    }

    /// `/events`: server-sent events, a `change` event (with the count of remote changes)
    /// each time another process saves, and a comment every 15 seconds that keeps the
    /// connection open through idle proxies.
    func eventStream() -> HTTPResponse {
        let updates = browser.changes.updates()
        let (lines, continuation) = AsyncThrowingStream<[UInt8], any Error>.makeStream(
            bufferingPolicy: .bufferingNewest(8))
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
        return HTTPResponse(statusCode: .ok, headers: headers, body: HTTPBodySequence(from: ByteChunks(chunks: lines)))
    }

    /// A 400 with `message` as text: a request no page can read.
    static func badRequest(_ message: String) -> HTTPResponse {
        HTTPResponse(
            statusCode: .badRequest, headers: [.contentType: "text/plain; charset=utf-8"],
            body: Data((message + "\n").utf8))
    }

    /// The largest form body accepted.
    static let formLimit = 1 << 20

    static let phrases = [
        200: "OK", 303: "See Other", 400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found",
        405: "Method Not Allowed", 409: "Conflict", 422: "Unprocessable Content", 500: "Internal Server Error",
    ]
}

/// Chunks of bytes as FlyingFox's buffered body sequence, sent as they come (chunked);
/// `taken` runs as each chunk is handed on. A chunk stream that ends with an error cuts the
/// response short: the connection closes before the body's end.
struct ByteChunks: AsyncBufferedSequence, Sendable {
    typealias Element = UInt8
    let chunks: AsyncThrowingStream<[UInt8], any Error>
    var taken: @Sendable () -> Void = {}

    func makeAsyncIterator() -> Iterator { Iterator(base: chunks.makeAsyncIterator(), taken: taken) }

    struct Iterator: AsyncBufferedIteratorProtocol {
        var base: AsyncThrowingStream<[UInt8], any Error>.Iterator
        let taken: @Sendable () -> Void
        var pending: [UInt8] = []

        mutating func next() async throws -> UInt8? {
            if pending.isEmpty {
                guard let chunk = try await nextBuffer(suggested: 1) else { return nil }
                pending = chunk
            }
            return pending.isEmpty ? nil : pending.removeFirst()
        }

        mutating func nextBuffer(suggested count: Int) async throws -> [UInt8]? {
            if !pending.isEmpty {
                defer { pending = [] }
                return pending
            }
            let chunk = try await base.next()
            taken()
            return chunk
        }
    }

    /// A streamed body, written on a thread of its own (a dump reads the store synchronously)
    /// at most four pieces ahead of the connection; a reader that goes away stops it.
    static func producing(_ stream: BodyStream) -> ByteChunks {
        let (chunks, continuation) = AsyncThrowingStream<[UInt8], any Error>.makeStream()
        // Made at zero and raised to four: libdispatch traps when a semaphore is freed below
        // the value it was made with, as one is when a reader leaves with pieces queued.
        let room = DispatchSemaphore(value: 0)
        for _ in 0..<4 { room.signal() }
        let gone = OnceFlag()
        continuation.onTermination = { _ in
            gone.set()
            room.signal()
        }
        Thread.detachNewThread {
            do {
                try stream.produce { piece in
                    // An empty chunk would end a chunked body early.
                    guard !piece.isEmpty else { return }
                    room.wait()
                    if gone.isSet { throw CancellationError() }
                    continuation.yield([UInt8](piece))
                }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        return ByteChunks(chunks: chunks, taken: { room.signal() })
    }
}

/// A flag set once, read from any thread.
final class OnceFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false

    var isSet: Bool { lock.withLock { value } }
    func set() { lock.withLock { value = true } }
}
