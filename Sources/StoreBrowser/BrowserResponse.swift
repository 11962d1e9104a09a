import Foundation

/// What the store browser answers: a status, headers and a body, for any HTTP server to send.
public struct BrowserResponse: Sendable {
    /// The HTTP status code.
    public var status: Int
    /// Header fields in order (`Set-Cookie` may repeat).
    public var headers: [(name: String, value: String)]
    /// The body's bytes (empty when the body is a ``stream``).
    public var body: Data
    /// A body written in pieces as it is made (an export of a whole table), for the server
    /// to send as they come instead of holding it whole.
    public var stream: BodyStream?

    /// A response of `status` with `body` of type `contentType`.
    public init(status: Int = 200, contentType: String, body: Data) {
        self.status = status
        self.headers = [("Content-Type", contentType), ("X-Content-Type-Options", "nosniff")]
        self.body = body
    }

    /// An HTML page.
    static func html(_ page: String, status: Int = 200) -> BrowserResponse {
        var response = BrowserResponse(status: status, contentType: "text/html; charset=utf-8", body: Data(page.utf8))
        // Nothing on a page loads from elsewhere or runs inline script: a store's strings stay text.
        // The one script is the browser's own file (live updates); nothing inline runs.
        response.headers.append(
            (
                "Content-Security-Policy",
                "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
            ))
        return response
    }

    /// A 303 to `location`: after a form is sent, the browser asks for that page.
    static func seeOther(_ location: String) -> BrowserResponse {
        var response = BrowserResponse(status: 303, contentType: "text/plain; charset=utf-8", body: Data())
        response.headers.append(("Location", location))
        return response
    }

    /// The body as text (UTF-8), for tests and logs (a ``stream`` is not read: see ``collected()``).
    public var text: String { String(decoding: body, as: UTF8.self) }

    /// The whole body: ``body`` then, for a streamed one, everything its ``stream`` writes.
    public func collected() throws -> Data {
        var data = body
        try stream?.produce { data.append($0) }
        return data
    }

    /// The first header named `name` (case-insensitive).
    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }
}

/// A response body made in pieces: ``produce`` hands each piece to the `write` it is given,
/// in order, and returns when the body is whole. A `write` that throws (the reader went
/// away) stops it; an error thrown by ``produce`` after pieces were sent cuts the response
/// short, which the server shows by closing the connection before the body's end.
public struct BodyStream: Sendable {
    /// Writes the body through `write`.
    public let produce: @Sendable (_ write: (Data) throws -> Void) throws -> Void

    /// A body that `produce` writes.
    public init(_ produce: @escaping @Sendable (_ write: (Data) throws -> Void) throws -> Void) {
        self.produce = produce
    }
}
