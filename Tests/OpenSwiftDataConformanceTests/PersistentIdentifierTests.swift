import Foundation
import XCTest
#if canImport(SwiftData) && OPENCOREDATA_COMPATIBILITY_TEST
import SwiftData
#else
import OpenSwiftData
#endif

final class PersistentIdentifierTests: XCTestCase {
    func testIdentifiersFindTheSameModelInAnotherContext() throws {
        let container = try makeTripContainer()
        let context = ModelContext(container)
        let trip = Trip(name: "Kyoto")
        context.insert(trip)
        try context.save()
        let id = trip.persistentModelID

        let other = ModelContext(container)
        let found = other.model(for: id) as? Trip
        XCTAssertEqual(found?.name, "Kyoto")
        XCTAssertFalse(found === trip, "each context has its own instance")
        XCTAssertEqual(found?.persistentModelID, id)
        let registered: Trip? = other.registeredModel(for: id)
        XCTAssertTrue(registered === found)
    }

    func testIdentifiersAreCodable() throws {
        let container = try makeTripContainer()
        let context = ModelContext(container)
        let trip = Trip(name: "Quito")
        context.insert(trip)
        try context.save()
        let data = try JSONEncoder().encode(trip.persistentModelID)
        let decoded = try JSONDecoder().decode(PersistentIdentifier.self, from: data)
        XCTAssertEqual(decoded, trip.persistentModelID)
        XCTAssertEqual(decoded.hashValue, trip.persistentModelID.hashValue)
        XCTAssertEqual((ModelContext(container).model(for: decoded) as? Trip)?.name, "Quito")
    }

    func testIdentifiersCrossActors() async throws {
        let container = try makeTripContainer()
        let context = ModelContext(container)
        let trip = Trip(name: "Sent")
        context.insert(trip)
        try context.save()
        let id = trip.persistentModelID
        let name = await Task.detached {
            let background = ModelContext(container)
            return (background.model(for: id) as? Trip)?.name
        }.value
        XCTAssertEqual(name, "Sent")
    }

    func testIdentifiersOfOneRowAreEqualAcrossContainersOfOneStore() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "identifiers-\(UUID().uuidString).store")
        defer { try? FileManager.default.removeItem(at: url) }
        let first = try ModelContainer(
            for: Trip.self, Accommodation.self, Activity.self, Destination.self,
            configurations: ModelConfiguration(url: url))
        let context = ModelContext(first)
        let trips = (0..<40).map { Trip(name: "Trip \($0)") }
        trips.forEach(context.insert)
        try context.save()

        let second = try ModelContainer(
            for: Trip.self, Accommodation.self, Activity.self, Destination.self,
            configurations: ModelConfiguration(url: url))
        let fetched = try ModelContext(second).fetch(FetchDescriptor<Trip>())
        XCTAssertEqual(Set(fetched.map(\.persistentModelID)), Set(trips.map(\.persistentModelID)))
        let decoded = try trips.map {
            try JSONDecoder().decode(PersistentIdentifier.self, from: JSONEncoder().encode($0.persistentModelID))
        }
        XCTAssertEqual(Set(decoded), Set(fetched.map(\.persistentModelID)))
    }

    func testAnInsertedModelGetsANewIdentifierWhenSaved() throws {
        let context = ModelContext(try makeTripContainer())
        let trips = (0..<30).map { Trip(name: "Unsaved \($0)") }
        trips.forEach(context.insert)
        let temporary = trips.map(\.persistentModelID)
        XCTAssertEqual(Set(temporary).count, trips.count, "each inserted model has its own identifier")
        XCTAssertEqual(temporary.map { $0.storeIdentifier }, Array(repeating: nil, count: trips.count))
        try context.save()
        let saved = trips.map(\.persistentModelID)
        XCTAssertEqual(Set(saved).count, trips.count)
        XCTAssertTrue(Set(saved).isDisjoint(with: temporary))
        XCTAssertNotNil(saved[0].storeIdentifier)
        XCTAssertEqual(saved, trips.map(\.persistentModelID), "a saved model keeps its identifier")
    }
}
