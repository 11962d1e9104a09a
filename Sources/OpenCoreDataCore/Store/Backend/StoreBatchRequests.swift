/// Batch requests in the store's terms, built by the coordinator from the public
/// request classes: entities, validated values and `StoreFetch`es, nothing else.
/// Every store engine runs them as set-based statements without materialising objects.

/// A batch insert: rows of attribute values, already checked against the model.
struct StoreBatchInsert {
    let entity: NSEntityDescription
    /// The stored attributes each row holds, in the order of a row's values.
    let attributes: [NSAttributeDescription]
    /// One value per attribute, in its native stored type; `nil` stores NULL.
    let rows: [[Any?]]
    /// Whether the IDs of the written rows are wanted.
    let wantsObjectIDs: Bool
    /// Who runs the request, for the store's persistent history.
    var origin = StoreHistoryOrigin()
}

/// A batch update: new attribute values for every row a fetch matches.
struct StoreBatchUpdate {
    /// A new value: a constant (native stored type) or an expression read per row.
    enum Value {
        case constant(Any?)
        case expression(NSExpression)
    }

    let fetch: StoreFetch
    let assignments: [(attribute: NSAttributeDescription, value: Value)]
    /// Whether the IDs of the updated rows are wanted.
    let wantsObjectIDs: Bool
    /// Who runs the request, for the store's persistent history.
    var origin = StoreHistoryOrigin()
}

/// A batch delete: every row a fetch matches, with the delete rules of its relationships.
struct StoreBatchDelete {
    let fetch: StoreFetch
    /// Whether the IDs of the matched rows are wanted.
    let wantsObjectIDs: Bool
    /// Who runs the request, for the store's persistent history.
    var origin = StoreHistoryOrigin()
}

/// What a batch request did, for its result and for the caches above the store.
struct StoreBatchOutcome {
    /// Rows written (insert), updated (update) or matched and deleted (delete).
    var count: Int
    /// The IDs of those rows, when asked for.
    var objectIDs: [NSManagedObjectID]?
    /// Rows whose stored state changed or vanished, as far as they are known one by one.
    var changedObjectIDs: [NSManagedObjectID] = []
    /// Entities with changed rows that are not listed one by one.
    var changedEntities: [NSEntityDescription] = []
}
