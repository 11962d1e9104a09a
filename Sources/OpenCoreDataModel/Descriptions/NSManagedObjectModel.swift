internal import Synchronization
/// A schema: the entities, their properties and the configurations that group them.
///
/// Build it in code, or load Xcode's `.xcdatamodeld` or `.xcdatamodel`, or a compiled
/// `.momd` or `.mom`, with `init(contentsOf:)` (`load(contentsOf:)` throws the reason). A coordinator
/// freezes the model it is given: editing a model in use traps, as Core Data raises.
open class NSManagedObjectModel: NSObject, @unchecked Sendable {
    /// All entities, subentities included.
    ///
    /// Setting it claims the entities for this model. Subentities must be listed too,
    /// as in Core Data.
    open var entities: [NSEntityDescription] {
        get { _entities }
        set {
            assertMutable()
            _entities = newValue
            for entity in newValue { entity.managedObjectModel = self }
        }
    }
    private var _entities: [NSEntityDescription] = []

    /// Entities by name.
    open var entitiesByName: [String: NSEntityDescription] {
        if let compiledEntitiesByName { return compiledEntitiesByName }
        var result: [String: NSEntityDescription] = [:]
        for entity in _entities { if let name = entity.name, result[name] == nil { result[name] = entity } }
        return result
    }
    private var compiledEntitiesByName: [String: NSEntityDescription]?

    /// Identifiers of this model version (free-form; recorded in store metadata).
    open var versionIdentifiers: Set<AnyHashable> = [] { willSet { assertMutable() } }
    /// The versioned model bundle this model was loaded from, if any (where migration
    /// finds the versions older stores were made with).
    package final var bundleURL: URL?
    /// Strings to show users in place of entity and property names.
    open var localizationDictionary: [String: String]?

    /// Named subsets of entities, for stores that hold only part of the model.
    open var configurations: [String] { configurationEntities.keys.sorted() }
    private var configurationEntities: [String: [NSEntityDescription]] = [:]

    /// The entities of a configuration; `nil` for an unknown name.
    ///
    /// - Parameter configuration: A configuration's name, or `nil` for every entity.
    /// - Returns: The configuration's entities.
    open func entities(forConfigurationName configuration: String?) -> [NSEntityDescription]? {
        guard let configuration, configuration != Self.defaultConfigurationName else { return entities }
        return configurationEntities[configuration]
    }

    /// Assigns entities to a named configuration.
    ///
    /// - Parameters:
    ///   - entities: Entities of this model.
    ///   - configuration: The configuration's name.
    open func setEntities(_ entities: [NSEntityDescription], forConfigurationName configuration: String) {
        assertMutable()
        configurationEntities[configuration] = entities
    }

    /// Fetch request templates by name (see `NSManagedObjectModel+FetchRequestTemplates.swift`).
    package final var fetchRequestTemplateStorage: [String: NSFetchRequest<NSFetchRequestResult>] = [:]

    /// The configuration that every model has and that holds all entities.
    package static let defaultConfigurationName = "PF_DEFAULT_CONFIGURATION_NAME"

    /// Creates an empty model.
    public override init() { super.init() }

    /// Creates a model holding the entities, configurations, fetch request templates and
    /// version identifiers of all `models`; `nil` when two define the same entity name or
    /// template name.
    ///
    /// The entities themselves move to the new model (see docs/DEVIATIONS.md), so a model
    /// a coordinator already uses cannot be merged: the result is then `nil`. Merge models
    /// that are not in use yet, such as models just loaded from files.
    ///
    /// - Parameter models: The models to merge; their entities move to the new model.
    public convenience init?(byMerging models: [NSManagedObjectModel]?) {
        self.init()
        if (models ?? []).contains(where: \.isFrozen) { return nil }
        var seen = Set<String>()
        var merged: [NSEntityDescription] = []
        var configurations: [String: [NSEntityDescription]] = [:]
        var templates: [String: NSFetchRequest<NSFetchRequestResult>] = [:]
        for model in models ?? [] {
            for entity in model.entities {
                guard let name = entity.name, seen.insert(name).inserted else { return nil }
                merged.append(entity)
            }
            for name in model.configurations {
                configurations[name, default: []] += model.entities(forConfigurationName: name) ?? []
            }
            for (name, template) in model.fetchRequestTemplateStorage {
                guard templates.updateValue(template, forKey: name) == nil else { return nil }
            }
            versionIdentifiers.formUnion(model.versionIdentifiers)
        }
        entities = merged
        for (name, members) in configurations { setEntities(members, forConfigurationName: name) }
        for (name, template) in templates { setFetchRequestTemplate(template, forName: name) }
    }

    /// Version hashes of every entity, as stored in a store's metadata.
    open var entityVersionHashesByName: [String: Data] {
        let entities = self.entities
        let hashes = frozenVersionHashes() ?? VersionHasher.hashes(of: entities)
        var result: [String: Data] = [:]
        for entity in entities { if let name = entity.name { result[name] = hashes[ObjectIdentifier(entity)] } }
        return result
    }

