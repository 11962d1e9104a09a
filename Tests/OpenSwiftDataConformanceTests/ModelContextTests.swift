import Foundation
import XCTest
#if canImport(SwiftData) && OPENCOREDATA_COMPATIBILITY_TEST
import SwiftData
#else
import OpenSwiftData
#endif

final class ModelContextTests: XCTestCase {
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
