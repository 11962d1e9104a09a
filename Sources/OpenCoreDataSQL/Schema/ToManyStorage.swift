import OpenCoreDataCore

/// How Core Data stores the members of a to-many relationship. The schema decides it
/// once; every statement that reads, writes, copies or deletes members switches on it.
package enum ToManyStorage {
    /// Many-to-many: a join table pairing source and destination keys (for an ordered
    /// relationship, with the order of each side in a column of its own).
    case joinTable(SQLSchema.JoinTable)
    /// A to-many without an inverse: a column on the destination's rows (`Z<n><NAME>`,
    /// from the source's entity number and the relationship) holds the source's key.
    case hiddenColumn(String)
    /// One-to-many: the to-one inverse's foreign key on the destination's rows; for an
    /// ordered relationship, the order column (`Z_FOK_<INVERSE>`) beside it.
    case inverseKey(inverse: NSRelationshipDescription, column: String, orderColumn: String?)

    /// The join table, for a many-to-many.
    package var joinTable: SQLSchema.JoinTable? {
        if case .joinTable(let table) = self { return table }
        return nil
    }
}

extension SQLSchema {
    /// How the store keeps the members of the to-many `relationship`; `nil` when it keeps
    /// them nowhere (a transient relationship, or one no table of the store maps). Asked
    /// of a to-one whose inverse is a to-one (itself, for a self-inverse one like
    /// `spouse`), it answers that inverse's key column, which batch deletes clear.
    package func storage(of relationship: NSRelationshipDescription) -> ToManyStorage? {
        if let join = joinTable(for: relationship) { return .joinTable(join) }
        if let hidden = hiddenColumn(for: relationship) { return .hiddenColumn(hidden) }
        if let inverse = relationship.inverseRelationship, !inverse.isToMany, let column = column(for: inverse) {
            return .inverseKey(inverse: inverse, column: column, orderColumn: orderColumn(for: inverse))
        }
        return nil
    }
}