    /// Whether `object` is a model describing the same entities (compared by version
    /// hash) in the same configurations, as Core Data compares models: two models loaded
    /// separately from one file are equal.
    /// A digest of every entity's version hash (base64 of a SHA-256), as Core Data
    /// records it in a store's metadata under `NSStoreModelVersionChecksumKey`; staged
    /// migration names model versions by it.
    open var versionChecksum: String {
        VersionHasher.checksum(of: entityVersionHashesByName)
    }

    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? NSManagedObjectModel else { return false }
        if other === self { return true }
        return entityVersionHashesByName == other.entityVersionHashesByName
            && configurationContents == other.configurationContents
    }

    /// A hash consistent with ``isEqual(_:)``: equal models have the same entity names.
    open override var hash: Int {
        var hasher = Hasher()
        for name in entities.compactMap(\.name).sorted() { hasher.combine(name) }
        return hasher.finalize()
    }

    /// Each configuration's entity names, for comparing models.
    private var configurationContents: [String: Set<String>] {
        var result: [String: Set<String>] = [:]
        for name in configurations {
            result[name] = Set((entities(forConfigurationName: name) ?? []).compactMap(\.name))
        }
        return result
    }

    /// Whether a store whose metadata is `metadata` can be opened with this model's configuration.
    ///
    /// Compares each entity's version hash with `NSStoreModelVersionHashes` in the metadata.
    ///
    /// - Parameters:
    ///   - configuration: A configuration's name, or `nil` for every entity.
    ///   - metadata: A store's metadata, as `NSPersistentStoreCoordinator.metadataForPersistentStore(ofType:at:options:)` reads it.
    /// - Returns: `true` when every entity hashes as the store recorded.
    open func isConfiguration(
        withName configuration: String?, compatibleWithStoreMetadata metadata: [String: Any]
    ) -> Bool {
        guard let stored = metadata[NSStoreModelVersionHashesKey] as? [String: Any] else { return false }
        let entities = entities(forConfigurationName: configuration) ?? []
        guard stored.count == entities.count else { return false }
        for entity in entities {
            guard let name = entity.name, let hash = stored[name] as? Data, hash == entity.versionHash else {
                return false
            }
        }
        return true
    }

    // MARK: Freezing and validation

    /// Whether a coordinator uses the model (editing it then traps).
    package final private(set) var isFrozen = false
    /// Problems found when the model was frozen; a store cannot be added while any exist.
    package final private(set) var validationProblems: [String] = []
    private let freezeLock = NSLock()
    /// The entity each `NSManagedObject` subclass stands for, found once per class
    /// (finding it compares class names, too slow for every `init(context:)`).
    private let entityByClass = Mutex<[ObjectIdentifier: NSEntityDescription]>([:])

    /// A frozen model's version hashes, computed together on first use: a store checks
    /// each entity's hash, and one entity's costs as much as its whole inheritance chain's.
    private let versionHashCache = Mutex<[ObjectIdentifier: Data]?>(nil)

    /// Every entity's version hash once the model is frozen (it can no longer change); `nil` before.
    package final func frozenVersionHashes() -> [ObjectIdentifier: Data]? {
        guard isFrozen else { return nil }
        return versionHashCache.withLock { cache in
            if let cache { return cache }
            let hashes = VersionHasher.hashes(of: _entities)
            cache = hashes
            return hashes
        }
    }

    package final func cachedEntity(for objectClass: AnyClass) -> NSEntityDescription? {
        entityByClass.withLock { $0[ObjectIdentifier(objectClass)] }
    }

    package final func cacheEntity(_ entity: NSEntityDescription, for objectClass: AnyClass) {
        entityByClass.withLock { $0[ObjectIdentifier(objectClass)] = entity }
    }

    /// Freezes the model: entities by name, each property's slot and each entity's
    /// ``EntityStructure``. Idempotent; under one lock, so concurrent first uses freeze once.
    ///
    /// The core, which knows objects, passes what it adds: `validating` runs first and its
    /// problems are kept (a store cannot be added while any exist); `completing` makes
    /// each entity's object facts once every entity's structure is known.
    package final func freeze(
        validating: (NSManagedObjectModel) -> [String],
        completing: (NSEntityDescription, EntityStructure) -> AnyObject
    ) {
        freezeLock.lock()
        defer { freezeLock.unlock() }
        guard !isFrozen else { return }
        validationProblems = validating(self)
        compile()
        for entity in _entities {
            if let structure = entity.frozenStructure { entity.objectFacts = completing(entity, structure) }
        }
        isFrozen = true
    }

    private func compile() {
        var byName: [String: NSEntityDescription] = [:]
        for entity in _entities { if let name = entity.name, byName[name] == nil { byName[name] = entity } }
        compiledEntitiesByName = byName
        let numbers = EntityNumbering.numbers(for: _entities)
        for entity in _entities {
            var root = entity
            var chain: [NSEntityDescription] = [entity]
            // A set, not a search of `chain`: that made a deep inheritance chain cubic.
            var onChain: Set<ObjectIdentifier> = [ObjectIdentifier(entity)]
            while let parent = root.superentity, onChain.insert(ObjectIdentifier(parent)).inserted {
                root = parent
                chain.append(parent)
            }
            var slots: [NSPropertyDescription] = []
            var names = Set<String>()
            for ancestor in chain.reversed() {
                for property in ancestor.ownProperties where names.insert(property.name).inserted {
                    slots.append(property)
                }
            }
            for (index, property) in slots.enumerated() where property.entity === entity || property.slot < 0 {
                property.slot = index
            }
            entity.frozenStructure = EntityStructure(
                slots: slots,
                entityNumber: numbers[ObjectIdentifier(entity)] ?? 0,
                root: root,
                selfAndDescendants: Self.descendants(of: entity)
            )
        }
    }

    private static func descendants(of entity: NSEntityDescription) -> [NSEntityDescription] {
        var result: [NSEntityDescription] = []
        var pending = [entity]
        while let next = pending.popLast() {
            guard !result.contains(where: { $0 === next }) else { continue }
            result.append(next)
            pending.append(contentsOf: next.subentities)
        }
        return result
    }

    package final func assertMutable() {
        if isFrozen { preconditionFailure("Can't modify an immutable model: it is in use by a coordinator") }
    }

    open override var description: String {
        "(\(type(of: self))) entities \(entities.compactMap(\.name))"
    }
}
