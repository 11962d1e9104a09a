import OpenCoreData

/// A failure `cdtool` reports as one line on stderr before exiting non-zero.
///
/// Errors from OpenCoreData are `NSError`s whose descriptions can be long or span
/// lines; the tool shows only their message, so every failure reads the same way.
public struct CDToolError: Error, CustomStringConvertible, Equatable {
    /// The message, on one line.
    public let description: String

    /// An error with `message`, its line breaks folded into spaces.
    public init(_ message: String) {
        description = message.split(whereSeparator: \.isNewline).joined(separator: " ")
    }

    /// The one-line form of any error: its own message for `NSError`s (not the domain,
    /// code and user info dump) and for errors that describe themselves.
    public init(wrapping error: any Error) {
        switch error {
        case let error as CDToolError:
            self = error
        case let error as PredicateParseError:
            self.init("bad predicate: \(error.description)")
        case let error as CustomStringConvertible where !(error is NSError):
            self.init(error.description)
        default:
            let error = error as NSError
            self.init(error.userInfo[NSLocalizedDescriptionKey] as? String ?? error.localizedDescription)
        }
    }
}
