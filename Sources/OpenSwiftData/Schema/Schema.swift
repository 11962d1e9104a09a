import OpenCoreData

/// The entities of a set of model types, and the version they make together.
///
/// A schema is what a ``ModelContainer`` stores: each model type is an entity (named after
/// the class), each persisted property an attribute or a relationship. Underneath it is a
/// Core Data model (see the mapping in the documentation's SwiftData article).
public final class Schema: Hashable, @unchecked Sendable {
    /// The entities, one per model type, in the order the types were given.
    public private(set) var entities: [Entity]
    /// The entities by name.
    public var entitiesByName: [String: Entity] {
        Dictionary(entities.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
    }
    /// The schema's version (from a ``VersionedSchema``, or 1.0.0).
    public let version: Version
    /// The version of the schema's encoding.
    public let encodingVersion: Version = Version(1, 0, 0)
    /// The model types, by entity name.
    let modelTypes: [(name: String, type: any PersistentModel.Type)]

    /// A schema of `types` and every model type their relationships reach.
    public init(_ types: [any PersistentModel.Type], version: Version = Version(1, 0, 0)) {
        self.version = version
        var ordered: [any PersistentModel.Type] = []
        var seen: Set<ObjectIdentifier> = []
        var queue = types
        while !queue.isEmpty {
            let type = queue.removeFirst()
            guard seen.insert(ObjectIdentifier(type)).inserted else { continue }
            ordered.append(type)
            for property in ModelTable.of(type).properties {
                switch property.kind {
                case .toOne(let related), .toMany(let related, _): queue.append(related)
                case .attribute, .unsupported: break
                }
            }
        }
        modelTypes = ordered.map { (Schema.entityName(for: $0), $0) }
        entities = ordered.map { Entity(type: $0) }
        for entity in entities { entity.resolveInverses(in: self) }
    }

    /// A schema of `types` and every model type their relationships reach.
    public convenience init(_ types: any PersistentModel.Type..., version: Version = Version(1, 0, 0)) {
        self.init(types, version: version)
    }

    /// The schema of a version of an app's schema.
    public convenience init(versionedSchema: any VersionedSchema.Type) {
        self.init(versionedSchema.models, version: versionedSchema.versionIdentifier)
    }

    /// The entity name of a model type: its class name.
    public static func entityName(for type: any PersistentModel.Type) -> String {
        String(describing: type)
    }

    public static func == (lhs: Schema, rhs: Schema) -> Bool {
        lhs.version == rhs.version
            && lhs.modelTypes.map { ObjectIdentifier($0.type) } == rhs.modelTypes.map { ObjectIdentifier($0.type) }
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(version)
        for (_, type) in modelTypes { hasher.combine(ObjectIdentifier(type)) }
    }

    /// A schema version: major, minor and patch numbers.
    public struct Version: Hashable, Comparable, Codable, Sendable, CustomStringConvertible {
        public let major: Int
        public let minor: Int
        public let patch: Int

        /// The version `major.minor.patch`.
        public init(_ major: Int, _ minor: Int, _ patch: Int) {
            self.major = major
            self.minor = minor
            self.patch = patch
        }

        public static func < (lhs: Version, rhs: Version) -> Bool {
            (lhs.major, lhs.minor, lhs.patch) < (rhs.major, rhs.minor, rhs.patch)
        }

        public var description: String { "\(major).\(minor).\(patch)" }
    }

    /// One persisted property of a model type, as `@Model` lists it in `schemaMetadata`.
    public struct PropertyMetadata: @unchecked Sendable {
        /// The property's name.
        public let name: String
        /// The property's key path from its model type.
        public let keypath: AnyKeyPath
        /// The property's initial value in its declaration, if any.
        public let defaultValue: Any?
        /// Its `@Attribute` or `@Relationship` options, if any.
        public let metadata: (any SchemaProperty)?

        /// Describes one persisted property.
        public init(name: String, keypath: AnyKeyPath, defaultValue: Any?, metadata: (any SchemaProperty)?) {
            self.name = name
            self.keypath = keypath
            self.defaultValue = defaultValue
            self.metadata = metadata
        }
    }
}

/// A property of a schema's entity: an ``Schema/Attribute`` or a ``Schema/Relationship``.
public protocol SchemaProperty: AnyObject, Sendable, CustomDebugStringConvertible {
    /// The property's name.
    var name: String { get }
    /// The property's name in the previous schema version (its own name if unchanged).
    var originalName: String { get }
    /// The property's Swift type.
    var valueType: Any.Type { get }
    /// Whether the property may hold no value.
    var isOptional: Bool { get }
    /// Whether no two models may share the property's value.
    var isUnique: Bool { get }
    /// Whether the property is an attribute.
    var isAttribute: Bool { get }
    /// Whether the property is a relationship.
    var isRelationship: Bool { get }
    /// Whether the property is kept in memory only.
    var isTransient: Bool { get }
    /// The modifier of the property's version hash.
    var hashModifier: String? { get }
}
