/// A context runs the fetch of a `FETCH(request, context, countOnly)` expression
/// (``NSFetchRequestExpression``) whose context expression evaluates to it.
extension NSManagedObjectContext: FetchExpressionContext {
    package func resultOfFetchExpression(request: Any?, countOnly: Bool) -> Any? {
        guard let request = request as? any ErasedFetchRequest else { return nil }
        return countOnly ? try? request.resultCount(in: self) : try? request.results(in: self)
    }
}

/// A fetch request of any result type, run and read without naming the type: what a
/// `FETCH` expression evaluates its request expression to, and what a fetched results
/// controller (shared by its typed and untyped faces) runs.
protocol ErasedFetchRequest: AnyObject {
    func results(in context: NSManagedObjectContext) throws -> [Any]
    func resultCount(in context: NSManagedObjectContext) throws -> Int
    var entity: NSEntityDescription? { get }
    var entityName: String? { get }
    var predicate: NSPredicate? { get }
    var sortDescriptors: [NSSortDescriptor]? { get }
    var includesSubentities: Bool { get }
    var resultType: NSFetchRequestResultType { get }
    var fetchBatchSize: Int { get }
    var fetchLimit: Int { get }
    var fetchOffset: Int { get }
    /// The results as a batch-faulting list (managed object and object ID results), from
    /// `cachedKeys` when given and the context has no unsaved changes: its length, its
    /// rows' keys and its elements by position.
    func batchedResults(
        in context: NSManagedObjectContext, restoring cachedKeys: StoreObjectList?
    ) throws
        -> (count: Int, keys: StoreObjectList?, element: (Int) -> AnyObject)
}

extension NSFetchRequest: ErasedFetchRequest {
    func results(in context: NSManagedObjectContext) throws -> [Any] { try context.fetch(self) }
    func resultCount(in context: NSManagedObjectContext) throws -> Int { try context.count(for: self) }

    func batchedResults(
        in context: NSManagedObjectContext, restoring cachedKeys: StoreObjectList?
    ) throws
        -> (count: Int, keys: StoreObjectList?, element: (Int) -> AnyObject)
    {
        let list = try context.fetchBatched(self, restoring: cachedKeys)
        return (list.count, list.storeKeys, { list[$0] as AnyObject })
    }
}
