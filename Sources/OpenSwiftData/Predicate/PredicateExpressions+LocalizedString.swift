import Foundation

// The string comparisons `#Predicate` accepts that Foundation on Linux leaves out: Apple's
// Foundation declares these three expressions and their builders (in its internationalization
// layer), and the macro expands `a.localizedStandardContains(b)`, `a.caseInsensitiveCompare(b)`
// and `a.localizedCompare(b)` into calls of `PredicateExpressions.build_…`. Declaring them here,
// with Apple's names, shapes and conformances, lets SwiftData code that uses them compile with
// `import OpenSwiftData`; they evaluate in memory with Foundation's string methods, and the
// predicate translator turns them into `CONTAINS[cd]` and string comparisons in SQL.

extension PredicateExpressions {
    /// An expression that tells whether a string contains another, ignoring case and
    /// diacritics as the current locale does: what `localizedStandardContains(_:)` in a
    /// `#Predicate` builds.
    public struct StringLocalizedStandardContains<
        Root: PredicateExpression,
        Other: PredicateExpression
    >: PredicateExpression where Root.Output: StringProtocol, Other.Output: StringProtocol {
        /// The result: whether `root` contains `other`.
        public typealias Output = Bool

        /// The string searched.
        public let root: Root
        /// The string searched for.
        public let other: Other

        /// An expression that tells whether `root` contains `other`.
        public init(root: Root, other: Other) {
            self.root = root
            self.other = other
        }

        /// Evaluates both strings and tells whether the first contains the second, as
        /// `localizedStandardContains(_:)` does.
        public func evaluate(_ bindings: PredicateBindings) throws -> Bool {
            try root.evaluate(bindings).localizedStandardContains(try other.evaluate(bindings))
        }
    }

    /// Builds the expression for `root.localizedStandardContains(other)` in a `#Predicate`.
    public static func build_localizedStandardContains<Root, Other>(
        _ root: Root, _ other: Other
    ) -> StringLocalizedStandardContains<Root, Other> {
        StringLocalizedStandardContains(root: root, other: other)
    }

    /// An expression that compares two strings ignoring case: what
    /// `caseInsensitiveCompare(_:)` in a `#Predicate` builds. Its result is a
    /// `ComparisonResult`, compared in turn with `==` or `!=`.
    public struct StringCaseInsensitiveCompare<
        Root: PredicateExpression,
        Other: PredicateExpression
    >: PredicateExpression where Root.Output: StringProtocol, Other.Output: StringProtocol {
        /// The result: how `root` orders against `other`.
        public typealias Output = ComparisonResult

        /// The string compared.
        public let root: Root
        /// The string it is compared with.
        public let other: Other

        /// An expression that compares `root` with `other` ignoring case.
        public init(root: Root, other: Other) {
            self.root = root
            self.other = other
        }

        /// Evaluates both strings and compares them as `caseInsensitiveCompare(_:)` does.
        public func evaluate(_ bindings: PredicateBindings) throws -> ComparisonResult {
            try root.evaluate(bindings).caseInsensitiveCompare(try other.evaluate(bindings))
        }
    }

    /// Builds the expression for `root.caseInsensitiveCompare(other)` in a `#Predicate`.
    public static func build_caseInsensitiveCompare<Root, Other>(
        _ root: Root, _ other: Other
    ) -> StringCaseInsensitiveCompare<Root, Other> {
        StringCaseInsensitiveCompare(root: root, other: other)
    }

    /// An expression that compares two strings as the current locale orders them: what
    /// `localizedCompare(_:)` in a `#Predicate` builds. Its result is a `ComparisonResult`,
    /// compared in turn with `==` or `!=`.
    public struct StringLocalizedCompare<
        Root: PredicateExpression,
        Other: PredicateExpression
    >: PredicateExpression where Root.Output: StringProtocol, Other.Output: StringProtocol {
        /// The result: how `root` orders against `other`.
        public typealias Output = ComparisonResult

        /// The string compared.
        public let root: Root
        /// The string it is compared with.
        public let other: Other

        /// An expression that compares `root` with `other` in the current locale's order.
        public init(root: Root, other: Other) {
            self.root = root
            self.other = other
        }

        /// Evaluates both strings and compares them as `localizedCompare(_:)` does.
        public func evaluate(_ bindings: PredicateBindings) throws -> ComparisonResult {
            try root.evaluate(bindings).localizedCompare(try other.evaluate(bindings))
        }
    }

    /// Builds the expression for `root.localizedCompare(other)` in a `#Predicate`.
    public static func build_localizedCompare<Root, Other>(
        _ root: Root, _ other: Other
    ) -> StringLocalizedCompare<Root, Other> {
        StringLocalizedCompare(root: root, other: other)
    }
}

// MARK: - Conformances (Apple's: standard, Codable and Sendable when their parts are)

extension PredicateExpressions.StringLocalizedStandardContains: StandardPredicateExpression
where Root: StandardPredicateExpression, Other: StandardPredicateExpression {}

extension PredicateExpressions.StringLocalizedStandardContains: Sendable where Root: Sendable, Other: Sendable {}

extension PredicateExpressions.StringLocalizedStandardContains: Codable where Root: Codable, Other: Codable {
    /// Encodes the two strings' expressions in order, as Apple's Foundation does.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        try container.encode(root)
        try container.encode(other)
    }

    /// Decodes the two strings' expressions written by ``encode(to:)``.
    public init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        root = try container.decode(Root.self)
        other = try container.decode(Other.self)
    }
}

extension PredicateExpressions.StringLocalizedStandardContains: CustomStringConvertible {
    /// The expression and its two parts.
    public var description: String {
        "StringLocalizedStandardContains(root: \(root), other: \(other))"
    }
}

extension PredicateExpressions.StringCaseInsensitiveCompare: StandardPredicateExpression
where Root: StandardPredicateExpression, Other: StandardPredicateExpression {}

extension PredicateExpressions.StringCaseInsensitiveCompare: Sendable where Root: Sendable, Other: Sendable {}

extension PredicateExpressions.StringCaseInsensitiveCompare: Codable where Root: Codable, Other: Codable {
    /// Encodes the two strings' expressions in order, as Apple's Foundation does.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        try container.encode(root)
        try container.encode(other)
    }

    /// Decodes the two strings' expressions written by ``encode(to:)``.
    public init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        root = try container.decode(Root.self)
        other = try container.decode(Other.self)
    }
}

extension PredicateExpressions.StringCaseInsensitiveCompare: CustomStringConvertible {
    /// The expression and its two parts.
    public var description: String {
        "StringCaseInsensitiveCompare(root: \(root), other: \(other))"
    }
}

extension PredicateExpressions.StringLocalizedCompare: StandardPredicateExpression
where Root: StandardPredicateExpression, Other: StandardPredicateExpression {}

extension PredicateExpressions.StringLocalizedCompare: Sendable where Root: Sendable, Other: Sendable {}

extension PredicateExpressions.StringLocalizedCompare: Codable where Root: Codable, Other: Codable {
    /// Encodes the two strings' expressions in order, as Apple's Foundation does.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        try container.encode(root)
        try container.encode(other)
    }

    /// Decodes the two strings' expressions written by ``encode(to:)``.
    public init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        root = try container.decode(Root.self)
        other = try container.decode(Other.self)
    }
}

extension PredicateExpressions.StringLocalizedCompare: CustomStringConvertible {
    /// The expression and its two parts.
    public var description: String {
        "StringLocalizedCompare(root: \(root), other: \(other))"
    }
}
