import OpenCoreDataCore
/// Predicates: TRUEPREDICATE/FALSEPREDICATE, AND/OR/NOT, and comparisons with
/// their modifier. Block predicates and custom selectors cannot run in SQL.
extension SQLTranslator {
    /// The SQL condition for `predicate`, read in `scope`.
    package func condition(_ predicate: NSPredicate, in scope: SQLScope) throws -> SQLCondition {
        switch predicate.node {
        case .constant(let value):
            return .constant(value)
        case .block:
            throw SQLTranslationError.unsupported("block predicates (NSPredicate(block:)) run only in memory")
        case .compound(let type, let subpredicates):
            let parts = try subpredicates.map { try condition($0, in: scope) }
            switch type {
            case .and: return .and(parts)
            case .or: return .or(parts)
            // NOT of nothing is false, as in memory.
            case .not: return (parts.first ?? .alwaysTrue).negated
            }
        case .comparison(let parts):
            if parts.operatorType == .customSelector || parts.customSelector != nil {
                throw SQLTranslationError.unsupported("custom selector comparison \(predicate.predicateFormat)")
            }
            let left = try operand(parts.left, in: scope)
            let right = try operand(parts.right, in: scope)
            switch parts.modifier {
            case .direct:
                return try compare(left, parts.operatorType, right, options: parts.options)
            case .any, .all:
                return try quantified(parts.modifier, left, parts.operatorType, right, options: parts.options)
            }
        }
    }
}
