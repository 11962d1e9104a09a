/// What every result type shares: the checks of the request's result options and
/// the hand-over of results as the request's `ResultType`.
extension NSManagedObjectContext {
    /// Refuses options that only make sense for dictionary results, as Core Data does.
    func checkResultOptions<T>(_ request: NSFetchRequest<T>) throws {
        guard request.resultType != .dictionaryResultType else { return }
        if !(request.propertiesToGroupBy ?? []).isEmpty {
            throw CoreDataError.make(
                NSCoreDataError,
                "propertiesToGroupBy needs resultType .dictionaryResultType (the request's is \(request.resultType.rawValue))"
            )
        }
        if request.havingPredicate != nil {
            throw CoreDataError.make(
                NSCoreDataError, "havingPredicate needs resultType .dictionaryResultType and propertiesToGroupBy")
        }
    }

    /// `values` as the request's result type, or an error naming the mismatch (an
    /// `NSFetchRequest<Person>` cannot hold the dictionaries of `.dictionaryResultType`).
    func results<T>(_ values: [Any], of request: NSFetchRequest<T>, kind: String) throws -> [T] {
        try converted(values) { value in
            guard let typed = value as? T else {
                throw CoreDataError.make(
                    NSCoreDataError,
                    "The fetch returns \(kind) (resultType \(request.resultType.rawValue)), but the request is an NSFetchRequest<\(T.self)>; use NSFetchRequest<\(type(of: value))>"
                )
            }
            return typed
        }
    }

    /// `values`, each converted to the request's `T`, without `map`.
    ///
    /// `T` is not specialized here (the library is compiled apart from the app's entity
    /// classes), and the generic `Collection.map` then reads each element through
    /// `Collection`'s read accessor, a coroutine whose frame is heap-allocated: one
    /// `malloc` per fetched object. This loop reads the array directly.
    func converted<Element, T>(_ values: [Element], _ convert: (Element) throws -> T) rethrows -> [T] {
        try [T](unsafeUninitializedCapacity: values.count) { buffer, initialized in
            var index = 0
            while index < values.count {
                (buffer.baseAddress.unsafelyUnwrapped + index).initialize(to: try convert(values[index]))
                index += 1
                initialized = index
            }
        }
    }
}

extension StoreFetch {
    /// The store's view of a request: entity, predicate, order, window, subentities.
    init<T>(_ request: NSFetchRequest<T>, entity: NSEntityDescription) {
        self.init(
            entity: entity,
            predicate: request.predicate,
            sortDescriptors: request.sortDescriptors ?? [],
            limit: request.fetchLimit,
            offset: request.fetchOffset,
            includesSubentities: request.includesSubentities
        )
    }
}
