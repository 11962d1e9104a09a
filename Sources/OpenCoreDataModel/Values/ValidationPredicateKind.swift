/// Maps a failed validation predicate to the specific code Core Data reports for the
/// rules the model editor writes as predicates (min/max value, length, pattern).
package enum ValidationPredicateKind {
    package static func errorCode(for predicate: NSPredicate, value: Any) -> Int {
        guard let comparison = predicate as? NSComparisonPredicate else { return NSManagedObjectValidationError }
        let operatorType = comparison.predicateOperatorType
        if operatorType == .matches { return NSValidationStringPatternMatchingError }
        let lower = operatorType == .greaterThan || operatorType == .greaterThanOrEqualTo
        let upper = operatorType == .lessThan || operatorType == .lessThanOrEqualTo
        guard lower || upper else { return NSManagedObjectValidationError }
        let left = comparison.leftExpression
        if left.expressionType == .keyPath, left.keyPath == "length" {
            return lower ? NSValidationStringTooShortError : NSValidationStringTooLongError
        }
        if value is Date { return lower ? NSValidationDateTooSoonError : NSValidationDateTooLateError }
        if value is NSNumber { return lower ? NSValidationNumberTooSmallError : NSValidationNumberTooLargeError }
        return NSManagedObjectValidationError
    }
}
