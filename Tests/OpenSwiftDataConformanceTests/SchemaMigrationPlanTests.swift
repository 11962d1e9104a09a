import Foundation
import XCTest
#if canImport(SwiftData) && OPENCOREDATA_COMPATIBILITY_TEST
import SwiftData
#else
import OpenSwiftData
#endif

// Three versions of a schema, as Apple's documentation migrates them: v2 makes `title` unique
// (a custom stage removes duplicates first), v3 adds an attribute (lightweight).

enum JourneySchemaV1: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(1, 0, 0) }
    static var models: [any PersistentModel.Type] { [Journey.self] }

    @Model final class Journey {
        var title: String
        var distance: Int
        init(title: String, distance: Int) {
            self.title = title
            self.distance = distance
        }
    }
}

enum JourneySchemaV2: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(2, 0, 0) }
    static var models: [any PersistentModel.Type] { [Journey.self] }

    @Model final class Journey {
        @Attribute(.unique) var title: String
        var distance: Int
        init(title: String, distance: Int) {
            self.title = title
            self.distance = distance
        }
    }
}

enum JourneySchemaV3: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(3, 0, 0) }
    static var models: [any PersistentModel.Type] { [Journey.self] }

    @Model final class Journey {
        @Attribute(.unique) var title: String
        var distance: Int
        var rating: Int = 3
        init(title: String, distance: Int) {
            self.title = title
            self.distance = distance
        }
    }
}

enum JourneyMigrationPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] {
        [JourneySchemaV1.self, JourneySchemaV2.self, JourneySchemaV3.self]
    }
    static var stages: [MigrationStage] { [migrateV1toV2, migrateV2toV3] }

    /// Keeps the longest journey of each title, so that `title` can become unique.
    static let migrateV1toV2 = MigrationStage.custom(
        fromVersion: JourneySchemaV1.self, toVersion: JourneySchemaV2.self,
        willMigrate: { context in
            let journeys = try context.fetch(
                FetchDescriptor<JourneySchemaV1.Journey>(sortBy: [SortDescriptor(\.distance, order: .reverse)]))
            var seen = Set<String>()
            for journey in journeys where !seen.insert(journey.title).inserted {
                context.delete(journey)
            }
            try context.save()
        },
        didMigrate: { context in
            for journey in try context.fetch(FetchDescriptor<JourneySchemaV2.Journey>()) {
                journey.distance += 1
            }
            try context.save()
        })

    static let migrateV2toV3 = MigrationStage.lightweight(
        fromVersion: JourneySchemaV2.self, toVersion: JourneySchemaV3.self)
}

final class SchemaMigrationPlanTests: XCTestCase {
    func testStagesRunInOrderFromTheStoresVersion() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("Migration-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("journeys.store")
        do {
            let container = try ModelContainer(
                for: Schema(versionedSchema: JourneySchemaV1.self),
                configurations: ModelConfiguration(url: url))
            let context = ModelContext(container)
            context.insert(JourneySchemaV1.Journey(title: "Coast", distance: 10))
            context.insert(JourneySchemaV1.Journey(title: "Coast", distance: 30))
            context.insert(JourneySchemaV1.Journey(title: "Hills", distance: 5))
            try context.save()
        }
        let container = try ModelContainer(
            for: Schema(versionedSchema: JourneySchemaV3.self),
            migrationPlan: JourneyMigrationPlan.self,
            configurations: ModelConfiguration(url: url))
        let journeys = try ModelContext(container).fetch(
            FetchDescriptor<JourneySchemaV3.Journey>(sortBy: [SortDescriptor(\.title)]))
        XCTAssertEqual(journeys.map(\.title), ["Coast", "Hills"], "the custom stage removed the duplicate")
        XCTAssertEqual(journeys.map(\.distance), [31, 6], "the longest kept, then didMigrate ran on the new version")
        XCTAssertEqual(journeys.map(\.rating), [3, 3], "the lightweight stage added the attribute with its default")
    }

    func testAStoreOfAnUnknownVersionIsRefused() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("Migration-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("trips.store")
        do {
            let context = ModelContext(try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: url)))
            context.insert(Trip(name: "Unrelated"))
            try context.save()
        }
        XCTAssertThrowsError(
            try ModelContainer(
                for: Schema(versionedSchema: JourneySchemaV3.self),
                migrationPlan: JourneyMigrationPlan.self,
                configurations: ModelConfiguration(url: url)))
    }
}
