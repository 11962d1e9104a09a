import Foundation
import OpenCoreData
import OpenSwiftData
import Synchronization
import Testing

// An expedition planner's schema in two versions, for MigrationStage.transforming:
//
// - 1.0.0: expeditions with a unique name, a budget written as text ("1200 EUR"), optional
//   notes, and stickers (an entity of their own).
// - 2.0.0: the budget becomes a number plus a currency (a type change lightweight migration
//   cannot convert), the stickers entity goes and each expedition keeps their count.
//
// 2.0.0 cannot be computed from what 2.0.0 has, nor 1.0.0's store be changed in place by
// lightweight migration: the transforming stage reads 1.0.0's expeditions and stickers and
// writes 2.0.0's in one step.

enum ExpeditionSchemaV1: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(1, 0, 0) }
    static var models: [any PersistentModel.Type] { [Expedition.self, Sticker.self] }

    @Model final class Expedition {
        @Attribute(.unique) var name: String
        var budget: String
        var notes: String?
        @Relationship(deleteRule: .cascade, inverse: \Sticker.expedition) var stickers: [Sticker] = []

        init(name: String, budget: String, notes: String? = nil) {
            self.name = name
            self.budget = budget
            self.notes = notes
        }
    }

    @Model final class Sticker {
        var label: String
        var expedition: Expedition?

        init(label: String) {
            self.label = label
        }
    }
}

enum ExpeditionSchemaV2: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(2, 0, 0) }
    static var models: [any PersistentModel.Type] { [Expedition.self] }

    @Model final class Expedition {
        @Attribute(.unique) var name: String
        var budget: Int = 0
        var currency: String = ""
        var stickerCount: Int = 0
        var notes: String?

        init(name: String, budget: Int, currency: String) {
            self.name = name
            self.budget = budget
            self.currency = currency
        }
    }
}

/// 3.0.0: a rating, added by a lightweight stage after the transforming one.
enum ExpeditionSchemaV3: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(3, 0, 0) }
    static var models: [any PersistentModel.Type] { [Expedition.self] }

    @Model final class Expedition {
        @Attribute(.unique) var name: String
        var budget: Int = 0
        var currency: String = ""
        var stickerCount: Int = 0
        var notes: String?
        var rating: Int = 3

        init(name: String, budget: Int, currency: String) {
            self.name = name
            self.budget = budget
            self.currency = currency
        }
    }
}

/// 2.0.0 with a budget that has no default value: lightweight migration cannot start it at
/// one, so the transforming stage refuses before its closure runs.
enum ExpeditionSchemaV2WithoutDefault: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(2, 0, 0) }
    static var models: [any PersistentModel.Type] { [Expedition.self] }

    @Model final class Expedition {
        @Attribute(.unique) var name: String
        var budget: Int
        var notes: String?

        init(name: String, budget: Int) {
            self.name = name
            self.budget = budget
        }
    }
}

/// What the stages' closures saw, for the tests to check (the suite runs serially).
private let expeditionMigrationLog = Mutex<[String]>([])

private func logExpeditionMigration(_ line: String) {
    expeditionMigrationLog.withLock { $0.append(line) }
}

enum ExpeditionTransformingPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [ExpeditionSchemaV1.self, ExpeditionSchemaV2.self] }
    static var stages: [MigrationStage] { [v1ToV2] }

    static let v1ToV2 = MigrationStage.transforming(
        fromVersion: ExpeditionSchemaV1.self, toVersion: ExpeditionSchemaV2.self
    ) { old, new in
        let oldExpeditions = try old.fetch(
            FetchDescriptor<ExpeditionSchemaV1.Expedition>(sortBy: [SortDescriptor(\.name)]))
        let newExpeditions = try new.fetch(FetchDescriptor<ExpeditionSchemaV2.Expedition>())
        // Rows keep their keys and the copy the store's identifier: identifiers match.
        let byIdentifier = Dictionary(uniqueKeysWithValues: newExpeditions.map { ($0.persistentModelID, $0) })
        for expedition in oldExpeditions {
            guard let successor = byIdentifier[expedition.persistentModelID] else {
                logExpeditionMigration("no successor for \(expedition.name)")
                continue
            }
            let parts = expedition.budget.split(separator: " ")
            successor.budget = parts.first.flatMap { Int($0) } ?? 0
            successor.currency = parts.count > 1 ? String(parts[1]) : ""
            successor.stickerCount = expedition.stickers.count
            logExpeditionMigration("\(expedition.name) → \(successor.name)")
        }
        logExpeditionMigration("old stickers: \(try old.fetchCount(FetchDescriptor<ExpeditionSchemaV1.Sticker>()))")
    }
}

enum ExpeditionThreeVersionPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] {
        [ExpeditionSchemaV1.self, ExpeditionSchemaV2.self, ExpeditionSchemaV3.self]
    }
    static var stages: [MigrationStage] {
        [
            ExpeditionTransformingPlan.v1ToV2,
            .lightweight(fromVersion: ExpeditionSchemaV2.self, toVersion: ExpeditionSchemaV3.self),
        ]
    }
}

/// Struck by the failing plan's closure after it changed the new store.
struct ExpeditionMigrationRefused: Error, Equatable {}

enum ExpeditionFailingPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [ExpeditionSchemaV1.self, ExpeditionSchemaV2.self] }
    static var stages: [MigrationStage] { [v1ToV2] }

    static let v1ToV2 = MigrationStage.transforming(
        fromVersion: ExpeditionSchemaV1.self, toVersion: ExpeditionSchemaV2.self
    ) { _, new in
        for expedition in try new.fetch(FetchDescriptor<ExpeditionSchemaV2.Expedition>()) {
            expedition.budget = -1
        }
        try new.save()
        throw ExpeditionMigrationRefused()
    }
}

enum ExpeditionWithoutDefaultPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [ExpeditionSchemaV1.self, ExpeditionSchemaV2WithoutDefault.self] }
    static var stages: [MigrationStage] { [v1ToV2] }

    static let v1ToV2 = MigrationStage.transforming(
        fromVersion: ExpeditionSchemaV1.self, toVersion: ExpeditionSchemaV2WithoutDefault.self
    ) { _, _ in
        logExpeditionMigration("the closure ran")
    }
}

