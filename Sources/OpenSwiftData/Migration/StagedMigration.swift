import OpenCoreData

/// Runs a ``SchemaMigrationPlan`` over a container's stores before the container opens them.
///
/// For each store file: finds the plan's version the store was made by (the one whose Core
/// Data model matches the store's version hashes; the newest if several do), then runs the
/// stages from there on in order. A lightweight stage opens the store with the next version's
/// model, which Core Data's lightweight migration brings the store to; a custom stage runs
/// `willMigrate` on a context of the old version first and `didMigrate` on one of the new
/// version after; a transforming stage (``MigrationStage/transforming(fromVersion:toVersion:migrate:)``)
/// migrates a copy, runs its closure on contexts of both, and puts the copy in the store's place.
struct StagedMigration {
    let plan: any SchemaMigrationPlan.Type
    let target: Schema
    let configurations: [ModelConfiguration]

    init(plan: any SchemaMigrationPlan.Type, target: Schema, configurations: [ModelConfiguration]) {
        self.plan = plan
        self.target = target
        self.configurations = configurations
    }

    func run() throws {
        for configuration in configurations where !configuration.isStoredInMemoryOnly {
            guard FileManager.default.fileExists(atPath: configuration.url.path) else { continue }
            try migrate(configuration)
        }
    }

    private func migrate(_ configuration: ModelConfiguration) throws {
        let metadata: [String: Any]
        do {
            metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(
                ofType: NSSQLiteStoreType, at: configuration.url)
        } catch {
            throw SwiftDataError.loadIssueModelContainer.explained(
                "could not read the store at \(configuration.url.path): \((error as NSError).localizedDescription)")
        }
        let versions = plan.schemas
        var current: Int?
        for (index, version) in versions.enumerated().reversed() {
            let model = try Schema(versionedSchema: version).makeManagedObjectModel()
            if model.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata) {
                current = index
                break
            }
        }
        guard let start = current else {
            if try target.makeManagedObjectModel().isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata)
            {
                return
            }
            throw SwiftDataError.unknownSchema.explained(
                "the store at \(configuration.url.path) was made by no schema version of \(plan)")
        }
        var version = versions[start].versionIdentifier
        for stage in plan.stages where stage.fromVersion.versionIdentifier >= version {
            guard stage.fromVersion.versionIdentifier == version else {
                throw SwiftDataError.unknownSchema.explained(
                    "\(plan) has no stage from version \(version) (next stage: \(stage.debugDescription))")
            }
            if case .custom(let from, let to, let willMigrate, _) = stage, let willMigrate {
                // A transforming stage's willMigrate hands its closure over instead of running.
                let handoff = TransformingStageHandoff()
                try TransformingStageHandoff.$current.withValue(handoff) {
                    try withContext(of: from, configuration) { try willMigrate($0) }
                }
                if let migrate = handoff.migrate {
                    try TransformingMigration(from: from, to: to, configuration: configuration, migrate: migrate).run()
                    version = to.versionIdentifier
                    continue
                }
            }
            // Opening with the next version's model migrates the store (lightweight).
            try withContext(of: stage.toVersion, configuration) { _ in }
            if case .custom(_, let to, _, let didMigrate) = stage, let didMigrate {
                try withContext(of: to, configuration) { try didMigrate($0) }
            }
            version = stage.toVersion.versionIdentifier
        }
    }

    /// Opens the store with `version`'s schema and runs `body` on a context of it, saving after.
    private func withContext(
        of version: any VersionedSchema.Type, _ configuration: ModelConfiguration,
        _ body: (ModelContext) throws -> Void
    ) throws {
        let container = try ModelContainer(
            for: Schema(versionedSchema: version), migrationPlan: nil, configurations: [configuration])
        let context = ModelContext(container)
        try body(context)
        try context.save()
        for store in container.persistentContainer.persistentStoreCoordinator.persistentStores {
            try container.persistentContainer.persistentStoreCoordinator.remove(store)
        }
    }
}
