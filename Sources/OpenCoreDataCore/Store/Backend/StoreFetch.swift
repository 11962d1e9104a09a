/// A fetch in the store's terms, built from an `NSFetchRequest` by the context.
package struct StoreFetch {
    package let entity: NSEntityDescription
    package var predicate: NSPredicate?
    package var sortDescriptors: [NSSortDescriptor]
    /// 0: no limit.
    package var limit: Int
    package var offset: Int
    package var includesSubentities: Bool
    /// When set, only rows with these keys are considered.
    package var restrictedToKeys: [Int64]?

    /// The entities whose rows match, given `includesSubentities`.
    package var matchingEntities: [NSEntityDescription] {
        includesSubentities ? entity.facts.selfAndDescendants : [entity]
    }
}

/// Thrown by an engine for a fetch whose predicate or sort it cannot evaluate exactly as
/// memory does (PostgreSQL cannot call Swift's string folding, say). The context then
/// fetches the rows `prefilter` selects (all of the entity's when `nil`), evaluates the
/// predicate and sorts in memory, and applies the window: the same objects, in the same
/// order, as in-memory evaluation, at the cost of loading the candidates.
package struct StoreFetchInMemory: Error {
    /// What the engine could not evaluate, for errors where memory cannot take over.
    package let feature: String
    /// A part of the predicate the engine runs, selecting every object the whole predicate
    /// can match; `nil` for no filter.
    package let prefilter: NSPredicate?

    package init(feature: String, prefilter: NSPredicate?) {
        self.feature = feature
        self.prefilter = prefilter
    }

    /// The error of a request memory cannot take over (dictionaries, batch requests).
    package var unsupported: NSError {
        CoreDataError.make(
            NSPersistentStoreUnsupportedRequestTypeError, "The store does not support \(feature) in this request yet")
    }
}
