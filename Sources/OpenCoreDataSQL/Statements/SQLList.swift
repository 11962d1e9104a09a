import OpenCoreDataCore

/// The comma-separated lists statements write inline: column names, and entity numbers
/// (`Z_ENT IN (1, 2)`), which are the model's, never a caller's values, so they need no
/// binding and keep a statement's text the same for every save and fetch.
package enum SQLList {
    /// `ZA, ZB, ZC`.
    package static func of(_ items: [String]) -> String {
        items.joined(separator: ", ")
    }

    /// `1, 2, 3`.
    package static func numbers<Number: BinaryInteger>(_ numbers: [Number]) -> String {
        numbers.map { String($0) }.joined(separator: ", ")
    }

    /// The entity numbers of `entity` and its subentities: the rows of its table that are its objects.
    package static func entityNumbers(of entity: NSEntityDescription) -> String {
        numbers(entity.facts.selfAndDescendants.map(\.facts.entityNumber))
    }

    /// `?, ?, ?`: `count` placeholders.
    package static func placeholders(_ count: Int) -> String {
        Array(repeating: "?", count: count).joined(separator: ", ")
    }
}
