/// A context runs the fetch of a `FETCH(request, context, countOnly)` expression
/// (``NSFetchRequestExpression``) whose context expression evaluates to it.
extension NSManagedObjectContext: FetchExpressionContext {
    func resultOfFetchExpression(request: Any?, countOnly: Bool) -> Any? {
        guard let request = request as? any ErasedFetchRequest else { return nil }
        return countOnly ? try? request.resultCount(in: self) : try? request.results(in: self)
    }
}

/// A fetch request of any result type, run without naming the type: what a `FETCH`
/// expression evaluates its request expression to.
protocol ErasedFetchRequest {
    func results(in context: NSManagedObjectContext) throws -> [Any]
    func resultCount(in context: NSManagedObjectContext) throws -> Int
}

extension NSFetchRequest: ErasedFetchRequest {
    func results(in context: NSManagedObjectContext) throws -> [Any] { try context.fetch(self) }
    func resultCount(in context: NSManagedObjectContext) throws -> Int { try context.count(for: self) }
}
