import Foundation

/// The browser's HTML: every value from the store goes through ``escape(_:)``, and every
/// page through ``page(title:body:)``, so escaping happens in one place.
enum HTML {
    /// `text` safe inside an element or a quoted attribute: `& < > " '` as references,
    /// other control characters (but tab and line breaks) as U+FFFD.
    static func escape(_ text: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            case "\t", "\n", "\r": escaped.unicodeScalars.append(scalar)
            case _ where scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value): escaped += "\u{FFFD}"
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }

    /// `text` as one component of a URL's path or query.
    static func component(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
    }

    /// A link to `path` with `query` (names and values encoded) and `fragment`, its text escaped.
    static func link(_ text: String, to path: String, query: [(String, String)] = [], fragment: String? = nil) -> String
    {
        let target = url(path, query: query) + (fragment.map { "#" + component($0) } ?? "")
        return "<a href=\"\(escape(target))\">\(escape(text))</a>"
    }

    /// `path?name=value&…` with every name and value encoded.
    static func url(_ path: String, query: [(String, String)] = []) -> String {
        let parameters = query.map { "\(component($0.0))=\(component($0.1))" }.joined(separator: "&")
        return parameters.isEmpty ? path : "\(path)?\(parameters)"
    }

    /// A whole page: the store's name in the title, the navigation, then `body` (HTML).
    static func page(title: String, store: String, body: String) -> String {
        """
        <!DOCTYPE html>
        <html lang="en"><head><meta charset="utf-8"><title>\(escape(title)) · \(escape(store))</title>
        <style>
        body{font:14px -apple-system,system-ui,sans-serif;margin:0;color:#1d1d1f}
        nav{background:#1d1d1f;padding:8px 16px}nav a{color:#fff;margin-right:16px;text-decoration:none}
        main{padding:16px}table{border-collapse:collapse}td,th{border:1px solid #d2d2d7;padding:3px 8px;text-align:left;vertical-align:top}
        th{background:#f5f5f7}.error{color:#b00020;white-space:pre-wrap}.muted{color:#6e6e73}code{font-size:12px}
        body[data-live=connected] nav::after{content:"● live";color:#30d158;float:right}
        </style><script src="/browser.js" defer></script></head><body>
        <nav>\(link("Overview", to: "/"))\(link("Model", to: "/model"))\(link("History", to: "/history"))</nav>
        <main><h1>\(escape(title))</h1>
        \(body)
        </main></body></html>
        """
    }

    /// A table with `header` cells (none for an empty list) and `rows` of cells, all already HTML.
    static func table(header: [String], rows: [[String]]) -> String {
        let head = header.isEmpty ? "" : "<thead><tr>" + header.map { "<th>\($0)</th>" }.joined() + "</tr></thead>"
        let body = rows.map { "<tr>" + $0.map { "<td>\($0)</td>" }.joined() + "</tr>" }.joined(separator: "\n")
        return "<table>\(head)<tbody>\n\(body)\n</tbody></table>"
    }
}
