import Foundation
import OpenCoreData
import OpenSwiftData
import Testing

// Foundation's `Expression` (`#Expression`, iOS 18) evaluated inside a predicate, translated
// to SQL and run by the SQLite store: the store must return what Swift's own evaluation of the
// predicate selects.
//
// On Linux the `#Predicate` macro does not accept `.evaluate(…)` (swift-foundation enables it
// only in Apple's build), so these predicates are written as the macro would expand them, with
// `PredicateExpressions.build_…`. `#Expression` itself works.

/// Apple's Foundation makes `Expression` `Codable`, so a captured Expression is a standard
/// predicate expression (`PredicateExpressions.Value` of it) there; Linux's does not. The
/// tests need that conformance to put a captured Expression in a `Predicate`. It is never
/// used to encode or decode: both throw.
extension Expression: @retroactive Codable {
    public init(from decoder: any Decoder) throws {
        throw DecodingError.dataCorrupted(
            .init(codingPath: decoder.codingPath, debugDescription: "ExprT: Expression is not decodable in tests"))
    }

    public func encode(to encoder: any Encoder) throws {
        throw EncodingError.invalidValue(
            self, .init(codingPath: encoder.codingPath, debugDescription: "ExprT: Expression is not encodable in tests")
        )
    }
}

/// Short name for the node builders the predicates below are written with.
private typealias ExprTPE = PredicateExpressions

/// A trip with stops, for fetching through `ModelContext` a predicate that evaluates an
/// Expression on a to-many relationship.
@Model
final class ExprTTrip {
    var name: String
    var budget: Double
    @Relationship(deleteRule: .cascade, inverse: \ExprTStop.trip) var stops: [ExprTStop] = []

    init(_ name: String, budget: Double) {
        self.name = name
        self.budget = budget
    }
}

/// A stop of an `ExprTTrip`.
@Model
final class ExprTStop {
    var name: String
    var trip: ExprTTrip?

    init(_ name: String) { self.name = name }
}

@Suite struct ExpressionEvaluateTranslationTests {
    let fixture: PredicateTranslationFixture

    init() throws {
        fixture = try PredicateTranslationFixture()
    }

    /// The store returns, in SQL, the trips Swift selects by evaluating `predicate` on every
    /// trip, and those are `expected`.
    func check(
        _ predicate: Predicate<PTTrip>, _ expected: Set<String>,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let stored = try fixture.names("Trip", predicate)
        let evaluated = try fixture.swiftNames(predicate)
        #expect(stored == evaluated, sourceLocation: sourceLocation)
        #expect(stored == expected, sourceLocation: sourceLocation)
    }

    /// The error translating `predicate` throws, which must be a `SwiftDataError`.
    func error(
        translating predicate: Predicate<PTTrip>, sourceLocation: SourceLocation = #_sourceLocation
    ) -> SwiftDataError? {
        thrownSwiftDataError({ _ = try fixture.translate(predicate) }, sourceLocation: sourceLocation)
    }

    @Test func expressionOfTheObjectCountingAToManyRelationship() throws {
        // busy.evaluate(trip) && trip.name != ""
        let busy = #Expression<PTTrip, Bool> { $0.activities.count > 2 }
        let predicate = Predicate<PTTrip> { trip in
            ExprTPE.build_Conjunction(
                lhs: ExprTPE.build_evaluate(ExprTPE.build_Arg(busy), trip),
                rhs: ExprTPE.build_NotEqual(
                    lhs: ExprTPE.build_KeyPath(root: trip, keyPath: \.name), rhs: ExprTPE.build_Arg("")))
        }
        #expect(try fixture.translate(predicate).predicateFormat == #"activities.@count > 2 AND name != """#)
        try check(predicate, ["Rome"])
    }

    @Test func expressionOfAStoredValue() throws {
        // expensive.evaluate(trip.budget)
        let expensive = #Expression<Double, Bool> { $0 > 1000 }
        let predicate = Predicate<PTTrip> { trip in
            ExprTPE.build_evaluate(ExprTPE.build_Arg(expensive), ExprTPE.build_KeyPath(root: trip, keyPath: \.budget))
        }
        #expect(try fixture.translate(predicate).predicateFormat == "budget > 1000.0")
        try check(predicate, ["Rome", "Paris", "Tokyo"])
    }

