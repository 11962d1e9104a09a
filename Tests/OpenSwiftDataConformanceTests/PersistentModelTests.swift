import Foundation
import XCTest
#if canImport(SwiftData) && OPENCOREDATA_COMPATIBILITY_TEST
import SwiftData
#else
import OpenSwiftData
#endif

/// One property of each type SwiftData stores as a Core Data attribute of its own.
@Model
final class Reading {
    var tiny: Int8
    var small: Int16
    var medium: Int32
    var large: Int64
    var count: Int
    var unsignedTiny: UInt8
    var unsignedSmall: UInt16
    var unsignedMedium: UInt32
    var unsignedLarge: UInt64
    var ratio: Float
    var value: Double
    var isValid: Bool
    var takenAt: Date
    var sensor: UUID
    var source: URL
    var price: Decimal
    var label: String?
    var note: String?
    var payload: Data?
    @Attribute(.externalStorage) var photo: Data?
    var reviewedAt: Date?

    init() {
        tiny = -8
        small = -1_600
        medium = -320_000
        large = Int64.min
        count = Int.max
        unsignedTiny = 250
        unsignedSmall = 65_000
        unsignedMedium = 4_000_000_000
        unsignedLarge = UInt64.max
        ratio = 0.25
        value = -1.5e300
        isValid = true
        takenAt = Date(timeIntervalSinceReferenceDate: 1_000_000)
        sensor = UUID(uuidString: "1B4E28BA-2FA1-11D2-883F-0016D3CCA427")!
        source = URL(string: "https://example.com/sensors/7")!
        price = Decimal(string: "12.34")!
        label = "kitchen"
        payload = Data([1, 2, 3])
        photo = Data(repeating: 7, count: 200_000)
    }
}

/// An optional property with a default other than `nil`.
@Model
final class Preference {
    var theme: String? = "dark"
    var name: String

    init(name: String, theme: String?) {
        self.name = name
        self.theme = theme
    }

    init(name: String) {
        self.name = name
    }
}

final class PersistentModelTests: XCTestCase {
    func testAnOptionalSetToNilOverItsDefaultIsSavedAsNil() throws {
        let container = try ModelContainer(
            for: Preference.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        context.insert(Preference(name: "cleared", theme: nil))
        context.insert(Preference(name: "light", theme: "light"))
        context.insert(Preference(name: "default"))
        try context.save()
        let fetched = try ModelContext(container).fetch(FetchDescriptor<Preference>(sortBy: [SortDescriptor(\.name)]))
        XCTAssertEqual(fetched.map(\.name), ["cleared", "default", "light"])
        XCTAssertEqual(fetched.map(\.theme), [nil, "dark", "light"])
    }

    func testEveryAttributeTypeKeepsItsValueThroughTheStore() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("readings-\(UUID().uuidString).store")
        defer { try? FileManager.default.removeItem(at: url) }
        do {
            let context = ModelContext(
                try ModelContainer(for: Reading.self, configurations: ModelConfiguration(url: url)))
            let reading = Reading()
            context.insert(reading)
            XCTAssertEqual(reading.unsignedSmall, 65_000, "values set before insertion read back after it")
            try context.save()
        }
        let expected = Reading()
        let context = ModelContext(try ModelContainer(for: Reading.self, configurations: ModelConfiguration(url: url)))
        let reading = try XCTUnwrap(context.fetch(FetchDescriptor<Reading>()).first)
        XCTAssertEqual(reading.tiny, expected.tiny)
        XCTAssertEqual(reading.small, expected.small)
        XCTAssertEqual(reading.medium, expected.medium)
        XCTAssertEqual(reading.large, expected.large)
        XCTAssertEqual(reading.count, expected.count)
        XCTAssertEqual(reading.unsignedTiny, expected.unsignedTiny)
        XCTAssertEqual(reading.unsignedSmall, expected.unsignedSmall)
        XCTAssertEqual(reading.unsignedMedium, expected.unsignedMedium)
        XCTAssertEqual(reading.unsignedLarge, expected.unsignedLarge)
        XCTAssertEqual(reading.ratio, expected.ratio)
        XCTAssertEqual(reading.value, expected.value)
        XCTAssertEqual(reading.isValid, expected.isValid)
        XCTAssertEqual(reading.takenAt, expected.takenAt)
        XCTAssertEqual(reading.sensor, expected.sensor)
        XCTAssertEqual(reading.source, expected.source)
        XCTAssertEqual(reading.price, expected.price)
        XCTAssertEqual(reading.label, expected.label)
        XCTAssertNil(reading.note)
        XCTAssertEqual(reading.payload, expected.payload)
        XCTAssertEqual(reading.photo, expected.photo)
        XCTAssertNil(reading.reviewedAt)

        // Changes of a fetched model, to other values and to nil, are saved too.
        reading.unsignedSmall = 40_000
        reading.tiny = Int8.min
        reading.label = nil
        reading.reviewedAt = Date(timeIntervalSinceReferenceDate: 5)
        reading.photo = nil
        try context.save()
        let again = try XCTUnwrap(ModelContext(context.container).fetch(FetchDescriptor<Reading>()).first)
        XCTAssertEqual(again.unsignedSmall, 40_000)
        XCTAssertEqual(again.tiny, Int8.min)
        XCTAssertNil(again.label)
        XCTAssertEqual(again.reviewedAt, Date(timeIntervalSinceReferenceDate: 5))
        XCTAssertNil(again.photo)
        let large = try ModelContext(context.container).fetchCount(
            FetchDescriptor<Reading>(predicate: #Predicate { $0.unsignedSmall > 30_000 }))
        XCTAssertEqual(large, 1)
    }

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
