import Foundation
import OpenCoreData
import OpenCoreDataCore

extension MigrationStage {
    /// A stage (beyond Apple) whose code reads the old schema's data and writes the new
    /// schema's in one step: `migrate` gets a context of each.
    ///
    /// SwiftData's ``custom(fromVersion:toVersion:willMigrate:didMigrate:)`` shows the old
    /// version before the migration and the new one after it, never both, so a value the new
    /// schema drops or stores differently has to be stashed somewhere by hand. Here:
    ///
    /// 1. A copy of the store is brought to `toVersion` as a lightweight migration would,
    ///    carrying over everything Core Data can infer. What it cannot infer starts empty
    ///    rather than failing: an attribute whose type changed in a way lightweight
    ///    migration cannot convert (`String` to `Int`, say) starts at the new attribute's
    ///    default value, and the rows of an entity `toVersion` no longer has are left out
    ///    of the copy. A non-optional attribute that starts this way, or is new, needs a
    ///    default value: without one the stage refuses before `migrate` runs, as
    ///    lightweight migration does.
    /// 2. `migrate` runs with `old`, a read-only context of the store as it was (with
    ///    `fromVersion`'s model types), and `new`, a context of the migrated copy (with
    ///    `toVersion`'s). Models of the two are different Swift types; match them by a
    ///    value both have (a unique name), or by identifier: the copy keeps the store's
    ///    identifier and every row its primary key, so while an entity keeps its name a
    ///    model and its migrated self have equal `persistentModelID`s (a dictionary of
    ///    `new`'s models by identifier finds each old model's successor).
    /// 3. `new` is saved, and the migrated copy replaces the store (SQLite's online backup,
    ///    one transaction; values kept in files beside the store follow).
    ///
    /// The store itself is not written until the last step, so a throw from `migrate` (or
    /// from any step, or the process ending before the last one) leaves it exactly as it
    /// was, still openable by `fromVersion`; the error `migrate` threw is rethrown by the
    /// ``ModelContainer`` initializer. The copy lives in a folder beside the store, removed
    /// afterwards in every case. In-memory stores are not migrated (as with every stage).
    ///
    /// The stage is a ``custom(fromVersion:toVersion:willMigrate:didMigrate:)`` stage, so
    /// code that switches over ``MigrationStage`` needs no new case; its `willMigrate` hands
    /// `migrate` to the plan's migration and does nothing else, and calling it outside a
    /// migration throws.
    ///
    /// ```swift
    /// static let v1ToV2 = MigrationStage.transforming(fromVersion: V1.self, toVersion: V2.self) { old, new in
    ///     let budgets = Dictionary(uniqueKeysWithValues: try old.fetch(FetchDescriptor<V1.Trip>()).map { ($0.name, $0.budget) })
    ///     for trip in try new.fetch(FetchDescriptor<V2.Trip>()) {
    ///         trip.budget = Int(budgets[trip.name]?.split(separator: " ").first ?? "") ?? 0
    ///     }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - fromVersion: The version the stage migrates from.
    ///   - toVersion: The version it migrates to.
    ///   - migrate: Reads `old` and changes `new`; need not save (the stage saves `new`).
    /// - Returns: The stage.
    public static func transforming(
        fromVersion: any VersionedSchema.Type, toVersion: any VersionedSchema.Type,
        migrate: @escaping (_ old: ModelContext, _ new: ModelContext) throws -> Void
    ) -> MigrationStage {
        .custom(
            fromVersion: fromVersion, toVersion: toVersion,
            willMigrate: { _ in
                // StagedMigration listens for this hand-off around the stage's willMigrate; anyone
                // else calling it would get a migration that silently did nothing.
                guard let handoff = TransformingStageHandoff.current else {
                    throw SwiftDataError.unknownSchema.explained(
                        "the transforming stage \(fromVersion.versionIdentifier) → \(toVersion.versionIdentifier) runs only as part of a migration plan given to a ModelContainer"
                    )
                }
                handoff.migrate = migrate
            }, didMigrate: nil)
    }
}

/// How a transforming stage's `willMigrate` tells ``StagedMigration`` that it is one: the
/// migration sets a hand-off while it calls a custom stage's `willMigrate`, and the stage puts
/// its `migrate` there. Keeps ``MigrationStage`` Apple's enum, without a case of our own.
final class TransformingStageHandoff: @unchecked Sendable {
    /// Set by a transforming stage's `willMigrate`; read on the same thread right after.
    var migrate: ((ModelContext, ModelContext) throws -> Void)?

    /// The hand-off of the `willMigrate` call running now, if the migration set one.
    @TaskLocal static var current: TransformingStageHandoff?
}

/// Runs one transforming stage on one store file (see
/// ``MigrationStage/transforming(fromVersion:toVersion:migrate:)``): a copy is migrated and
/// transformed, then replaces the store, so the store is never half-migrated.
struct TransformingMigration {
    let from: any VersionedSchema.Type
    let to: any VersionedSchema.Type
    let configuration: ModelConfiguration
    let migrate: (ModelContext, ModelContext) throws -> Void