@Suite(.serialized) struct TransformingStageTests {
    /// A folder of its own in the temporary directory, and the store URL in it.
    private func makeFolder() throws -> (folder: URL, store: URL) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "TransformingStage-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return (folder, folder.appendingPathComponent("Expeditions.store"))
    }

    /// Writes a 1.0.0 store of three expeditions and three stickers at `store`.
    private func makeVersion1Store(at store: URL) throws {
        let container = try ModelContainer(
            for: Schema(versionedSchema: ExpeditionSchemaV1.self), configurations: ModelConfiguration(url: store))
        let context = ModelContext(container)
        let andes = ExpeditionSchemaV1.Expedition(name: "Andes", budget: "1200 EUR", notes: "high passes")
        let fjords = ExpeditionSchemaV1.Expedition(name: "Fjords", budget: "800 NOK")
        let sahara = ExpeditionSchemaV1.Expedition(name: "Sahara", budget: "950 USD")
        for expedition in [andes, fjords, sahara] { context.insert(expedition) }
        for (label, expedition) in [("condor", andes), ("llama", andes), ("dune", sahara)] {
            let sticker = ExpeditionSchemaV1.Sticker(label: label)
            context.insert(sticker)
            sticker.expedition = expedition
        }
        try context.save()
    }

    /// The entity version hashes in `store`'s metadata.
    private func storedHashes(_ store: URL) throws -> [String: Data]? {
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: store)
        return metadata[NSStoreModelVersionHashesKey] as? [String: Data]
    }

    /// Whether `store`'s metadata says `version` made it: its hashes are those of a new
    /// store of `version` beside it.
    private func isStore(_ store: URL, of version: any VersionedSchema.Type) throws -> Bool {
        let reference = store.deletingLastPathComponent().appendingPathComponent(
            "Reference-\(version.versionIdentifier).store")
        if !FileManager.default.fileExists(atPath: reference.path) {
            _ = try ModelContainer(
                for: Schema(versionedSchema: version), configurations: ModelConfiguration(url: reference))
        }
        return try storedHashes(store) == storedHashes(reference)
    }

    /// Expects `store` to hold 1.0.0's three expeditions and three stickers, read at 1.0.0.
    private func expectVersion1Data(at store: URL, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let container = try ModelContainer(
            for: Schema(versionedSchema: ExpeditionSchemaV1.self), configurations: ModelConfiguration(url: store))
        let context = ModelContext(container)
        let expeditions = try context.fetch(
            FetchDescriptor<ExpeditionSchemaV1.Expedition>(sortBy: [SortDescriptor(\.name)]))
        #expect(expeditions.map(\.budget) == ["1200 EUR", "800 NOK", "950 USD"], sourceLocation: sourceLocation)
        #expect(expeditions.map(\.stickers.count) == [2, 0, 1], sourceLocation: sourceLocation)
        #expect(
            try context.fetchCount(FetchDescriptor<ExpeditionSchemaV1.Sticker>()) == 3, sourceLocation: sourceLocation)
    }

    /// The folder holds the store's files only: the stage's copy is gone.
    private func leftovers(in folder: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.contains("transforming") }
    }

    @Test func readsTheOldVersionAndWritesTheNewOneInOneStep() throws {
        let (folder, store) = try makeFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try makeVersion1Store(at: store)
        expeditionMigrationLog.withLock { $0 = [] }

        let container = try ModelContainer(
            for: Schema(versionedSchema: ExpeditionSchemaV2.self), migrationPlan: ExpeditionTransformingPlan.self,
            configurations: [ModelConfiguration(url: store)])
        let context = ModelContext(container)
        let expeditions = try context.fetch(
            FetchDescriptor<ExpeditionSchemaV2.Expedition>(sortBy: [SortDescriptor(\.name)]))
        #expect(expeditions.map(\.name) == ["Andes", "Fjords", "Sahara"])
        #expect(expeditions.map(\.budget) == [1200, 800, 950], "computed from 1.0.0's text budget")
        #expect(expeditions.map(\.currency) == ["EUR", "NOK", "USD"])
        #expect(expeditions.map(\.stickerCount) == [2, 0, 1], "counted from 1.0.0's stickers, an entity 2.0.0 lacks")
        #expect(expeditions.map(\.notes) == ["high passes", nil, nil], "carried over by the lightweight step")
        let log = expeditionMigrationLog.withLock { $0 }
        #expect(
            log.filter { $0.contains(" → ") } == ["Andes → Andes", "Fjords → Fjords", "Sahara → Sahara"],
            "every old expedition's identifier names its successor: \(log)")
        #expect(log.contains("old stickers: 3"), "the old store is read whole: \(log)")
        #expect(try leftovers(in: folder).isEmpty)
        #expect(try isStore(store, of: ExpeditionSchemaV2.self))

        // Opened again, with or without the plan: 2.0.0's store, nothing to migrate.
        let again = try ModelContainer(
            for: Schema(versionedSchema: ExpeditionSchemaV2.self), migrationPlan: ExpeditionTransformingPlan.self,
            configurations: [ModelConfiguration(url: store)])
        let reread = try ModelContext(again).fetch(
            FetchDescriptor<ExpeditionSchemaV2.Expedition>(sortBy: [SortDescriptor(\.name)]))
        #expect(reread.map(\.budget) == [1200, 800, 950])
        #expect(expeditionMigrationLog.withLock { $0 }.count == log.count, "the stage ran once")
    }

    @Test func laterStagesRunAfterIt() throws {
        let (folder, store) = try makeFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try makeVersion1Store(at: store)

        let container = try ModelContainer(
            for: Schema(versionedSchema: ExpeditionSchemaV3.self), migrationPlan: ExpeditionThreeVersionPlan.self,
            configurations: [ModelConfiguration(url: store)])
        let expeditions = try ModelContext(container).fetch(
            FetchDescriptor<ExpeditionSchemaV3.Expedition>(sortBy: [SortDescriptor(\.name)]))
        #expect(expeditions.map(\.budget) == [1200, 800, 950])
        #expect(expeditions.map(\.rating) == [3, 3, 3])
        #expect(try isStore(store, of: ExpeditionSchemaV3.self))
    }

    @Test func aThrowingClosureLeavesTheStoreAsItWas() throws {
        let (folder, store) = try makeFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try makeVersion1Store(at: store)

        #expect(throws: ExpeditionMigrationRefused()) {
            _ = try ModelContainer(
                for: Schema(versionedSchema: ExpeditionSchemaV2.self), migrationPlan: ExpeditionFailingPlan.self,
                configurations: [ModelConfiguration(url: store)])
        }
        #expect(try isStore(store, of: ExpeditionSchemaV1.self), "still a 1.0.0 store")
        #expect(try leftovers(in: folder).isEmpty, "the copy is removed after a failure too")
        try expectVersion1Data(at: store)

        // Nothing half-done: the working plan migrates it afterwards.
        let container = try ModelContainer(
            for: Schema(versionedSchema: ExpeditionSchemaV2.self), migrationPlan: ExpeditionTransformingPlan.self,
            configurations: [ModelConfiguration(url: store)])
        let expeditions = try ModelContext(container).fetch(
            FetchDescriptor<ExpeditionSchemaV2.Expedition>(sortBy: [SortDescriptor(\.name)]))
        #expect(expeditions.map(\.budget) == [1200, 800, 950])
    }

    @Test func aRequiredAttributeWithoutDefaultIsRefusedBeforeTheClosure() throws {
        let (folder, store) = try makeFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try makeVersion1Store(at: store)
        expeditionMigrationLog.withLock { $0 = [] }

        let error = #expect(throws: SwiftDataError.self) {
            _ = try ModelContainer(
                for: Schema(versionedSchema: ExpeditionSchemaV2WithoutDefault.self),
                migrationPlan: ExpeditionWithoutDefaultPlan.self,
                configurations: [ModelConfiguration(url: store)])
        }
        #expect(error == .loadIssueModelContainer)
        #expect(
            error?.description.contains("'budget'") == true,
            "the message names the attribute: \(String(describing: error))")
        #expect(expeditionMigrationLog.withLock { $0 }.isEmpty, "the closure did not run")
        #expect(try isStore(store, of: ExpeditionSchemaV1.self))
        #expect(try leftovers(in: folder).isEmpty)
        try expectVersion1Data(at: store)
    }

    @Test func inMemoryStoresAreNotMigrated() throws {
        expeditionMigrationLog.withLock { $0 = [] }
        let container = try ModelContainer(
            for: Schema(versionedSchema: ExpeditionSchemaV2.self), migrationPlan: ExpeditionTransformingPlan.self,
            configurations: [ModelConfiguration(isStoredInMemoryOnly: true)])
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<ExpeditionSchemaV2.Expedition>()) == 0)
        #expect(expeditionMigrationLog.withLock { $0 }.isEmpty)
    }

    @Test func itsWillMigrateThrowsOutsideAMigration() throws {
        let container = try ModelContainer(
            for: Schema(versionedSchema: ExpeditionSchemaV1.self),
            configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        guard case .custom(_, _, let willMigrate?, let didMigrate) = ExpeditionTransformingPlan.v1ToV2 else {
            Issue.record("a transforming stage is a custom stage with a willMigrate")
            return
        }
        #expect(didMigrate == nil)
        #expect(throws: SwiftDataError.unknownSchema) { try willMigrate(ModelContext(container)) }
        #expect(ExpeditionTransformingPlan.v1ToV2.debugDescription == "custom(1.0.0 → 2.0.0)")
    }
}
