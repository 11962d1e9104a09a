import Foundation
import XCTest
#if canImport(SwiftData) && OPENCOREDATA_COMPATIBILITY_TEST
import SwiftData
#else
import OpenSwiftData
#endif

final class ModelContainerTests: XCTestCase {
    private var folder: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "ModelContainerTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: folder)
    }

    func testAStoreFileKeepsModelsAcrossContainers() throws {
        let url = folder.appendingPathComponent("trips.store")
        do {
            let container = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: url))
            XCTAssertEqual(container.schema.entities.count, 4, "related model types join the schema")
            let context = ModelContext(container)
            let trip = Trip(name: "Saved")
            trip.destination = Destination(city: "Nice", country: "France")
            context.insert(trip)
            try context.save()
        }
        let reopened = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: url))
        let trips = try ModelContext(reopened).fetch(FetchDescriptor<Trip>())
        XCTAssertEqual(trips.map(\.name), ["Saved"])
        XCTAssertEqual(trips.first?.destination?.city, "Nice")
    }

    func testInMemoryContainersShareNothing() throws {
        let first = try makeTripContainer()
        let second = try makeTripContainer()
        let context = ModelContext(first)
        context.insert(Trip(name: "Only here"))
        try context.save()
        XCTAssertEqual(try ModelContext(second).fetchCount(FetchDescriptor<Trip>()), 0)
        XCTAssertTrue(first.configurations.first?.isStoredInMemoryOnly == true)
    }

    func testDeleteAllData() throws {
        let container = try makeTripContainer()
        let context = ModelContext(container)
        context.insert(Trip(name: "Gone"))
        try context.save()
        container.deleteAllData()
        XCTAssertEqual(try ModelContext(container).fetchCount(FetchDescriptor<Trip>()), 0)
    }

    func testReadOnlyConfigurationRefusesSaves() throws {
        let url = folder.appendingPathComponent("readonly.store")
        do {
            let container = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: url))
            let context = ModelContext(container)
            context.insert(Trip(name: "Existing"))
            try context.save()
        }
        let container = try ModelContainer(
            for: Trip.self, configurations: ModelConfiguration(url: url, allowsSave: false))
        let context = ModelContext(container)
        XCTAssertEqual(try context.fetchCount(FetchDescriptor<Trip>()), 1)
        context.insert(Trip(name: "New"))
        XCTAssertThrowsError(try context.save())
    }

    func testUniqueAttributesUpsert() throws {
        let context = ModelContext(try makeTripContainer())
        let first = Trip(name: "Same")
        first.budget = 1
        context.insert(first)
        try context.save()
        let second = Trip(name: "Same")
        second.budget = 2
        context.insert(second)
        try context.save()
        let trips = try context.fetch(FetchDescriptor<Trip>())
        XCTAssertEqual(trips.count, 1, "a second model with a unique value updates the first")
        XCTAssertEqual(trips.first?.budget, 2)
    }
}
