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

    /// Corners picked by hand (entity, format, arguments): empty collections under ALL/NONE,
    /// nil elements, decomposed accents, objects versus IDs, nested SUBQUERY, ordered positions.
    public static func handPickedCases(
        photographers: [NSManagedObject], tags: [NSManagedObject], photos: [NSManagedObject]
    ) -> [(String, String, [Any])] {
        [
            ("Photo", "ALL tags.name BEGINSWITH 'n'", []),
            ("Photo", "NONE tags.name ==[c] 'nature'", []),
            ("Photo", "ANY tags.name == nil", []),
            ("Photo", "ALL tags.name != nil", []),
            ("Photo", "title == 'Cafe\u{301}'", []),
            ("Photo", "title ==[d] 'cafe'", []),
            ("Photo", "title BEGINSWITH 'Cafe'", []),
            ("Photo", "whoTook == %@", [photographers[0].objectID]),
            ("Photo", "SELF IN %@", [[photos[1], photos[2].objectID]]),
            ("Photo", "%@ IN tags", [tags[0]]),
            ("Photo", "tags CONTAINS %@", [tags[3].objectID]),
            ("Photo", "'nature' IN[c] tags.name", []),
            ("Photo", "title IN 'The sunset over Lake'", []),
            ("Photo", "SUBQUERY(tags, $t, SUBQUERY($t.photos, $p, $p.views > 5).@count > 1).@count > 0", []),
            ("Photo", "tags[FIRST].name == 'nature'", []),
            ("Photo", "whoTook.photos.@count == 0", []),
            ("Photo", "whoTook.photos == nil", []),
            ("Photo", "views < nil OR nil < views", []),
            ("Photo", "NOT (views > 10)", []),
            ("Photo", "NOT (title == 'Sunset')", []),
            ("Photo", "uploadDate > rating", []),
            ("Photo", "uploadDate != 5", []),
            ("Photo", "TRUEPREDICATE", []),
            ("Photo", "FALSEPREDICATE OR rating BETWEEN {2, 4}", []),
            ("Photographer", "photos.@count > 2", []),
            ("Photographer", "ALL photos.views > 1", []),
            ("Photographer", "favorites.@count == 0 AND photos.@count > 0", []),
            ("Photographer", "ANY favorites.name ==[cd] 'CAFE'", []),
            ("Photographer", "photos[LAST].title ==[c] 'zebra'", []),
            ("Photographer", "name < 'b'", []),
            ("Tag", "ANY photos.whoTook.name == nil", []),
            ("Tag", "photos.whoTook.@count > 1", []),
            ("Tag", "name ==[cd] 'CAFE'", []),
        ]
    }
}
