/// A token of the predicate format-string language.
struct PredicateToken {
    enum Kind: Equatable {
        /// A bare word: a key, a keyword (matched case-insensitively by the parser),
        /// a function name such as `add:to:`, or a collection operator such as `@count`.
        case word(String)
        /// A word escaped with `#`, never treated as a keyword.
        case escapedWord(String)
        /// `$name`.
        case variable(String)
        case string(String)
        case integer(Int64)
        case double(Double)
        /// A format specifier without its `%` and length modifiers: `@`, `K`, `d`, `f`, ...
        case specifier(Character)
        /// Punctuation and symbolic operators: `(`, `==`, `&&`, `**`, ...
        case symbol(String)
        case end
    }

    let kind: Kind
    /// Character offset of the token in the format string.
    let position: Int
}

/// Splits a format string into tokens, reporting malformed literals with their position.
struct PredicateLexer {
    private let characters: [Character]
    private let format: String
    private var index = 0

    /// Tokenizes `format`; the last token is always `.end`.
    static func tokenize(_ format: String) throws -> [PredicateToken] {
        var lexer = PredicateLexer(characters: Array(format), format: format)
        var tokens: [PredicateToken] = []
        while true {
            let token = try lexer.next()
            tokens.append(token)
            if token.kind == .end { return tokens }
        }
    }

    private init(characters: [Character], format: String) {
        self.characters = characters
        self.format = format
    }

    private static let symbols = [
        "==", "=<", "=>", "!=", "<>", "<=", ">=", "&&", "||", "**",
        "=", "<", ">", "!", "(", ")", "{", "}", "[", "]", ",", ".", "+", "-", "*", "/",
        "&", "|", "^", "~",
    ]

    private func peek(_ offset: Int = 0) -> Character? {
        index + offset < characters.count ? characters[index + offset] : nil
    }

    private func error(_ reason: String, at position: Int) -> PredicateParseError {
        PredicateParseError(reason: reason, position: position, format: format)
    }

    private static func isWordStart(_ c: Character) -> Bool { c.isLetter || c == "_" }
    private static func isWordPart(_ c: Character) -> Bool { c.isLetter || c.isNumber || c == "_" }

    private mutating func next() throws -> PredicateToken {
        while let c = peek(), c.isWhitespace { index += 1 }
        let start = index
        guard let c = peek() else { return PredicateToken(kind: .end, position: start) }
        func token(_ kind: PredicateToken.Kind) -> PredicateToken { PredicateToken(kind: kind, position: start) }

        if Self.isWordStart(c) { return token(.word(readFunctionWord())) }
        if c.isASCII && c.isNumber { return token(try readNumber()) }
        switch c {
        case "\"", "'":
            return token(.string(try readString(quote: c)))
        case "$", "#", "@":
            index += 1
            guard let next = peek(), Self.isWordStart(next) else {
                throw error("expected a name after '\(c)'", at: start)
            }
            let name = readWord()
            switch c {
            case "$": return token(.variable(name))
            case "#": return token(.escapedWord(name))
            default: return token(.word("@" + name))
            }
        case "%":
            return token(try readSpecifier())
        default:
            for symbol in Self.symbols where matches(symbol) {
                index += symbol.count
                return token(.symbol(symbol))
            }
            throw error("unexpected character '\(c)'", at: start)
        }
    }

    private func matches(_ text: String) -> Bool {
        for (offset, character) in text.enumerated() where peek(offset) != character { return false }
        return true
    }

    private mutating func readWord() -> String {
        var word = ""
        while let c = peek(), Self.isWordPart(c) { word.append(c); index += 1 }
        return word
    }

    /// A word, extended over `:`-separated parts so that `add:to:` is one token.
    private mutating func readFunctionWord() -> String {
        var word = readWord()
        while peek() == ":" {
            word.append(":"); index += 1
            word += readWord()
        }
        return word
    }

    private mutating func readNumber() throws -> PredicateToken.Kind {
        let start = index
        if peek() == "0", let prefix = peek(1), let radix = ["x": 16, "X": 16, "o": 8, "O": 8, "b": 2, "B": 2][prefix] {
            index += 2
            var digits = ""
            while let c = peek(), c.isHexDigit || c.isLetter { digits.append(c); index += 1 }
            guard let value = Int64(digits, radix: radix) else { throw error("invalid number literal", at: start) }
            return .integer(value)
        }
        var text = ""
        var isInteger = true
        func digits() { while let c = peek(), c.isASCII, c.isNumber { text.append(c); index += 1 } }
        digits()
        if peek() == ".", let next = peek(1), next.isASCII, next.isNumber {
            isInteger = false
            text.append("."); index += 1
            digits()
        }
        if let e = peek(), e == "e" || e == "E" {
            let sign = peek(1)
            let hasSign = sign == "+" || sign == "-"
            if let digit = peek(hasSign ? 2 : 1), digit.isASCII, digit.isNumber {
                isInteger = false
                text.append("e"); index += 1
                if hasSign, let sign { text.append(sign); index += 1 }
                digits()
            }
        }
        if let c = peek(), Self.isWordPart(c) { throw error("invalid number literal", at: start) }
        if isInteger, let value = Int64(text) { return .integer(value) }
        guard let value = Double(text) else { throw error("invalid number literal", at: start) }
        return .double(value)
    }

    private mutating func readString(quote: Character) throws -> String {
        let start = index
        index += 1
        var value = ""
        while let c = peek() {
            index += 1
            if c == quote { return value }
            guard c == "\\" else { value.append(c); continue }
            guard let escaped = peek() else { break }
            index += 1
            switch escaped {
            case "n": value.append("\n")
            case "t": value.append("\t")
            case "r": value.append("\r")
            case "0": value.append("\0")
            case "u":
                let hex = String((0..<4).compactMap { peek($0) })
                guard hex.count == 4, let code = UInt32(hex, radix: 16), let scalar = Unicode.Scalar(code) else {
                    throw error("invalid \\u escape", at: index - 2)
                }
                index += 4
                value.unicodeScalars.append(scalar)
            default: value.append(escaped)
            }
        }
        throw error("unterminated string literal", at: start)
    }

    private mutating func readSpecifier() throws -> PredicateToken.Kind {
        let start = index
        index += 1
        while let c = peek(), "lhqzjt".contains(c) { index += 1 }
        guard let c = peek(), "@KdiuxXofeEgGsc".contains(c) else {
            throw error("unsupported format specifier", at: start)
        }
        index += 1
        return .specifier(c)
    }
}
