/// What happens to the objects at the other end of a relationship when its source is deleted.
public enum NSDeleteRule: UInt, Sendable {
    /// Leave the destination alone, even if it keeps pointing at the deleted object.
    case noActionDeleteRule = 0
    /// Remove the deleted object from the destination's inverse relationship.
    case nullifyDeleteRule = 1
    /// Delete the destination objects as well.
    case cascadeDeleteRule = 2
    /// Refuse to delete the source while the relationship is not empty (save fails).
    case denyDeleteRule = 3
}

/// Describes a relationship from one entity to another.
///
/// A relationship is to-one when `maxCount` is 1 and to-many otherwise (0 meaning
/// unbounded). Core Data expects every relationship to have an inverse; setting
/// either side keeps the other in step.
open class NSRelationshipDescription: NSPropertyDescription, @unchecked Sendable {
    /// The entity at the other end.
    open var destinationEntity: NSEntityDescription? {
        get { _destinationEntity }
        set { assertMutable(); _destinationEntity = newValue }
    }
    /// `unowned`, not `weak` (see ``NSEntityDescription/superentity``): the model keeps its
    /// entities alive, and reading a destination that is gone (its model released, or never in
    /// one) traps, where Core Data's unretained reference would read freed memory.
    private unowned var _destinationEntity: NSEntityDescription?
    /// The relationship that points back (set both sides, as Core Data expects).
    open var inverseRelationship: NSRelationshipDescription? {
        get { _inverse }
        set { assertMutable(); _inverse = newValue }
    }
    private weak var _inverse: NSRelationshipDescription?
    /// The fewest destination objects allowed on save.
    open var minCount: Int = 0 { willSet { assertMutable() } }
    /// The most destination objects allowed on save: 1 makes it to-one, 0 unbounded.
    open var maxCount: Int = 1 { willSet { assertMutable() } }
    /// What deleting the source does to the destination.
    open var deleteRule: NSDeleteRule = .nullifyDeleteRule { willSet { assertMutable() } }
    /// Whether a to-many relationship keeps its members in order.
    open var isOrdered: Bool = false { willSet { assertMutable() } }
    /// Whether the relationship holds many destination objects.
    open var isToMany: Bool { maxCount != 1 }

    /// Creates a to-one relationship description with the nullify rule.
    public override init() { super.init() }
}
