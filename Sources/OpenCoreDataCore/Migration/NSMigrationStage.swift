/// One step of a staged migration (``NSStagedMigrationManager``).
open class NSMigrationStage: NSObject, @unchecked Sendable {
    /// A name for the stage, for logs and debugging.
    open var label: String?

    override init() { super.init() }
}

/// Stages between model versions that lightweight migration handles, named by their
/// version checksums (`NSManagedObjectModel.versionChecksum`) in migration order.
///
/// The models themselves are found by checksum among the versions of the bundle the
/// destination model came from, the app's models, and the models of the other stages.
open class NSLightweightMigrationStage: NSMigrationStage, @unchecked Sendable {
    /// The versions, oldest first.
    public let versionChecksums: [String]

    /// A stage through the versions with these checksums, oldest first.
    ///
    /// - Parameter versionChecksums: The checksums of the versions, oldest first.
    public init(_ versionChecksums: [String]) {
        self.versionChecksums = versionChecksums
        super.init()
    }
}

/// A stage from one model version to the next with code of the app's own before and
/// after the (lightweight) migration between them: the will handler sees the store
/// through the old version, the did handler through the new one, each with a container
/// on the store (``NSStagedMigrationManager/container``) whose contexts save as usual.
open class NSCustomMigrationStage: NSMigrationStage, @unchecked Sendable {
    /// The version the stage starts from.
    public let currentModel: NSManagedObjectModelReference
    /// The version the stage ends at.
    public let nextModel: NSManagedObjectModelReference
    /// Runs before the store is migrated, with the store open under ``currentModel``.
    open var willMigrateHandler: ((NSStagedMigrationManager, NSCustomMigrationStage) throws -> Void)?
    /// Runs after the store is migrated, with the store open under ``nextModel``.
    open var didMigrateHandler: ((NSStagedMigrationManager, NSCustomMigrationStage) throws -> Void)?

    /// A stage from `currentModel` to `nextModel`.
    ///
    /// - Parameters:
    ///   - currentModel: The version the step starts from.
    ///   - nextModel: The version the step ends at.
    public init(migratingFrom currentModel: NSManagedObjectModelReference, to nextModel: NSManagedObjectModelReference)
    {
        self.currentModel = currentModel
        self.nextModel = nextModel
        super.init()
    }
}

/// A model version as a staged migration names it: a model (given, or loaded from a
/// file or a bundle) and the checksum it must have.
open class NSManagedObjectModelReference: NSObject, @unchecked Sendable {
    /// The model, once loaded.
    public let resolvedModel: NSManagedObjectModel
    /// The checksum the model was declared with (`NSManagedObjectModel.versionChecksum`).
    public let versionChecksum: String

    /// A reference to a model at hand.
    ///
    /// - Parameters:
    ///   - model: The model.
    ///   - versionChecksum: Its ``/OpenCoreDataModel/NSManagedObjectModel/versionChecksum``.
    public init(model: NSManagedObjectModel, versionChecksum: String) {
        resolvedModel = model
        self.versionChecksum = versionChecksum
        super.init()
    }

    /// A reference to the model file at `fileURL` (`.xcdatamodel`, `.mom`, or a bundle's
    /// current version); a file that cannot be loaded traps, as a missing model does in
    /// Core Data (a programmer error).
    ///
    /// - Parameters:
    ///   - fileURL: A model file, or a bundle whose current version to load.
    ///   - versionChecksum: The model's ``/OpenCoreDataModel/NSManagedObjectModel/versionChecksum``.
    public convenience init(fileURL: URL, versionChecksum: String) {
        guard let model = NSManagedObjectModel(contentsOf: fileURL) else {
            preconditionFailure("NSManagedObjectModelReference: no model can be loaded from \(fileURL.path)")
        }
        self.init(model: model, versionChecksum: versionChecksum)
    }

    /// A reference to the model version named `modelName` (`Model 2`, the name of a
    /// `.xcdatamodel` or `.mom` inside a bundle's `.xcdatamodeld`/`.momd`) among the
    /// bundle's models (`nil`: the main bundle and the app's resource bundles).
    ///
    /// - Parameters:
    ///   - modelName: The version's name, such as `Model 2`.
    ///   - bundle: The bundle holding it, or `nil` for the main bundle and the app's resource bundles.
    ///   - versionChecksum: The model's ``/OpenCoreDataModel/NSManagedObjectModel/versionChecksum``.
    public convenience init(name modelName: String, in bundle: Bundle?, versionChecksum: String) {
        guard
            let model = ModelResourceSearch.version(
                named: modelName, in: bundle.map { [$0] } ?? ModelResourceSearch.searchedBundles())
        else {
            preconditionFailure(
                "NSManagedObjectModelReference: no model version named '\(modelName)' in the app's bundles")
        }
        self.init(model: model, versionChecksum: versionChecksum)
    }

    /// A reference to the model version whose entities have these version hashes,
    /// among the bundle's models (`nil`: the app's bundles).
    ///
    /// - Parameters:
    ///   - entityVersionHashes: The version hashes of the model's entities, by entity name.
    ///   - bundle: The bundle to search, or `nil` for the app's bundles.
    ///   - versionChecksum: The model's ``/OpenCoreDataModel/NSManagedObjectModel/versionChecksum``.
    public convenience init(entityVersionHashes: [AnyHashable: Any], inBundle bundle: Bundle?, versionChecksum: String)
    {
        let metadata: [String: Any] = [
            NSStoreModelVersionHashesKey: Dictionary(
                uniqueKeysWithValues: entityVersionHashes.compactMap { key, value in
                    (key.base as? String).map { ($0, value) }
                })
        ]
        guard
            let model = NSManagedObjectModel.mergedModel(
                from: bundle.map { [$0] } ?? ModelResourceSearch.searchedBundles(), forStoreMetadata: metadata)
        else {
            preconditionFailure(
                "NSManagedObjectModelReference: no model with these entity version hashes in the app's bundles")
        }
        self.init(model: model, versionChecksum: versionChecksum)
    }
}
