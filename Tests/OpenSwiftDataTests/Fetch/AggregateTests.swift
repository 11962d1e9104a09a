import Foundation
import OpenSwiftData
import Testing

@Model
final class AGXTrip {
    var destination: String
    var country: String
    var cost: Double
    var nights: Int
    var rating: Int?
    var start: Date
    var tags: [String] = []
    var city: AGXCity?

    init(
        _ destination: String, _ country: String, cost: Double, nights: Int, rating: Int? = nil,
        start: Date = Date(timeIntervalSinceReferenceDate: 0)
    ) {
        self.destination = destination
        self.country = country
        self.cost = cost
        self.nights = nights
        self.rating = rating
        self.start = start
    }
}

@Model
final class AGXCrate {
    var quantity: Int16

    init(quantity: Int16) {
        self.quantity = quantity
    }
}

@Model
final class AGXCity {
    var name: String
    init(name: String) { self.name = name }
}

@Suite("Aggregates in SQL from ModelContext")
struct AggregateTests {
    static func day(_ n: Double) -> Date { Date(timeIntervalSinceReferenceDate: n * 86_400) }

    /// A container with six saved trips (ratings: two nil).
    static func populated() throws -> ModelContainer {
        let container = try ModelContainer(
            for: AGXTrip.self, AGXCity.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        for trip in [
            AGXTrip("Rome", "Italy", cost: 100, nights: 2, rating: 4, start: day(10)),
            AGXTrip("Rome", "Italy", cost: 300, nights: 4, rating: nil, start: day(3)),
            AGXTrip("Milan", "Italy", cost: 50, nights: 1, rating: 2, start: day(20)),
            AGXTrip("Paris", "France", cost: 200, nights: 3, rating: 5, start: day(7)),
            AGXTrip("Paris", "France", cost: 0, nights: 1, rating: nil, start: day(30)),
            AGXTrip("Lyon", "France", cost: 150, nights: 2, rating: 3, start: day(1)),
        ] {
            context.insert(trip)
        }
        try context.save()
        return container
    }

    @Test func singleAggregatesWithoutPredicate() throws {
        let context = ModelContext(try Self.populated())
        let total: Double = try context.aggregate(.sum(\AGXTrip.cost))
        #expect(total == 800)
        let nights: Int = try context.aggregate(.sum(\AGXTrip.nights))
        #expect(nights == 13)
        #expect(try context.aggregate(.average(\AGXTrip.nights)) == 13.0 / 6)
        #expect(try context.aggregate(.min(\AGXTrip.cost)) == 0)
        #expect(try context.aggregate(.max(\AGXTrip.cost)) == 300)
        let first: String? = try context.aggregate(.min(\AGXTrip.destination))
        #expect(first == "Lyon")
        #expect(try context.aggregate(.max(\AGXTrip.destination)) == "Rome")
        let count: Int = try context.aggregate(PartialAggregate<AGXTrip>.count)
        #expect(count == 6)
    }

    @Test func singleAggregatesWithPredicate() throws {
        let context = ModelContext(try Self.populated())
        let paid = #Predicate<AGXTrip> { $0.cost > 0 }
        #expect(try context.aggregate(.sum(\AGXTrip.cost), where: paid) == 800)
        #expect(try context.aggregate(.count, where: paid) == 5)
        #expect(try context.aggregate(.min(\AGXTrip.cost), where: paid) == 50)
        #expect(try context.aggregate(.average(\AGXTrip.cost), where: paid) == 160)
        let italy = #Predicate<AGXTrip> { $0.country == "Italy" && $0.nights >= 2 }
        #expect(try context.aggregate(.sum(\AGXTrip.nights), where: italy) == 6)
        #expect(try context.aggregate(.max(\AGXTrip.cost), where: italy) == 300)
    }

    @Test func groupedByOneProperty() throws {
        let context = ModelContext(try Self.populated())
        let rows = try context.aggregate(
            [.sum(\AGXTrip.cost), .average(\AGXTrip.cost), .count, .max(\AGXTrip.nights)],
            groupedBy: [\AGXTrip.country], sortBy: [SortDescriptor(\AGXTrip.country)])
        #expect(rows.map { $0[\AGXTrip.country] } == ["France", "Italy"])
        #expect(rows.map { $0[.sum(\AGXTrip.cost)] } == [350, 450])
        #expect(rows.map { $0[.average(\AGXTrip.cost)] } == [350.0 / 3, 150])
        #expect(rows.map { $0[.count] } == [3, 3])
        #expect(rows.map { $0[.max(\AGXTrip.nights)] } == [3, 4])
        // Filtered before grouping.
        let cheap = try context.aggregate(
            [.count], groupedBy: [\AGXTrip.country], where: #Predicate { $0.cost < 120 },
            sortBy: [SortDescriptor(\AGXTrip.country, order: .reverse)])
        #expect(cheap.map { $0[\AGXTrip.country] } == ["Italy", "France"])
        #expect(cheap.map { $0[.count] } == [2, 1])
    }

    @Test func groupedByTwoPropertiesAndSorted() throws {
        let context = ModelContext(try Self.populated())
        let rows = try context.aggregate(
            [.sum(\AGXTrip.nights), .count], groupedBy: [\AGXTrip.country, \AGXTrip.destination],
            sortBy: [SortDescriptor(\AGXTrip.country, order: .reverse), SortDescriptor(\AGXTrip.destination)])
        let triples = rows.map {
            "\($0[\AGXTrip.country])/\($0[\AGXTrip.destination]):\($0[.sum(\AGXTrip.nights)])x\($0[.count])"
        }
        #expect(triples == ["Italy/Milan:1x1", "Italy/Rome:6x2", "France/Lyon:2x1", "France/Paris:4x2"])
    }

    @Test func groupsWithoutAggregatesAreTheDistinctValues() throws {
        let context = ModelContext(try Self.populated())
        let rows = try context.aggregate(
            [], groupedBy: [\AGXTrip.destination], sortBy: [SortDescriptor(\AGXTrip.destination)])
        #expect(rows.map { $0[\AGXTrip.destination] } == ["Lyon", "Milan", "Paris", "Rome"])
    }

    @Test func emptyInput() throws {
        let container = try ModelContainer(
            for: AGXTrip.self, AGXCity.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        // SQL's SUM of no rows is NULL; the API gives 0, as a sum of nothing is.
        #expect(try context.aggregate(.sum(\AGXTrip.cost)) == 0)
        #expect(try context.aggregate(.sum(\AGXTrip.nights)) == 0)
        #expect(try context.aggregate(PartialAggregate<AGXTrip>.count) == 0)
        #expect(try context.aggregate(.average(\AGXTrip.cost)) == nil)
        #expect(try context.aggregate(.min(\AGXTrip.start)) == nil)
        #expect(try context.aggregate(.max(\AGXTrip.destination)) == nil)
        // Ungrouped: one row; grouped: no group.
        let single = try context.aggregate([.sum(\AGXTrip.cost), .count])
        #expect(single.count == 1)
        #expect(single.first?[.sum(\AGXTrip.cost)] == 0)
        #expect(try context.aggregate([.count], groupedBy: [\AGXTrip.country]).isEmpty)

        // A predicate matching nothing in a populated store gives the same answers.
        let populated = ModelContext(try Self.populated())
        let none = #Predicate<AGXTrip> { $0.cost > 10_000 }
        #expect(try populated.aggregate(.sum(\AGXTrip.cost), where: none) == 0)
        #expect(try populated.aggregate(.max(\AGXTrip.cost), where: none) == nil)
    }

    @Test func optionalAttributesSkipNil() throws {
        let context = ModelContext(try Self.populated())
        let ratingSum: Int = try context.aggregate(.sum(\AGXTrip.rating))
        #expect(ratingSum == 14)
        #expect(try context.aggregate(.average(\AGXTrip.rating)) == 3.5)
        let lowest: Int? = try context.aggregate(.min(\AGXTrip.rating))
        #expect(lowest == 2)
        #expect(try context.aggregate(.max(\AGXTrip.rating)) == 5)
        #expect(try context.aggregate(.count(\AGXTrip.rating)) == 4)
        #expect(try context.aggregate(PartialAggregate<AGXTrip>.count) == 6)

        // Grouped by an optional attribute: the nil values form their own group.
        let rows = try context.aggregate(
            [.count, .sum(\AGXTrip.cost)], groupedBy: [\AGXTrip.rating], sortBy: [SortDescriptor(\AGXTrip.rating)])
        #expect(rows.map { $0[\AGXTrip.rating] } == [nil, 2, 3, 4, 5])
        #expect(rows.first?[.count] == 2)
        #expect(rows.first?[.sum(\AGXTrip.cost)] == 300)

        // A group whose values are all nil: sum 0, average nil.
        let byDestination = try context.aggregate(
            [.sum(\AGXTrip.rating), .average(\AGXTrip.rating)], groupedBy: [\AGXTrip.destination],
            where: #Predicate { $0.destination == "Paris" || $0.destination == "Rome" },
            sortBy: [SortDescriptor(\AGXTrip.destination)])
        #expect(byDestination.map { $0[.sum(\AGXTrip.rating)] } == [5, 4])
        let withoutRatings = try context.aggregate(
            [.sum(\AGXTrip.rating), .average(\AGXTrip.rating)],
            where: #Predicate { $0.rating == nil })
        #expect(withoutRatings.first?[.sum(\AGXTrip.rating)] == 0)
        #expect(withoutRatings.first?[.average(\AGXTrip.rating)] == Optional<Double>.none)
    }

    @Test func dateMinimumAndMaximum() throws {
        let context = ModelContext(try Self.populated())
        let earliest: Date? = try context.aggregate(.min(\AGXTrip.start))
        #expect(earliest == Self.day(1))
        #expect(try context.aggregate(.max(\AGXTrip.start)) == Self.day(30))
        let rows = try context.aggregate(
            [.min(\AGXTrip.start), .max(\AGXTrip.start)], groupedBy: [\AGXTrip.country],
            sortBy: [SortDescriptor(\AGXTrip.country)])
        #expect(rows.map { $0[.min(\AGXTrip.start)] } == [Self.day(1), Self.day(3)])
        #expect(rows.map { $0[.max(\AGXTrip.start)] } == [Self.day(30), Self.day(20)])
    }

    @Test func untranslatablePredicateThrowsUnsupportedPredicate() throws {
        let context = ModelContext(try Self.populated())
        #expect(throws: SwiftDataError.unsupportedPredicate) {
            _ = try context.aggregate(.sum(\AGXTrip.cost), where: #Predicate { $0.tags.contains("beach") })
        }
        #expect(throws: SwiftDataError.unsupportedPredicate) {
            _ = try context.aggregate(
                [.count], groupedBy: [\AGXTrip.country], where: #Predicate { $0.tags.contains("beach") })
        }
    }

    @Test func keyPathsThatAreNotStoredAttributesThrowUnsupportedKeyPath() throws {
        let context = ModelContext(try Self.populated())
        // A relationship, aggregated or grouped by.
        let counted = #expect(throws: SwiftDataError.unsupportedKeyPath) {
            _ = try context.aggregate(.count(\AGXTrip.city))
        }
        #expect(counted?.description.contains("AGXTrip.city") == true)
        #expect(throws: SwiftDataError.unsupportedKeyPath) {
            _ = try context.aggregate([.count], groupedBy: [\AGXTrip.city])
        }
        // A property that is not persisted.
        #expect(throws: SwiftDataError.unsupportedKeyPath) {
            _ = try context.aggregate(.max(\AGXTrip.persistentModelID.hashValue))
        }
    }

