/// Batch requests in the store's terms, built by the coordinator from the public
/// request classes: entities, validated values and `StoreFetch`es, nothing else.
/// Every store engine runs them as set-based statements without materialising objects.

/// A batch insert: rows of attribute values, already checked against the model.
package struct StoreBatchInsert {
    package let entity: NSEntityDescription
    /// The stored attributes each row holds, in the order of a row's values.
    package let attributes: [NSAttributeDescription]
    /// One value per attribute, in its native stored type; `nil` stores NULL.
    package let rows: [[Any?]]
    /// Whether the IDs of the written rows are wanted.
    package let wantsObjectIDs: Bool
    /// Who runs the request, for the store's persistent history.
    package var origin = StoreHistoryOrigin()
}

/// A batch update: new attribute values for every row a fetch matches.
package struct StoreBatchUpdate {
    /// A new value: a constant (native stored type) or an expression read per row.
    package enum Value {
        case constant(Any?)
        case expression(NSExpression)
    }

    package let fetch: StoreFetch
    package let assignments: [(attribute: NSAttributeDescription, value: Value)]
    /// Whether the IDs of the updated rows are wanted.
    package let wantsObjectIDs: Bool
    /// Who runs the request, for the store's persistent history.
    package var origin = StoreHistoryOrigin()
}

/// A batch delete: every row a fetch matches, with the delete rules of its relationships.
package struct StoreBatchDelete {
    package let fetch: StoreFetch
    /// Whether the IDs of the matched rows are wanted.
    package let wantsObjectIDs: Bool
    /// Who runs the request, for the store's persistent history.
    package var origin = StoreHistoryOrigin()
}

/// What a batch request did, for its result and for the caches above the store.
package struct StoreBatchOutcome {
    /// Rows written (insert), updated (update) or matched and deleted (delete).
    package var count: Int
    /// The IDs of those rows, when asked for.
    package var objectIDs: [NSManagedObjectID]?
    /// Rows whose stored state changed or vanished, as far as they are known one by one.
    package var changedObjectIDs: [NSManagedObjectID] = []
    /// Entities with changed rows that are not listed one by one.
    package var changedEntities: [NSEntityDescription] = []

    package init(
        count: Int, objectIDs: [NSManagedObjectID]? = nil, changedObjectIDs: [NSManagedObjectID] = [],
        changedEntities: [NSEntityDescription] = []
    ) {
        self.count = count
        self.objectIDs = objectIDs
        self.changedObjectIDs = changedObjectIDs
        self.changedEntities = changedEntities
    }
}
