import Foundation
import XCTest
#if canImport(SwiftData) && OPENCOREDATA_COMPATIBILITY_TEST
import SwiftData
#else
import OpenSwiftData
#endif

final class ModelContextTests: XCTestCase {
    func testAnUpsertKeepsWhatTheNewModelLeftUnset() throws {
        let container = try makeTripContainer()
        let context = ModelContext(container)
        let first = Trip(name: "Conference")
        first.notes = "Keynote on Tuesday"
        first.budget = 100
        context.insert(first)
        try context.save()

        let again = ModelContext(container)
        let second = Trip(name: "Conference")
        second.budget = 250
        again.insert(second)
        try again.save()

        let trips = try ModelContext(container).fetch(FetchDescriptor<Trip>())
        XCTAssertEqual(trips.count, 1, "a unique name updates the stored trip")
        XCTAssertEqual(trips.first?.budget, 250)
        XCTAssertEqual(trips.first?.notes, "Keynote on Tuesday")
    }

    func testDeleteModelWhereRemovesTheMatchingModelsSavedOrNot() throws {
        let container = try makeTripContainer()
        let context = ModelContext(container)
        let cheap = Trip(name: "Cheap")
        cheap.budget = 10
        let dear = Trip(name: "Dear")
        dear.budget = 5_000
        context.insert(cheap)
        context.insert(dear)
        try context.save()
        let unsaved = Trip(name: "Unsaved cheap")
        unsaved.budget = 20
        context.insert(unsaved)
        let other = ModelContext(container)
        XCTAssertEqual(try other.fetchCount(FetchDescriptor<Trip>()), 2)

        try context.delete(model: Trip.self, where: #Predicate { $0.budget < 100 })
        try context.save()
        XCTAssertEqual(try context.fetch(FetchDescriptor<Trip>()).map(\.name), ["Dear"])
        XCTAssertEqual(try ModelContext(container).fetch(FetchDescriptor<Trip>()).map(\.name), ["Dear"])
        XCTAssertFalse(context.insertedModelsArray.contains { $0 as? Trip === unsaved })

        try context.delete(model: Trip.self)
        XCTAssertEqual(try ModelContext(container).fetchCount(FetchDescriptor<Trip>()), 0)
    }

    func testInsertSaveAndFetchWithPredicateAndSort() throws {
        let container = try makeTripContainer()
        let context = ModelContext(container)
        let paris = Trip(name: "Paris", kind: .leisure)
        paris.budget = 1200
        let berlin = Trip(name: "Berlin", kind: .business)
        berlin.budget = 800
        context.insert(paris)
        context.insert(berlin)
        XCTAssertTrue(context.hasChanges)
        XCTAssertEqual(context.insertedModelsArray.count, 2)
        try context.save()
        XCTAssertFalse(context.hasChanges)

        let all = try context.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)]))
        XCTAssertEqual(all.map(\.name), ["Berlin", "Paris"])
        XCTAssertTrue(all[1] === paris, "a context gives back the model instance it holds")

        let expensive = try context.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.budget > 1000 }))
        XCTAssertEqual(expensive.map(\.name), ["Paris"])
        XCTAssertEqual(try context.fetchCount(FetchDescriptor<Trip>()), 2)
    }

    func testRelationshipsAndInverses() throws {
        let container = try makeTripContainer()
        let context = ModelContext(container)
        let trip = Trip(name: "Rome")
        let museum = Activity(name: "Museum", cost: 20)
        trip.activities = [museum]
        trip.accommodation = Accommodation(placeName: "Hotel", nights: 3)
        context.insert(trip)
        XCTAssertTrue(museum.trip === trip, "the inverse is set once the models are in a context")
        XCTAssertEqual(trip.accommodation?.trip?.name, "Rome")
        try context.save()

        let other = ModelContext(container)
        let fetched = try other.fetch(FetchDescriptor<Trip>())
        XCTAssertEqual(fetched.count, 1)
        XCTAssertEqual(fetched[0].activities.map(\.name), ["Museum"])
        XCTAssertEqual(fetched[0].accommodation?.nights, 3)
        XCTAssertEqual(fetched[0].kind, .leisure)

        other.delete(fetched[0])
        try other.save()
        XCTAssertEqual(try other.fetchCount(FetchDescriptor<Activity>()), 0, "cascade deletes the activities")
        XCTAssertEqual(try other.fetchCount(FetchDescriptor<Accommodation>()), 0)
    }
}
