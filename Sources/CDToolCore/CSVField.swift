/// RFC 4180 quoting for `cdtool dump --format csv`.
enum CSVField {
    /// `text` as a CSV field: quoted when it holds a comma, a quote, a line break or
    /// leading/trailing spaces, with its quotes doubled.
    static func quoted(_ text: String) -> String {
        // Scalars, not Characters: "\r\n" is one Character, equal to neither "\r" nor "\n".
        let needsQuotes =
            text.unicodeScalars.contains { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }
            || text.first == " " || text.last == " "
        guard needsQuotes else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// One CSV record (without its line break).
    static func record(_ fields: [String]) -> String {
        fields.map(quoted).joined(separator: ",")
    }
}
