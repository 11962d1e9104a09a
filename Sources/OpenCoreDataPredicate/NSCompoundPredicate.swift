/// A predicate combining other predicates with `AND`, `OR` or `NOT`.
open class NSCompoundPredicate: NSPredicate, @unchecked Sendable {
    /// The logical connective, with Foundation's raw values.
    public enum LogicalType: UInt, Sendable {
        /// `NOT`: negates the single subpredicate.
        case not = 0
        /// `AND`: all subpredicates hold (true when empty).
        case and = 1
        /// `OR`: some subpredicate holds (false when empty).
        case or = 2
    }

    let logicalType: LogicalType
    let predicates: [NSPredicate]

    /// A compound predicate of `type` over `subpredicates`. An empty `AND` is true
    /// and an empty `OR` is false; `NOT` uses only the first subpredicate.
    public init(type: LogicalType, subpredicates: [NSPredicate]) {
        logicalType = type
        predicates = subpredicates
        super.init(node: .compound(type, subpredicates))
    }

    /// A predicate that holds when all of `subpredicates` hold.
    public convenience init(andPredicateWithSubpredicates subpredicates: [NSPredicate]) {
        self.init(type: .and, subpredicates: subpredicates)
    }

    /// A predicate that holds when any of `subpredicates` holds.
    public convenience init(orPredicateWithSubpredicates subpredicates: [NSPredicate]) {
        self.init(type: .or, subpredicates: subpredicates)
    }

    /// A predicate that holds when `predicate` does not.
    public convenience init(notPredicateWithSubpredicate predicate: NSPredicate) {
        self.init(type: .not, subpredicates: [predicate])
    }

    /// The logical connective.
    open var compoundPredicateType: LogicalType { logicalType }

    /// The combined predicates (all ``NSPredicate`` instances; typed `[Any]` as in Foundation).
    open var subpredicates: [Any] { predicates }
}