    @Test func expressionReturningACountComparedOutside() throws {
        // activityCount.evaluate(trip) == 1
        let activityCount = #Expression<PTTrip, Int> { $0.activities.count }
        let predicate = Predicate<PTTrip> { trip in
            ExprTPE.build_Equal(
                lhs: ExprTPE.build_evaluate(ExprTPE.build_Arg(activityCount), trip), rhs: ExprTPE.build_Arg(1))
        }
        try check(predicate, ["Oslo", "Café Crawl"])
    }

    @Test func expressionWithSeveralInputs() throws {
        // longAndAffordable.evaluate(trip.nights, trip.budget)
        let longAndAffordable = #Expression<Int, Double, Bool> { nights, budget in nights >= 5 && budget < 3000 }
        let predicate = Predicate<PTTrip> { trip in
            ExprTPE.build_evaluate(
                ExprTPE.build_Arg(longAndAffordable),
                ExprTPE.build_KeyPath(root: trip, keyPath: \.nights),
                ExprTPE.build_KeyPath(root: trip, keyPath: \.budget))
        }
        #expect(try fixture.translate(predicate).predicateFormat == "nights >= 5 AND budget < 3000.0")
        try check(predicate, ["Rome", "Paris"])
    }

    @Test func sameExpressionTwiceWithConstantAndStoredInputs() throws {
        // atLeast.evaluate(trip.nights, 5) && atLeast.evaluate(7, trip.nights)
        let atLeast = #Expression<Int, Int, Bool> { a, b in a >= b }
        let predicate = Predicate<PTTrip> { trip in
            ExprTPE.build_Conjunction(
                lhs: ExprTPE.build_evaluate(
                    ExprTPE.build_Arg(atLeast), ExprTPE.build_KeyPath(root: trip, keyPath: \.nights),
                    ExprTPE.build_Arg(5)),
                rhs: ExprTPE.build_evaluate(
                    ExprTPE.build_Arg(atLeast), ExprTPE.build_Arg(7),
                    ExprTPE.build_KeyPath(root: trip, keyPath: \.nights)))
        }
        #expect(try fixture.translate(predicate).predicateFormat == "nights >= 5 AND 7 >= nights")
        try check(predicate, ["Rome", "Paris"])
    }

    @Test func expressionOfConstantsIsEvaluatedNow() throws {
        // expensive.evaluate(limit) || trip.nights == 3, with expensive(limit) false
        let expensive = #Expression<Double, Bool> { $0 > 1000 }
        let limit = 500.0
        let predicate = Predicate<PTTrip> { trip in
            ExprTPE.build_Disjunction(
                lhs: ExprTPE.build_evaluate(ExprTPE.build_Arg(expensive), ExprTPE.build_Arg(limit)),
                rhs: ExprTPE.build_Equal(
                    lhs: ExprTPE.build_KeyPath(root: trip, keyPath: \.nights), rhs: ExprTPE.build_Arg(3)))
        }
        #expect(try fixture.translate(predicate).predicateFormat == "nights == 3")
        try check(predicate, ["Oslo"])
    }

    @Test func expressionInsideContainsWhere() throws {
        // trip.activities.contains { cheap.evaluate($0) }
        let cheap = #Expression<PTActivity, Bool> { $0.cost < 20 }
        let predicate = Predicate<PTTrip> { trip in
            ExprTPE.build_contains(ExprTPE.build_KeyPath(root: trip, keyPath: \.activities)) { activity in
                ExprTPE.build_evaluate(ExprTPE.build_Arg(cheap), activity)
            }
        }
        try check(predicate, ["Paris", "Café Crawl"])
    }

    @Test func expressionOfAnOptionalAndAString() throws {
        // hasNickname.evaluate(trip.nickname) || startsWithO.evaluate(trip.name)
        let hasNickname = #Expression<String?, Bool> { $0 != nil }
        let startsWithO = #Expression<String, Bool> { $0.starts(with: "O") }
        let predicate = Predicate<PTTrip> { trip in
            ExprTPE.build_Disjunction(
                lhs: ExprTPE.build_evaluate(
                    ExprTPE.build_Arg(hasNickname), ExprTPE.build_KeyPath(root: trip, keyPath: \.nickname)),
                rhs: ExprTPE.build_evaluate(
                    ExprTPE.build_Arg(startsWithO), ExprTPE.build_KeyPath(root: trip, keyPath: \.name)))
        }
        try check(predicate, ["Rome", "Tokyo", "Café Crawl", "Oslo"])
    }

