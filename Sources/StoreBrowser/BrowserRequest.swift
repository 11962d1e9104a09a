import Foundation

/// One request to the store browser, as any HTTP server hands it over: the pages are
/// written against this, not against a server library, so tests call them directly.
public struct BrowserRequest: Sendable {
    /// `GET`, `POST`, …
    public var method: String
    /// The path, percent-decoded (`/entity/Recipe`).
    public var path: String
    /// The query's parameters, decoded; the last of a repeated name wins.
    public var query: [String: String]
    /// The cookies the browser sent, by name.
    public var cookies: [String: String]
    /// A `POST`'s form fields (`application/x-www-form-urlencoded`), decoded.
    public var form: [String: String]

    /// A request for `path` with `query`, `cookies` and a posted `form`.
    public init(
        method: String = "GET", path: String, query: [String: String] = [:], cookies: [String: String] = [:],
        form: [String: String] = [:]
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.cookies = cookies
        self.form = form
    }

    /// The fields of a query string or a form's body as browsers encode them
    /// (`application/x-www-form-urlencoded`): `+` for a space, then percent-encoding.
    /// The last of a repeated name wins; `nil` when an escape is malformed or does not spell
    /// UTF-8, rather than keeping the text as it came.
    ///
    /// `URLComponents` keeps a `+` as it is, which would turn `a == 'b c'` into `a+==+…`.
    public static func formFields(_ encoded: String) -> [String: String]? {
        var fields: [String: String] = [:]
        for pair in encoded.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = parts[0].replacingOccurrences(of: "+", with: " ").removingPercentEncoding,
                let value = parts.count > 1
                    ? parts[1].replacingOccurrences(of: "+", with: " ").removingPercentEncoding : ""
            else { return nil }
            fields[name] = value
        }
        return fields
    }

    /// The cookies of a `Cookie` header (`a=1; b=2`).
    public static func cookies(fromHeader header: String?) -> [String: String] {
        var cookies: [String: String] = [:]
        for pair in (header ?? "").split(separator: ";") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            guard parts.count == 2 else { continue }
            cookies[parts[0].trimmingCharacters(in: .whitespaces)] = parts[1].trimmingCharacters(in: .whitespaces)
        }
        return cookies
    }
}
