extension NSExpression {
    /// Whether the expression depends on nothing but constants (no key path, variable,
    /// evaluated object or fetch), so it can be computed once, before any store sees it:
    /// batch updates store the value, SQL translation binds it.
    package var dependsOnConstantsOnly: Bool {
        switch node {
        case .constant:
            return true
        case .function(let target, let name, let arguments):
            guard target == nil else { return false }
            if name == PredicateFunctions.index, arguments.count == 2, case .symbol = arguments[1].node {
                return arguments[0].dependsOnConstantsOnly
            }
            return arguments.allSatisfy(\.dependsOnConstantsOnly)
        case .aggregate(let items):
            return items.allSatisfy(\.dependsOnConstantsOnly)
        case .union(let a, let b), .intersect(let a, let b), .minus(let a, let b):
            return a.dependsOnConstantsOnly && b.dependsOnConstantsOnly
        default:
            return false
        }
    }
}