    @Test func expressionEvaluatingAnotherExpression() throws {
        // outer(trip) = inner(trip.budget) && trip.isFavorite
        let inner = #Expression<Double, Bool> { $0 >= 1500 }
        let outer = Expression<PTTrip, Bool> { trip in
            ExprTPE.build_Conjunction(
                lhs: ExprTPE.build_evaluate(
                    ExprTPE.build_Arg(inner), ExprTPE.build_KeyPath(root: trip, keyPath: \.budget)),
                rhs: ExprTPE.build_KeyPath(root: trip, keyPath: \.isFavorite))
        }
        let predicate = Predicate<PTTrip> { trip in ExprTPE.build_evaluate(ExprTPE.build_Arg(outer), trip) }
        try check(predicate, ["Rome", "Tokyo"])
    }

    // MARK: What SQL cannot run

    @Test func unsupportedNodeInsideTheExpressionThrows() throws {
        let firstIsCheap = #Expression<PTTrip, Bool> { $0.activities[0].cost < 20 }
        let predicate = Predicate<PTTrip> { trip in ExprTPE.build_evaluate(ExprTPE.build_Arg(firstIsCheap), trip) }
        let thrown = error(translating: predicate)
        #expect(thrown == .unsupportedPredicate)
        #expect(
            thrown?.description.contains("PredicateExpressions.CollectionIndexSubscript") == true,
            "\(String(describing: thrown))")
    }

    @Test func expressionReadingTheFetchedObjectInsideASubqueryThrows() throws {
        // trip.activities.contains { overBudget.evaluate($0.cost, trip.budget) }
        let overBudget = #Expression<Double, Double, Bool> { cost, budget in cost * 10 > budget }
        let predicate = Predicate<PTTrip> { trip in
            ExprTPE.build_contains(ExprTPE.build_KeyPath(root: trip, keyPath: \.activities)) { activity in
                ExprTPE.build_evaluate(
                    ExprTPE.build_Arg(overBudget), ExprTPE.build_KeyPath(root: activity, keyPath: \.cost),
                    ExprTPE.build_KeyPath(root: trip, keyPath: \.budget))
            }
        }
        let thrown = error(translating: predicate)
        #expect(thrown == .unsupportedPredicate)
        #expect(thrown?.description.contains("contains(where:)") == true, "\(String(describing: thrown))")
    }

    // MARK: Through ModelContext

    @Test func fetchThroughModelContextMatchesSwift() throws {
        let container = try ModelContainer(
            for: ExprTTrip.self, ExprTStop.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        for (name, budget, stops) in [
            ("Lisbon", 800.0, 3), ("Porto", 400.0, 1), ("Faro", 1200.0, 0), ("Braga", 300.0, 4),
        ] {
            let trip = ExprTTrip(name, budget: budget)
            context.insert(trip)
            for index in 0..<stops {
                let stop = ExprTStop("\(name) \(index)")
                context.insert(stop)
                stop.trip = trip
            }
        }
        try context.save()

        let busy = #Expression<ExprTTrip, Bool> { $0.stops.count > 2 }
        let affordable = #Expression<Double, Bool> { $0 < 1000 }
        let predicate = Predicate<ExprTTrip> { trip in
            ExprTPE.build_Conjunction(
                lhs: ExprTPE.build_evaluate(ExprTPE.build_Arg(busy), trip),
                rhs: ExprTPE.build_evaluate(
                    ExprTPE.build_Arg(affordable), ExprTPE.build_KeyPath(root: trip, keyPath: \.budget)))
        }
        let fetched = Set(try context.fetch(FetchDescriptor(predicate: predicate)).map(\.name))
        let evaluated = Set(
            try context.fetch(FetchDescriptor<ExprTTrip>()).filter { try predicate.evaluate($0) }.map(\.name))
        #expect(fetched == evaluated)
        #expect(fetched == ["Lisbon", "Braga"])
    }
}
