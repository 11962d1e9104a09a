/// Statement text with SQLite's `?` placeholders turned into PostgreSQL's numbered `$1`, `$2`…
///
/// The store's statement builders write `?` (fragments compose by appending text and values in
/// placeholder order, which numbered placeholders would break); the PostgreSQL engine numbers
/// them when it runs a statement. A `?` inside a string literal (`'…'`), a quoted identifier
/// (`"…"`) or a comment is text, not a placeholder, and stays as it is.
package enum PostgreSQLPlaceholders {
    /// `sql` with each placeholder numbered in order from 1.
    package static func numbered(_ sql: String) -> String {
        var result = ""
        result.reserveCapacity(sql.utf8.count + 8)
        var number = 0
        var quote: Character?
        var inLineComment = false
        var previous: Character?
        for character in sql {
            defer { previous = character }
            if inLineComment {
                if character == "\n" { inLineComment = false }
            } else if let open = quote {
                // A doubled quote inside a literal is an escaped quote: it closes and reopens.
                if character == open { quote = nil }
            } else if character == "'" || character == "\"" {
                quote = character
            } else if character == "-" && previous == "-" {
                inLineComment = true
            } else if character == "?" {
                number += 1
                result += "$\(number)"
                continue
            }
            result.append(character)
        }
        return result
    }
}
