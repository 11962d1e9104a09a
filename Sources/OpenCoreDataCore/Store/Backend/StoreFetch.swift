/// A fetch in the store's terms, built from an `NSFetchRequest` by the context.
struct StoreFetch {
    let entity: NSEntityDescription
    var predicate: NSPredicate?
    var sortDescriptors: [NSSortDescriptor]
    /// 0: no limit.
    var limit: Int
    var offset: Int
    var includesSubentities: Bool
    /// When set, only rows with these keys are considered.
    var restrictedToKeys: [Int64]?

    /// The entities whose rows match, given `includesSubentities`.
    var matchingEntities: [NSEntityDescription] {
        includesSubentities ? entity.facts.selfAndDescendants : [entity]
    }
}
