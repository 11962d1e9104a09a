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
}
