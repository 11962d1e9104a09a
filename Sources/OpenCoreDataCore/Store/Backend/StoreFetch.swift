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
