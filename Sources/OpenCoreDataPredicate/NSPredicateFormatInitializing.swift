/// Gives ``NSPredicate`` and its subclasses Foundation's `init(format:)` initializers.
///
/// A class initializer cannot return an instance of a subclass, but an initializer
/// declared in a protocol extension may assign `self`. That lets
/// `NSPredicate(format: "age > 3")` return an ``NSComparisonPredicate`` exactly as
/// Foundation does. Only ``NSPredicate`` needs to conform.
///
/// Plumbing that apps never name; it stays in the documentation because hiding it would
/// hide `init(format:)` from ``NSPredicate``'s page too.
public protocol NSPredicateFormatInitializing {}

extension NSPredicate: NSPredicateFormatInitializing {}

extension NSPredicateFormatInitializing where Self: NSPredicate {
    /// Parses a predicate from a format string; `args` fill `%@`, `%K`, `%d` and friends.
    ///
    /// A malformed format string is a programmer error and traps with the parse
    /// error, as Foundation raises an exception; use `NSPredicate.parse(format:argumentArray:)`
    /// to handle untrusted input. On a subclass (e.g. `NSCompoundPredicate(format:)`)
    /// the format must describe a predicate of that class.
    public init(format: String, _ args: Any?...) {
        self = PredicateParseError.trapOnFailure { try Self.parseAsSelf(format: format, arguments: args) }
    }

    /// Parses a predicate from a format string with arguments taken from an array.
    public init(format: String, argumentArray arguments: [Any]?) {
        let values = (arguments ?? []).map { Optional($0) }
        self = PredicateParseError.trapOnFailure { try Self.parseAsSelf(format: format, arguments: values) }
    }

    private static func parseAsSelf(format: String, arguments: [Any?]) throws -> Self {
        let predicate = try NSPredicate.parse(format: format, argumentArray: arguments)
        guard let typed = predicate as? Self else {
            throw PredicateParseError(
                reason: "the format describes a \(type(of: predicate)), not a \(Self.self)",
                position: 0, format: format)
        }
        return typed
    }
}
