import OpenCoreData

/// A store fetch against in-memory evaluation of the same predicate: the objects must be
/// the same, and the count too.
public enum PredicateEquivalence {
    /// How a store answered a predicate, compared with memory.
    public enum Outcome {
        /// The same objects and count.
        case agreed
        /// Other objects or another count: what each side selected.
        case differed(String)
        /// The fetch threw.
        case failed(any Error)
    }

    /// Fetches `entity` with `predicate` (pending changes excluded) and evaluates it on
    /// every object of `entity`, in `context` (on its queue).
    public static func compare(_ predicate: NSPredicate, entity: String, in context: NSManagedObjectContext) -> Outcome
    {
        do {
            let all = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: entity))
            let request = NSFetchRequest<NSManagedObject>(entityName: entity)
            request.predicate = predicate
            request.includesPendingChanges = false
            let stored = Set(try context.fetch(request).map(\.objectID))
            let expected = Set(all.filter { predicate.evaluate(with: $0) }.map(\.objectID))
            let counted = try context.count(for: request)
            guard stored == expected, counted == expected.count else {
                func names(_ ids: Set<NSManagedObjectID>) -> String {
                    all.filter { ids.contains($0.objectID) }.map {
                        "\($0.value(forKey: entity == "Photo" ? "title" : "name") ?? "nil")"
                    }.sorted().description
                }
                return .differed("store \(names(stored)) (count \(counted)), memory \(names(expected))")
            }
            return .agreed
        } catch {
            return .failed(error)
        }
    }
}
