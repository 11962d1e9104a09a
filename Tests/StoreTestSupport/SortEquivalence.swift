import OpenCoreData

/// A store's sorting against in-memory sorting, over the photo library: every sort key
/// (attributes of every type, to-one paths, objects, counts and aggregates) with every
/// selector both ways must come back in an order memory agrees with.
public enum SortEquivalence {
    static let selectors: [Selector] = [
        .compare, .caseInsensitiveCompare, .localizedCompare, .localizedCaseInsensitiveCompare,
        .localizedStandardCompare, Selector("unknownCompare:"),
    ]
    static let keys = [
        ("Photo", "title"), ("Photo", "whoTook.name"), ("Photo", "views"), ("Photo", "rating"),
        ("Photo", "uploadDate"),
        ("Photo", "isPublic"), ("Photo", "uuid"), ("Photo", "whoTook"), ("Photo", "tags.@count"),
        ("Photo", "whoTook.photos.@count"),
        ("Photographer", "name"), ("Photographer", "born"), ("Photographer", "photos.@max.views"),
        ("Tag", "name"), ("Tag", "weight"),
    ]

    /// How many sorts ``compare(in:)`` runs.
    public static var sortCount: Int { keys.count * selectors.count * 2 }

    /// Runs every sort in `context` (on its queue); the sorts run and what memory disagreed with.
    public static func compare(in context: NSManagedObjectContext) throws -> (sorts: Int, problems: [String]) {
        var sorts = 0
        var problems: [String] = []
        for (entity, key) in keys {
            let all = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: entity))
            for selector in selectors {
                for ascending in [true, false] {
                    var descriptors = [NSSortDescriptor(key: key, ascending: ascending, selector: selector)]
                    if key == "whoTook.name" {
                        descriptors.append(NSSortDescriptor(key: "title", ascending: !ascending, selector: selector))
                    }
                    let request = NSFetchRequest<NSManagedObject>(entityName: entity)
                    request.sortDescriptors = descriptors
                    request.includesPendingChanges = false
                    let stored = try context.fetch(request)
                    sorts += 1
                    if Set(stored) != Set(all) { problems.append("\(entity) sorted by \(descriptors): other objects") }
                    for (a, b) in zip(stored, stored.dropFirst())
                    where order(a, b, descriptors) == .orderedDescending {
                        problems.append(
                            "\(entity) sorted by \(descriptors): \(a.value(forKeyPath: key) ?? "nil") came before \(b.value(forKeyPath: key) ?? "nil")"
                        )
                    }
                    // The in-memory sort of the store's result must not move anything that differs.
                    let resorted = stored.sorted(using: descriptors)
                    if !zip(stored, resorted).allSatisfy({
                        order($0, $1, descriptors) == .orderedSame
                    }) {
                        problems.append("\(entity) sorted by \(descriptors): memory reorders the store's order")
                    }
                }
            }
        }
        return (sorts, problems)
    }

    /// The order `descriptors` give two objects, the first that tells them apart deciding.
    static func order(_ a: NSManagedObject, _ b: NSManagedObject, _ descriptors: [NSSortDescriptor]) -> ComparisonResult
    {
        for descriptor in descriptors {
            let result = descriptor.compare(a, to: b)
            if result != .orderedSame { return result }
        }
        return .orderedSame
    }
}
