/// String operations behind the string operators of predicates, shared with
/// other code (such as SQL functions) that must agree with in-memory evaluation.
package enum StringMatching {
    /// Folds `string` for the `[c]` and `[d]` options, independently of any locale.
    ///
    /// `[n]` promises already-normalized input and so folds nothing.
    package static func fold(_ string: String, options: NSComparisonPredicate.Options) -> String {
        var foldingOptions: String.CompareOptions = []
        if options.contains(.caseInsensitive) { foldingOptions.insert(.caseInsensitive) }
        if options.contains(.diacriticInsensitive) { foldingOptions.insert(.diacriticInsensitive) }
        guard !foldingOptions.isEmpty else { return string }
        return string.folding(options: foldingOptions, locale: nil)
    }

    /// The string in `value`, if it holds one (Swift `String`, `NSString` or `Substring`).
    package static func string(from value: Any?) -> String? {
        switch value {
        case let string as String: return string
        case let substring as Substring: return String(substring)
        case let string as NSString: return string as String
        default: return nil
        }
    }

    /// Whether `string` starts with `prefix`; an empty prefix never matches, as in Foundation.
    package static func hasPrefix(_ string: String, _ prefix: String, options: NSComparisonPredicate.Options) -> Bool {
        guard !prefix.isEmpty else { return false }
        return fold(string, options: options).hasPrefix(fold(prefix, options: options))
    }

    /// Whether `string` ends with `suffix`; an empty suffix never matches, as in Foundation.
    package static func hasSuffix(_ string: String, _ suffix: String, options: NSComparisonPredicate.Options) -> Bool {
        guard !suffix.isEmpty else { return false }
        return fold(string, options: options).hasSuffix(fold(suffix, options: options))
    }

    /// Whether `string` contains `substring`; an empty substring never matches, as in Foundation.
    package static func contains(_ string: String, _ substring: String, options: NSComparisonPredicate.Options) -> Bool
    {
        guard !substring.isEmpty else { return false }
        return fold(string, options: options).contains(fold(substring, options: options))
    }

    /// Matches `string` against a `LIKE` pattern over the whole string: `*` matches any
    /// run of characters, `?` exactly one, and a backslash makes the next character literal.
    package static func like(_ string: String, pattern: String, options: NSComparisonPredicate.Options) -> Bool {
        let text = Array(fold(string, options: options))
        let tokens = likeTokens(fold(pattern, options: options))
        // Classic wildcard matching with a single backtrack point for the last `*`.
        var t = 0, p = 0
        var starToken: Int? = nil, starText = 0
        while t < text.count {
            if p < tokens.count, tokens[p].matches(text[t]) {
                t += 1; p += 1
            } else if p < tokens.count, case .anyRun = tokens[p] {
                starToken = p; starText = t; p += 1
            } else if let star = starToken {
                p = star + 1; starText += 1; t = starText
            } else {
                return false
            }
        }
        while p < tokens.count, case .anyRun = tokens[p] { p += 1 }
        return p == tokens.count
    }

    private enum LikeToken {
        case literal(Character), anyOne, anyRun
        func matches(_ character: Character) -> Bool {
            switch self {
            case .literal(let literal): return literal == character
            case .anyOne: return true
            case .anyRun: return false
            }
        }
    }

    private static func likeTokens(_ pattern: String) -> [LikeToken] {
        var tokens: [LikeToken] = []
        var escaping = false
        for character in pattern {
            if escaping { tokens.append(.literal(character)); escaping = false; continue }
            switch character {
            case "\\": escaping = true
            case "*": tokens.append(.anyRun)
            case "?": tokens.append(.anyOne)
            default: tokens.append(.literal(character))
            }
        }
        if escaping { tokens.append(.literal("\\")) }
        return tokens
    }

    /// Whether the regular expression `pattern` (ICU syntax) matches all of `string`.
    ///
    /// An invalid pattern matches nothing (in-memory evaluation cannot throw; a store
    /// fetch checks its patterns, see ``checkedMatch(_:pattern:options:)``). `[d]` folds
    /// both the string and the pattern.
    package static func matchesRegularExpression(
        _ string: String, pattern: String, options: NSComparisonPredicate.Options
    ) -> Bool {
        (try? checkedMatch(string, pattern: pattern, options: options)) ?? false
    }

    /// ``matchesRegularExpression(_:pattern:options:)`` that throws for an invalid pattern,
    /// as Core Data raises for `MATCHES` with one (a fetch fails rather than match nothing).
    package static func checkedMatch(
        _ string: String, pattern: String, options: NSComparisonPredicate.Options
    ) throws -> Bool {
        let diacritics: NSComparisonPredicate.Options =
            options.contains(.diacriticInsensitive) ? .diacriticInsensitive : []
        let subject = fold(string, options: diacritics)
        let regex = try matcher(for: pattern, options: options)
        let range = NSRange(subject.startIndex..<subject.endIndex, in: subject)
        return regex.firstMatch(in: subject, options: [], range: range) != nil
    }

    /// Throws when `pattern` is not a valid regular expression (see ``checkedMatch(_:pattern:options:)``).
    package static func checkRegularExpression(_ pattern: String, options: NSComparisonPredicate.Options) throws {
        _ = try matcher(for: pattern, options: options)
    }

    /// The cached whole-string matcher for `pattern` under `options`' folding.
    ///
    /// - Throws: An `NSError` naming the pattern when it is invalid, in `NSCocoaErrorDomain`
    ///   with code 134060 (`NSCoreDataError`, which the core module above this one names).
    private static func matcher(
        for pattern: String, options: NSComparisonPredicate.Options
    ) throws -> NSRegularExpression {
        let diacritics: NSComparisonPredicate.Options =
            options.contains(.diacriticInsensitive) ? .diacriticInsensitive : []
        // Anchored with `\A…\z`, not `^…$`: `$` also matches before a final newline.
        guard
            let regex = RegularExpressionCache.wholeStringMatcher(
                for: fold(pattern, options: diacritics), caseInsensitive: options.contains(.caseInsensitive))
        else {
            throw NSError(
                domain: NSCocoaErrorDomain, code: 134_060,
                userInfo: [
                    NSLocalizedDescriptionKey:
                        "Can't do regex matching: \"\(pattern)\" is not a valid regular expression (MATCHES)"
                ])
        }
        return regex
    }
}
