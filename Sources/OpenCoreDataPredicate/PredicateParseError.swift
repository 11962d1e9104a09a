/// The error thrown when a predicate or expression format string is malformed or
/// uses grammar this implementation does not support.
public struct PredicateParseError: Error, CustomStringConvertible, Sendable, Equatable {
    /// What went wrong, e.g. `"expected an expression"`.
    public let reason: String
    /// The zero-based character offset in ``format`` where the problem was found.
    public let position: Int
    /// The format string that failed to parse.
    public let format: String

    /// Creates an error for `format` at character offset `position`.
    public init(reason: String, position: Int, format: String) {
        self.reason = reason
        self.position = position
        self.format = format
    }

    /// A message naming the offending position and the format string.
    public var message: String {
        "Unable to parse the format string \"\(format)\": \(reason) at position \(position)"
    }

    /// Same as ``message``.
    public var description: String { message }

    /// Runs a parse for a non-throwing initializer such as `NSPredicate(format:)`.
    ///
    /// Foundation raises `NSInvalidArgumentException` for a malformed format string,
    /// which is a programmer error; this is the one place where we trap in that case,
    /// showing the parse error. Use the throwing `parse(format:argumentArray:)` to recover.
    static func trapOnFailure<T>(_ parse: () throws -> T) -> T {
        do {
            return try parse()
        } catch {
            preconditionFailure(String(describing: error))
        }
    }
}
