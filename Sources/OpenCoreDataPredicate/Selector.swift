/// The name of a method, standing in for Objective-C's `Selector`, which Foundation
/// on Linux lacks. Sort descriptors and custom-selector predicates use it to name
/// the comparison to perform.
public struct Selector: Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The selector name, e.g. `"localizedStandardCompare:"`.
    public let name: String

    /// A selector with the given name.
    public init(_ name: String) { self.name = name }

    /// A selector written as a string literal.
    public init(stringLiteral value: String) { self.name = value }

    /// The selector name.
    public var description: String { name }

    /// `compare:`: the default ordering of strings, numbers, dates and other values.
    public static let compare = Selector("compare:")
    /// `caseInsensitiveCompare:`: string ordering ignoring case.
    public static let caseInsensitiveCompare = Selector("caseInsensitiveCompare:")
    /// `localizedCompare:`: string ordering by the current locale's collation.
    public static let localizedCompare = Selector("localizedCompare:")
    /// `localizedCaseInsensitiveCompare:`: locale collation ignoring case.
    public static let localizedCaseInsensitiveCompare = Selector("localizedCaseInsensitiveCompare:")
    /// `localizedStandardCompare:`: Finder-like ordering, ignoring case and ordering
    /// digit runs numerically ("file2" before "file10").
    public static let localizedStandardCompare = Selector("localizedStandardCompare:")
}
