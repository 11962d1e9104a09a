import Foundation
import XCTest
#if canImport(SwiftData) && OPENCOREDATA_COMPATIBILITY_TEST
import SwiftData
#else
import OpenSwiftData
#endif

final class FetchDescriptorTests: XCTestCase {
    func testFetchWithABatchSizeReadsEveryModelInOrder() throws {
        let container = try makeTripContainer()
        let context = ModelContext(container)
        for index in 0..<7 {
            let trip = Trip(name: "Trip \(index)")
            trip.budget = Double(index * 100)
            context.insert(trip)
        }
        try context.save()
        let reader = ModelContext(container)
        let descriptor = FetchDescriptor<Trip>(
            predicate: #Predicate { $0.budget >= 200 }, sortBy: [SortDescriptor(\.budget, order: .reverse)])
        let results = try reader.fetch(descriptor, batchSize: 2)
        XCTAssertEqual(results.count, 5)
        XCTAssertEqual(results.map(\.name), ["Trip 6", "Trip 5", "Trip 4", "Trip 3", "Trip 2"])
        XCTAssertEqual(results[3].budget, 300)
        XCTAssertTrue(results[0] === results[0], "reading an element again gives the same model")
    }

    private func seeded() throws -> ModelContext {
        let context = ModelContext(try makeTripContainer())
        for (index, name) in ["Athens", "Bergen", "Cairo", "Dakar", "Essen"].enumerated() {
            let trip = Trip(name: name, kind: index.isMultiple(of: 2) ? .leisure : .business)
            trip.budget = Double(index * 100)
            context.insert(trip)
        }
        try context.save()
        return context
    }

    func testLimitOffsetAndSortOrder() throws {
        let context = try seeded()
        var descriptor = FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.budget, order: .reverse)])
        descriptor.fetchLimit = 2
        descriptor.fetchOffset = 1
        XCTAssertEqual(try context.fetch(descriptor).map(\.name), ["Dakar", "Cairo"])
    }

    func testEnumConstantsAndCapturedValues() throws {
        let context = try seeded()
        let business = TripKind.business
        let descriptor = FetchDescriptor<Trip>(
            predicate: #Predicate { $0.kind == business }, sortBy: [SortDescriptor(\.name)])
        XCTAssertEqual(try context.fetch(descriptor).map(\.name), ["Bergen", "Dakar"])
        let minimum = 150.0
        XCTAssertEqual(try context.fetchCount(FetchDescriptor<Trip>(predicate: #Predicate { $0.budget >= minimum })), 3)
    }

    func testPendingChangesTakePartUnlessExcluded() throws {
        let context = try seeded()
        context.insert(Trip(name: "Faro"))
        var descriptor = FetchDescriptor<Trip>(predicate: #Predicate { $0.name == "Faro" })
        XCTAssertEqual(try context.fetch(descriptor).count, 1)
        descriptor.includePendingChanges = false
        XCTAssertEqual(try context.fetch(descriptor).count, 0)
    }

    func testIdentifiersAndEnumeration() throws {
        let context = try seeded()
        let ids = try context.fetchIdentifiers(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)]))
        XCTAssertEqual(ids.count, 5)
        var names: [String] = []
        try context.enumerate(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)]), batchSize: 2) {
            names.append($0.name)
        }
        XCTAssertEqual(names, ["Athens", "Bergen", "Cairo", "Dakar", "Essen"])
    }

    func testRelationshipPredicates() throws {
        let context = try seeded()
        let trip = try XCTUnwrap(
            context.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.name == "Cairo" })).first)
        trip.activities = [Activity(name: "Pyramids", cost: 30), Activity(name: "Museum", cost: 12)]
        trip.destination = Destination(city: "Cairo", country: "Egypt")
        try context.save()
        let withPricey = FetchDescriptor<Trip>(
            predicate: #Predicate { trip in trip.activities.contains { $0.cost > 20 } })
        XCTAssertEqual(try context.fetch(withPricey).map(\.name), ["Cairo"])
        let inEgypt = FetchDescriptor<Trip>(predicate: #Predicate { $0.destination?.country == "Egypt" })
        XCTAssertEqual(try context.fetch(inEgypt).map(\.name), ["Cairo"])
        let noDestination = FetchDescriptor<Trip>(predicate: #Predicate { $0.destination == nil })
        XCTAssertEqual(try context.fetchCount(noDestination), 4)
        let busy = FetchDescriptor<Trip>(predicate: #Predicate { $0.activities.count >= 2 })
        XCTAssertEqual(try context.fetchCount(busy), 1)
        let byCity = FetchDescriptor<Trip>(
            predicate: #Predicate { $0.destination != nil }, sortBy: [SortDescriptor(\.destination?.city)])
        XCTAssertEqual(try context.fetch(byCity).map(\.name), ["Cairo"], "a sort through a to-one relationship")
    }
}
