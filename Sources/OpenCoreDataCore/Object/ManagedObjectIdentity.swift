/// In predicates a managed object and its object ID are the same thing: equality
/// compares object IDs, so `SELF == %@`, `notebook IN %@` and `tags CONTAINS %@`
/// accept objects or IDs alike, in memory as in the store.
extension NSManagedObject: ObjectIdentityComparable {
    package var comparisonIdentity: AnyHashable { objectID }
}

extension NSManagedObjectID: ObjectIdentityComparable {
    package var comparisonIdentity: AnyHashable { self }
}
