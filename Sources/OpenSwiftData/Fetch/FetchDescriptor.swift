/// What to fetch: the models of one type matching a predicate, in an order, a page of them.
///
/// The predicate and the sort run in SQL, always: a predicate the store cannot run throws
/// ``SwiftDataError/unsupportedPredicate`` when fetched, naming the construct.
public struct FetchDescriptor<T: PersistentModel>: @unchecked Sendable {
    /// Which models to fetch (all when `nil`).
    public var predicate: Predicate<T>?
    /// The order of the results.
    public var sortBy: [SortDescriptor<T>]
    /// The most models to fetch.
    public var fetchLimit: Int?
    /// How many of the matching models to skip.
    public var fetchOffset: Int?
    /// Whether the context's unsaved changes take part (default `true`).
    public var includePendingChanges: Bool = true
    /// The properties to load with each model (the rest load on first use).
    public var propertiesToFetch: [PartialKeyPath<T>] = []
    /// Relationships whose models are loaded with the results.
    public var relationshipKeyPathsForPrefetching: [PartialKeyPath<T>] = []

    /// A descriptor of the models matching `predicate`, sorted by `sortBy`.
    public init(predicate: Predicate<T>? = nil, sortBy: [SortDescriptor<T>] = []) {
        self.predicate = predicate
        self.sortBy = sortBy
    }
}
