/// A computed column of a dictionary fetch: an expression evaluated by the store
/// and returned under `name`.
///
/// Put it in `propertiesToFetch` of a request with `.dictionaryResultType`. The
/// expression is a key path, a function such as `count:`, `sum:`, `average:`,
/// `min:` or `max:` over a key path (an aggregate over all matching rows, or over
/// each group with `propertiesToGroupBy`), arithmetic on those, or
/// `expressionForEvaluatedObject()` for the object's ID.
open class NSExpressionDescription: NSPropertyDescription, @unchecked Sendable {
    /// What the store computes for each result.
    open var expression: NSExpression?
    /// The type the value is returned as (for example `.integer64AttributeType` for
    /// a sum of integers, `.doubleAttributeType` for an average,
    /// `.objectIDAttributeType` for the evaluated object). With
    /// `.undefinedAttributeType` the value keeps the type the store computed; a
    /// plain key path always returns its attribute's own type.
    open var expressionResultType: NSAttributeType = .undefinedAttributeType

    /// Creates an empty expression description; set `name` and `expression` before fetching.
    public override init() { super.init() }

    open override var description: String {
        "(\(type(of: self))) name \(name), expression \(expression?.description ?? "nil"), expressionResultType \(expressionResultType.rawValue)"
    }
}