    func run() throws {
        let store = configuration.url
        let manager = FileManager.default
        // Beside the store: the same volume (a large store is not copied across disks) and
        // a place the app may write. A unique name, so two processes never share one.
        let folder = store.deletingLastPathComponent().appendingPathComponent(
            ".\(store.lastPathComponent).transforming-\(UUID().uuidString)")
        try manager.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? manager.removeItem(at: folder) }
        let work = folder.appendingPathComponent(store.lastPathComponent)

        let (source, configurationName) = try model(of: from)
        let (destination, _) = try model(of: to)
        Self.uncoupleUnconvertibleAttributes(of: source, from: destination)
        // The coordinator only lends its file operations (SQLite's online backup, with the
        // -wal, -shm and external data handled); it opens no store.
        let files = NSPersistentStoreCoordinator(managedObjectModel: NSManagedObjectModel())
        try files.replacePersistentStore(at: work, withPersistentStoreFrom: store, ofType: NSSQLiteStoreType)
        do {
            // Entities the new version lacks are dropped from the copy on purpose: their
            // rows stay readable in `old`, which is what this stage is for.
            try StoreEngines.sqlite().migrateStoreFile(
                at: work, from: source, to: destination, configuration: configurationName, allowingDataLoss: true)
        } catch {
            throw SwiftDataError.loadIssueModelContainer.explained(
                "the transforming stage \(from.versionIdentifier) → \(to.versionIdentifier) could not bring a copy of \(store.path) to the new version: \((error as NSError).localizedDescription)"
            )
        }

        let old = try ModelContainer(
            for: Schema(versionedSchema: from), migrationPlan: nil,
            configurations: [
                ModelConfiguration(configuration.name, schema: configuration.schema, url: store, allowsSave: false)
            ])
        defer { try? Self.close(old) }
        let new = try ModelContainer(
            for: Schema(versionedSchema: to), migrationPlan: nil,
            configurations: [
                ModelConfiguration(configuration.name, schema: configuration.schema, url: work)
            ])
        defer { try? Self.close(new) }
        let newContext = ModelContext(new)
        try migrate(ModelContext(old), newContext)
        try newContext.save()
        // Both must be closed before the copy replaces the store; a failure to close stops here.
        try Self.close(old, throwing: true)
        try Self.close(new, throwing: true)

        // Another process may have migrated the store meanwhile; its result (and whatever it
        // wrote since) wins over this one.
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: store)
        if destination.isConfiguration(withName: configurationName, compatibleWithStoreMetadata: metadata) { return }
        try files.replacePersistentStore(at: store, withPersistentStoreFrom: work, ofType: NSSQLiteStoreType)
    }

    /// `version`'s Core Data model, a fresh one (so it may be changed), and the name of the
    /// configuration of the store's entities when the configuration names a part of the schema.
    private func model(of version: any VersionedSchema.Type) throws -> (NSManagedObjectModel, String?) {
        let model = try Schema(versionedSchema: version).makeManagedObjectModel()
        guard let part = configuration.schema else { return (model, nil) }
        model.setEntities(
            part.entities.compactMap { model.entitiesByName[$0.name] }, forConfigurationName: configuration.name)
        return (model, configuration.name)
    }

    /// Gives each attribute of `source` whose type changed to one lightweight migration
    /// cannot convert a renaming identifier no attribute of `destination` has, so that the
    /// inferred mapping treats it as removed and its successor as added (starting at its
    /// default value) instead of refusing the migration. Renaming identifiers are no part
    /// of version hashes, so the model still matches the store.
    ///
    /// Matching mirrors Core Data's inference: by renaming identifier, else by name.
    static func uncoupleUnconvertibleAttributes(of source: NSManagedObjectModel, from destination: NSManagedObjectModel)
    {
        for entity in destination.entities {
            let identifier = entity.renamingIdentifier ?? entity.name
            guard let sourceEntity = source.entities.first(where: { ($0.renamingIdentifier ?? $0.name) == identifier })
            else { continue }
            let sourceAttributes = sourceEntity.attributesByName.values.filter { !$0.isTransient }.sorted {
                $0.name < $1.name
            }
            for attribute in entity.attributesByName.values where !attribute.isTransient {
                let name = attribute.renamingIdentifier ?? attribute.name
                guard let match = sourceAttributes.first(where: { ($0.renamingIdentifier ?? $0.name) == name }),
                    !match.attributeType.convertsInLightweightMigration(to: attribute.attributeType)
                else { continue }
                // Not a property name, so no destination attribute can claim it.
                match.renamingIdentifier = "\(match.name) (type changed in a transforming stage)"
            }
        }
    }

    /// Closes a container's stores, so the files can be copied and replaced; with `throwing`
    /// false (clean-up after a failure) a store that will not close is left to the container.
    static func close(_ container: ModelContainer, throwing: Bool = false) throws {
        let coordinator = container.persistentContainer.persistentStoreCoordinator
        for store in coordinator.persistentStores {
            do {
                try coordinator.remove(store)
            } catch  where !throwing {
                continue
            }
        }
    }
}