    @Test func sortingByAPropertyNotGroupedByThrows() throws {
        let context = ModelContext(try Self.populated())
        #expect(throws: SwiftDataError.unsupportedSortDescriptor) {
            _ = try context.aggregate([.count], groupedBy: [\AGXTrip.country], sortBy: [SortDescriptor(\AGXTrip.cost)])
        }
    }

    @Test func unsavedChangesDoNotCount() throws {
        let context = ModelContext(try Self.populated())
        context.insert(AGXTrip("Oslo", "Norway", cost: 1_000, nights: 5))
        #expect(try context.aggregate(.sum(\AGXTrip.cost)) == 800)
        #expect(try context.aggregate(PartialAggregate<AGXTrip>.count) == 6)
        try context.save()
        #expect(try context.aggregate(.sum(\AGXTrip.cost)) == 1_800)
        #expect(try context.aggregate(PartialAggregate<AGXTrip>.count) == 7)
    }

    /// The aggregates are computed by the store: a context that aggregates 1000 saved rows
    /// registers none of their models.
    @Test func aggregatesLoadNoModels() throws {
        let container = try ModelContainer(
            for: AGXTrip.self, AGXCity.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let writer = ModelContext(container)
        for index in 0..<1000 {
            writer.insert(
                AGXTrip(
                    "D\(index % 10)", index % 2 == 0 ? "Even" : "Odd", cost: Double(index), nights: index % 7,
                    rating: index % 3 == 0 ? nil : index % 5, start: Self.day(Double(index))))
        }
        try writer.save()

        let reader = ModelContext(container)
        let identifiers = try reader.fetchIdentifiers(FetchDescriptor<AGXTrip>())
        #expect(identifiers.count == 1000)
        #expect(identifiers.allSatisfy { (reader.registeredModel(for: $0) as AGXTrip?) == nil })

        #expect(try reader.aggregate(.sum(\AGXTrip.cost)) == 499_500)
        #expect(try reader.aggregate(.max(\AGXTrip.start)) == Self.day(999))
        let rows = try reader.aggregate(
            [.count, .sum(\AGXTrip.nights), .average(\AGXTrip.rating)],
            groupedBy: [\AGXTrip.country, \AGXTrip.destination],
            where: #Predicate { $0.cost >= 100 },
            sortBy: [SortDescriptor(\AGXTrip.destination)])
        #expect(rows.count == 10)
        #expect(rows.reduce(0) { $0 + $1[.count] } == 900)

        // Still nothing registered: no model was read to compute them.
        #expect(identifiers.allSatisfy { (reader.registeredModel(for: $0) as AGXTrip?) == nil })
        #expect(!reader.hasChanges)
        // A fetch, by contrast, registers the models it loads (while they are held).
        let fetched = try reader.fetch(FetchDescriptor<AGXTrip>(predicate: #Predicate { $0.cost < 2 }))
        #expect(fetched.count == 2)
        #expect(identifiers.filter { (reader.registeredModel(for: $0) as AGXTrip?) != nil }.count == 2)
        withExtendedLifetime(fetched) {}
    }

    @Test func aSumItsPropertyTypeCannotHoldThrowsInsteadOfWrapping() throws {
        let container = try ModelContainer(
            for: AGXCrate.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        for _ in 0..<300 { context.insert(AGXCrate(quantity: 100)) }
        try context.save()
        #expect(try context.aggregate(.sum(\AGXCrate.quantity)) == 30_000)
        for _ in 0..<100 { context.insert(AGXCrate(quantity: 100)) }
        try context.save()
        // 40,000 does not fit an Int16: cut to 16 bits it would read -25,536.
        #expect(throws: SwiftDataError.unsupportedKeyPath) { try context.aggregate(.sum(\AGXCrate.quantity)) }
    }
}
