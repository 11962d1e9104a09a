import Testing
@testable import OpenCoreDataPredicate

@Suite struct PredicateEqualityTests {
    @Test func parsedEqualsBuilt() {
        let built = NSComparisonPredicate(
            leftExpression: NSExpression(forKeyPath: "age"),
            rightExpression: NSExpression(forConstantValue: 3),
            modifier: .direct, type: .greaterThan)
        let parsed = NSPredicate(format: "age > 3")
        #expect(parsed == built)
        #expect(parsed.hash == built.hash)
        #expect(parsed.isEqual(built))
        #expect(Set([parsed, built]).count == 1)
    }

    @Test func structuralDifferencesAreUnequal() {
        let base = NSPredicate(format: "name ==[c] 'x'")
        #expect(base != NSPredicate(format: "name == 'x'"))
        #expect(base != NSPredicate(format: "name ==[c] 'y'"))
        #expect(base != NSPredicate(format: "other ==[c] 'x'"))
        #expect(base != NSPredicate(format: "ANY name ==[c] 'x'"))
        #expect(base != NSPredicate(format: "name !=[c] 'x'"))
        #expect(NSPredicate(format: "a == 1 AND b == 2") != NSPredicate(format: "a == 1 OR b == 2"))
        #expect(NSPredicate(format: "a == 1 AND b == 2") != NSPredicate(format: "b == 2 AND a == 1"))
        #expect(NSPredicate(value: true) != NSPredicate(value: false))
        #expect(NSPredicate(value: true) == NSPredicate(format: "TRUEPREDICATE"))
    }

    @Test func numericConstantsCompareByValue() {
        #expect(NSPredicate(format: "a == 1") == NSPredicate(format: "a == 1.0"))
        #expect(NSPredicate(format: "a == 1").hash == NSPredicate(format: "a == 1.0").hash)
        #expect(NSPredicate(format: "a == %@", 1) == NSPredicate(format: "a == %d", 1))
        #expect(NSPredicate(format: "a IN %@", [1, 2]) == NSPredicate(format: "a IN {1, 2}"))
        #expect(NSPredicate(format: "a IN %@", [1, 2]).hash == NSPredicate(format: "a IN {1, 2}").hash)
    }

    @Test func blockPredicatesEqualOnlyThemselves() {
        let block = NSPredicate { _, _ in true }
        #expect(block == block)
        #expect(block != NSPredicate { _, _ in true })
    }

    @Test func expressionsAreHashable() {
        let expressions: Set<NSExpression> = [
            NSExpression(forKeyPath: "a"), NSExpression(format: "a"), NSExpression(forKeyPath: "b"),
            NSExpression(forConstantValue: "a"), NSExpression(forVariable: "a"), NSExpression(format: "SELF"),
            NSExpression.expressionForEvaluatedObject(), NSExpression(format: "a + 1"), NSExpression(format: "1 + a"),
        ]
        #expect(expressions.count == 7)
        #expect(NSExpression(format: "$x.name") == NSExpression(format: "$x.name"))
        #expect(NSExpression(format: "$x.name") != NSExpression(format: "$y.name"))
        #expect(NSExpression(format: "SUBQUERY(a, $x, $x == 1)") == NSExpression(format: "SUBQUERY(a, $x, $x == 1)"))
    }

    @Test func copiesAreEqual() {
        let predicate = NSPredicate(format: "a == 1")
        #expect(predicate.copy() as? NSPredicate == predicate)
    }
}
