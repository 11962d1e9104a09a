extension NSFetchRequest {
    /// A copy of every setting of the request, typed for `T`.
    ///
    /// Requests kept by the model (fetch request templates, fetched properties) and
    /// by batch deletes are copies, as Core Data's are, so later edits of the original
    /// do not reach them. They are kept as `NSFetchRequest<NSFetchRequestResult>` with the
    /// class they were made for, and handed out as Core Data types them.
    package func copied<T>(as type: T.Type = T.self) -> NSFetchRequest<T> {
        let copy = NSFetchRequest<T>()
        copy.entityName = entityName
        if let entity { copy.entity = entity }
        copy.resultClass = resultClass ?? (ResultType.self as? AnyClass)
        copy.predicate = predicate
        copy.sortDescriptors = sortDescriptors
        copy.fetchLimit = fetchLimit
        copy.fetchOffset = fetchOffset
        copy.fetchBatchSize = fetchBatchSize
        copy.includesSubentities = includesSubentities
        copy.includesPendingChanges = includesPendingChanges
        copy.returnsObjectsAsFaults = returnsObjectsAsFaults
        copy.includesPropertyValues = includesPropertyValues
        copy.shouldRefreshRefetchedObjects = shouldRefreshRefetchedObjects
        copy.resultType = resultType
        copy.propertiesToFetch = propertiesToFetch
        copy.returnsDistinctResults = returnsDistinctResults
        copy.relationshipKeyPathsForPrefetching = relationshipKeyPathsForPrefetching
        copy.propertiesToGroupBy = propertiesToGroupBy
        copy.havingPredicate = havingPredicate
        copy.affectedStoreObjects = affectedStoreObjects
        return copy
    }
}
