import Foundation
import XCTest
#if canImport(SwiftData) && OPENCOREDATA_COMPATIBILITY_TEST
import SwiftData
#else
import OpenSwiftData
#endif

@ModelActor
actor TripImporter {
    func importTrips(named names: [String]) throws -> [PersistentIdentifier] {
        let trips = names.map { Trip(name: $0) }
        for trip in trips { modelContext.insert(trip) }
        try modelContext.save()
        return trips.map(\.persistentModelID)
    }

    func totalBudget() throws -> Double {
        try modelContext.fetch(FetchDescriptor<Trip>()).reduce(0) { $0 + $1.budget }
    }

    func raiseBudget(of id: PersistentIdentifier, by amount: Double) throws {
        guard let trip = self[id, as: Trip.self] else { return }
        trip.budget += amount
        try modelContext.save()
    }
}

final class ModelActorTests: XCTestCase {
    func testAnActorWorksOnItsOwnContext() async throws {
        let container = try makeTripContainer()
        let importer = TripImporter(modelContainer: container)
        let ids = try await importer.importTrips(named: ["One", "Two", "Three"])
        XCTAssertEqual(ids.count, 3)
        try await importer.raiseBudget(of: ids[1], by: 50)
        let total = try await importer.totalBudget()
        XCTAssertEqual(total, 50)
        let context = ModelContext(container)
        let two = context.model(for: ids[1]) as? Trip
        XCTAssertEqual(two?.budget, 50, "another context reads what the actor saved")
    }

    func testActorsRunConcurrently() async throws {
        let container = try makeTripContainer()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<4 {
                group.addTask {
                    let importer = TripImporter(modelContainer: container)
                    _ = try await importer.importTrips(named: (0..<25).map { "w\(worker)-\($0)" })
                }
            }
            try await group.waitForAll()
        }
        XCTAssertEqual(try ModelContext(container).fetchCount(FetchDescriptor<Trip>()), 100)
    }
}
