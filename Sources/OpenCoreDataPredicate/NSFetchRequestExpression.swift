/// An expression whose value is the result of a fetch: `FETCH(request, context, countOnly)`.
///
/// The request expression evaluates to an `NSFetchRequest` and the context expression
/// to the `NSManagedObjectContext` that runs it; the value is the fetched array, or
/// its count when `countOnly` is set. Mapping models select the source objects of an
/// entity mapping this way (`FETCH(FUNCTION($manager, "fetchRequestForSourceEntityNamed:predicateString:", …), $manager.sourceContext, NO)`).
/// It is evaluated in memory; a store cannot translate it into SQL.
open class NSFetchRequestExpression: NSExpression, @unchecked Sendable {
    /// An expression that runs the fetch request `fetch` evaluates to in the context
    /// `context` evaluates to, yielding the results or (with `countFlag`) their count.
    open class func expressionForFetch(
        _ fetch: NSExpression, context: NSExpression, countOnly countFlag: Bool
    ) -> NSExpression {
        NSFetchRequestExpression(node: .fetch(request: fetch, context: context, countOnly: countFlag))
    }

    /// The expression that evaluates to the fetch request.
    open var requestExpression: NSExpression {
        if case .fetch(let request, _, _) = node { return request }
        return NSExpression(forConstantValue: nil)
    }

    /// The expression that evaluates to the managed object context running the request.
    open var contextExpression: NSExpression {
        if case .fetch(_, let context, _) = node { return context }
        return NSExpression(forConstantValue: nil)
    }

    /// Whether the expression's value is the number of results rather than the results.
    open var isCountOnlyRequest: Bool {
        if case .fetch(_, _, let countOnly) = node { return countOnly }
        return false
    }
}

/// Core Data's name for the kind of a ``NSFetchRequestExpression``.
public let NSFetchRequestExpressionType = NSExpression.ExpressionType.fetchRequest

/// What the context of a `FETCH` expression evaluates to: something that runs a fetch
/// request it is given. A managed object context does; the protocol keeps the predicate
/// language free of contexts.
package protocol FetchExpressionContext: AnyObject {
    /// The results of `request` (or their count when `countOnly`), `nil` when `request` is
    /// not a fetch request or the fetch fails.
    func resultOfFetchExpression(request: Any?, countOnly: Bool) -> Any?
}
