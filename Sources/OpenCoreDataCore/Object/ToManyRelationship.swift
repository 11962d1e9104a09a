/// The members of one object's to-many relationship, once loaded.
///
/// A `ManagedObjectSet` serves both kinds of to-many: it keeps insertion order (the
/// order of an ordered relationship) and refuses duplicates (set semantics). `committed`
/// remembers the members as last saved, so a save writes only the difference.
final class ToManyRelationship {
    var members: ManagedObjectSet
    /// Members as of the last fetch or save; `nil` for objects never saved.
    var committed: ManagedObjectSet?

    init(members: ManagedObjectSet = [], committed: ManagedObjectSet?) {
        self.members = members
        self.committed = committed
    }

    /// Members added since the last save.
    var added: [NSManagedObject] {
        guard let committed else { return Array(members) }
        return members.filter { !committed.contains($0) }
    }

    /// Members removed since the last save.
    var removed: [NSManagedObject] {
        guard let committed else { return [] }
        return committed.filter { !members.contains($0) }
    }

    /// Whether the membership or (for ordered relationships) the order changed.
    func hasChanges(ordered: Bool) -> Bool {
        guard let committed else { return !members.isEmpty }
        return ordered ? committed != members : !committed.hasSameMembers(as: members)
    }
}
