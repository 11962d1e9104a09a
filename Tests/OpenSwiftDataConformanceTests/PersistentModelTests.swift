import Foundation
import XCTest
#if canImport(SwiftData) && OPENCOREDATA_COMPATIBILITY_TEST
import SwiftData
#else
import OpenSwiftData
#endif

final class PersistentModelTests: XCTestCase {
    func testAModelOutsideAnyContextKeepsItsValues() {
        let trip = Trip(name: "Lisbon", kind: .family)
        XCTAssertEqual(trip.name, "Lisbon")
        XCTAssertEqual(trip.kind, .family)
        XCTAssertEqual(trip.budget, 0, "the declaration's initial value")
        XCTAssertNil(trip.notes)
        XCTAssertTrue(trip.activities.isEmpty)
        XCTAssertNil(trip.modelContext)
        XCTAssertFalse(trip.isDeleted)
        trip.notes = "window seat"
        XCTAssertEqual(trip.notes, "window seat")
    }

    func testContextStateOfAModel() throws {
        let context = ModelContext(try makeTripContainer())
        let trip = Trip(name: "Oslo")
        context.insert(trip)
        XCTAssertTrue(trip.modelContext == context)
        XCTAssertTrue(trip.hasChanges)
        try context.save()
        XCTAssertFalse(trip.hasChanges)
        trip.budget = 10
        XCTAssertTrue(trip.hasChanges)
        XCTAssertEqual(context.changedModelsArray.count, 1)
        context.delete(trip)
        XCTAssertTrue(trip.isDeleted)
        XCTAssertEqual(context.deletedModelsArray.count, 1)
    }

    func testIdentityAndHashing() throws {
        let context = ModelContext(try makeTripContainer())
        let first = Trip(name: "A")
        let second = Trip(name: "B")
        XCTAssertNotEqual(first, second)
        XCTAssertEqual(Set([first, first, second]).count, 2)
        context.insert(first)
        try context.save()
        XCTAssertEqual(first.id, first.persistentModelID)
        XCTAssertNotNil(first.persistentModelID.storeIdentifier, "a saved model's identifier names its store")
        XCTAssertEqual(first.persistentModelID.entityName, "Trip")
    }

    func testPropertiesAreObservable() throws {
        let trip = Trip(name: "Observed")
        final class Flag: @unchecked Sendable { var raised = false }
        let changed = Flag()
        withObservationTracking {
            _ = trip.budget
        } onChange: {
            changed.raised = true
        }
        trip.notes = "not observed"
        XCTAssertFalse(changed.raised, "only properties read in the tracking closure are tracked")
        trip.budget = 99
        XCTAssertTrue(changed.raised)
    }

    func testGetValueAndSetValueByKeyPath() throws {
        let context = ModelContext(try makeTripContainer())
        let trip = Trip(name: "KeyPaths")
        context.insert(trip)
        trip.setValue(forKey: \.budget, to: 42)
        XCTAssertEqual(trip.getValue(forKey: \.budget), 42)
        XCTAssertEqual(trip.budget, 42)
    }
}
