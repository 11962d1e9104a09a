import OpenCoreData

/// The stores of a schema, and the contexts that read and write them.
///
/// Underneath is an `NSPersistentContainer` over the schema's Core Data model: each
/// ``ModelConfiguration`` is one store. As in SwiftData, stores keep persistent history,
/// and a store of an older schema is migrated when the container opens it (lightweight, or
/// by the stages of a ``SchemaMigrationPlan``).
public final class ModelContainer: @unchecked Sendable {
    /// The container's schema.
    public let schema: Schema
    /// The stores' configurations.
    public let configurations: Set<ModelConfiguration>
    /// The plan that migrated the stores, if one was given.
    public let migrationPlan: (any SchemaMigrationPlan.Type)?
    /// The Core Data container underneath.
    let persistentContainer: NSPersistentContainer
    /// The model types by entity name.
    let modelTypes: [String: any PersistentModel.Type]
    /// The Core Data entities by model type.
    private let entitiesByType: [ObjectIdentifier: NSEntityDescription]
    /// Per model type, its table and its properties' slots in its entity.
    let layouts: [ObjectIdentifier: ModelLayout]
    nonisolated(unsafe) private var mainContextStorage: ModelContext?

    /// A container of the schema of `forTypes` (and the types they reach), with `configurations`
    /// (the default store if none).
    public convenience init(for forTypes: any PersistentModel.Type..., configurations: ModelConfiguration...) throws {
        try self.init(for: Schema(forTypes), migrationPlan: nil, configurations: configurations)
    }

    /// A container of `givenSchema`, migrating its stores by `migrationPlan` if given.
    public convenience init(
        for givenSchema: Schema, migrationPlan: (any SchemaMigrationPlan.Type)? = nil,
        configurations: ModelConfiguration...
    ) throws {
        try self.init(for: givenSchema, migrationPlan: migrationPlan, configurations: configurations)
    }

    /// A container of `givenSchema`, migrating its stores by `migrationPlan` if given.
    ///
    /// - Throws: ``SwiftDataError/loadIssueModelContainer`` when the schema holds a type that
    ///   cannot be stored or a store cannot be opened or migrated (the message says which and
    ///   why); ``SwiftDataError/duplicateConfiguration`` for two configurations of one name.
    public init(
        for givenSchema: Schema, migrationPlan: (any SchemaMigrationPlan.Type)? = nil,
        configurations: [ModelConfiguration]
    ) throws {
        let configurations = configurations.isEmpty ? [ModelConfiguration()] : configurations
        guard Set(configurations.map(\.name)).count == configurations.count else {
            throw SwiftDataError.duplicateConfiguration.explained(
                "two configurations are named '\(configurations.map(\.name).first { name in configurations.filter { $0.name == name }.count > 1 } ?? "")'"
            )
        }
        schema = givenSchema
        self.configurations = Set(configurations)
        self.migrationPlan = migrationPlan
        let model = try givenSchema.makeManagedObjectModel()
        try Self.assignConfigurations(configurations, in: model, schema: givenSchema)
        var types: [String: any PersistentModel.Type] = [:]
        var entities: [ObjectIdentifier: NSEntityDescription] = [:]
        for (name, type) in givenSchema.modelTypes {
            types[name] = type
            entities[ObjectIdentifier(type)] = model.entitiesByName[name]
        }
        modelTypes = types
        entitiesByType = entities
        if let migrationPlan {
            try StagedMigration(plan: migrationPlan, target: givenSchema, configurations: configurations).run()
        }
        let persistentContainer = NSPersistentContainer(name: configurations[0].name, managedObjectModel: model)
        persistentContainer.persistentStoreDescriptions = configurations.map { configuration in
            let description = NSPersistentStoreDescription(url: configuration.url)
            description.type = NSSQLiteStoreType
            description.setOption(true as NSNumber, forKey: NSPersistentHistoryTrackingKey)
            description.isReadOnly = !configuration.allowsSave
            if configuration.schema != nil { description.configuration = configuration.name }
            return description
        }
        for configuration in configurations where !configuration.isStoredInMemoryOnly {
            try? FileManager.default.createDirectory(
                at: configuration.url.deletingLastPathComponent(), withIntermediateDirectories: true)
        }
        var failures: [String] = []
        persistentContainer.loadPersistentStores { description, error in
            if let error {
                failures.append("\(description.url?.path ?? "?"): \((error as NSError).localizedDescription)")
            }
        }
        guard failures.isEmpty else {
            throw SwiftDataError.loadIssueModelContainer.explained(
                "could not open the store: " + failures.joined(separator: "; "))
        }
        self.persistentContainer = persistentContainer
        // The entities' slots are known once a coordinator has loaded the model.
        layouts = entities.reduce(into: [:]) { layouts, pair in
            guard let type = types[pair.value.name ?? ""] else { return }
            let table = ModelTable.of(type)
            let slots = table.slots(in: pair.value)
            layouts[pair.key] = ModelLayout(table: table, slots: slots)
            table.noteLatest(pair.value, slots: slots)
        }
    }

    /// Puts each configuration's schema's entities in a Core Data configuration of its name.
    private static func assignConfigurations(
        _ configurations: [ModelConfiguration], in model: NSManagedObjectModel, schema: Schema
    ) throws {
        for configuration in configurations {
            guard let part = configuration.schema else { continue }
            let names = part.entities.map(\.name)
            guard names.allSatisfy({ model.entitiesByName[$0] != nil }) else {
                throw SwiftDataError.configurationSchemaNotFoundInContainerSchema.explained(
                    "configuration '\(configuration.name)' names entities the container's schema lacks")
            }
            model.setEntities(names.compactMap { model.entitiesByName[$0] }, forConfigurationName: configuration.name)
        }
    }

    /// The context of the main actor, made on first use; it saves by itself
    /// (``ModelContext/autosaveEnabled``) and merges other contexts' saves.
    @MainActor public var mainContext: ModelContext {
        if let context = mainContextStorage { return context }
        let context = ModelContext(self, concurrencyType: .mainQueueConcurrencyType)
        context.objectContext.automaticallyMergesChangesFromParent = true
        context.autosaveEnabled = true
        mainContextStorage = context
        return context
    }

    /// Deletes every model of every store, leaving the stores open and empty.
    public func deleteAllData() {
        let context = ModelContext(self)
        for (_, type) in schema.modelTypes {
            try? context.deleteAll(type)
        }
    }

    /// The Core Data entity of `type`.
    func entity(for type: any PersistentModel.Type) -> NSEntityDescription {
        guard let entity = entitiesByType[ObjectIdentifier(type)] else {
            preconditionFailure("\(type) is not part of this container's schema")
        }
        return entity
    }
}
