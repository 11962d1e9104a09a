import OpenCoreData

/// One version of an app's schema: its version number and its model types (usually types
/// nested in the conforming enum, so that versions can declare the same class names).
public protocol VersionedSchema {
    /// The version of this schema.
    static var versionIdentifier: Schema.Version { get }
    /// The model types of this version.
    static var models: [any PersistentModel.Type] { get }
}

/// The versions of an app's schema in order, and the stages that migrate a store from each
/// to the next.
public protocol SchemaMigrationPlan {
    /// The schema versions, oldest first.
    static var schemas: [any VersionedSchema.Type] { get }
    /// The stages, in the order they apply.
    static var stages: [MigrationStage] { get }
}

/// One step of a migration plan.
public enum MigrationStage: @unchecked Sendable, CustomDebugStringConvertible {
    /// A migration Core Data infers from the two versions (added, removed and renamed
    /// properties and entities, changed optionality, defaults).
    case lightweight(fromVersion: any VersionedSchema.Type, toVersion: any VersionedSchema.Type)
    /// A lightweight migration with code around it: `willMigrate` runs on a context of the old
    /// version before it, `didMigrate` on a context of the new version after it.
    case custom(
        fromVersion: any VersionedSchema.Type, toVersion: any VersionedSchema.Type,
        willMigrate: ((ModelContext) throws -> Void)?, didMigrate: ((ModelContext) throws -> Void)?)

    var fromVersion: any VersionedSchema.Type {
        switch self {
        case .lightweight(let from, _), .custom(let from, _, _, _): from
        }
    }

    var toVersion: any VersionedSchema.Type {
        switch self {
        case .lightweight(_, let to), .custom(_, let to, _, _): to
        }
    }

    public var debugDescription: String {
        switch self {
        case .lightweight(let from, let to): "lightweight(\(from.versionIdentifier) → \(to.versionIdentifier))"
        case .custom(let from, let to, _, _): "custom(\(from.versionIdentifier) → \(to.versionIdentifier))"
        }
    }
}
