/// Migrates a store from one model to another by objects: the source store's objects
/// are read into a source context, a mapping model's entity mappings create their
/// counterparts in a destination context (through `NSEntityMigrationPolicy` steps a
/// subclass can take over), and the destination is saved as a new store.
///
/// This is Core Data's heavyweight migration, for changes lightweight migration cannot
/// infer (splitting an attribute, merging entities, computed values). It loads every
/// object, so it needs memory in proportion to the store; lightweight migrations at
/// open run in SQL instead. The source store is never written: a migration that fails
/// or is cancelled leaves it as it was and removes the destination it created.
open class NSMigrationManager: NSObject, ExpressionFunctionTarget, @unchecked Sendable {
    /// The model of the stores migrated from.
    open private(set) var sourceModel: NSManagedObjectModel
    /// The model of the stores migrated to.
    open private(set) var destinationModel: NSManagedObjectModel
    /// The mapping of the migration under way (or last run).
    open private(set) var mappingModel: NSMappingModel!
    /// The context holding the source store's objects during a migration.
    open private(set) var sourceContext: NSManagedObjectContext!
    /// The context the destination objects are created in during a migration.
    open private(set) var destinationContext: NSManagedObjectContext!
    /// The entity mapping being run.
    open private(set) var currentEntityMapping: NSEntityMapping!
    /// How much of the migration is done, from 0 to 1.
    open private(set) var migrationProgress: Float = 0
    /// The same progress as a `Progress` (an OpenCoreData addition), for progress
    /// bars and cancellation by its `cancel()`.
    public let progress = Progress(totalUnitCount: 1)
    /// Anything the app keeps with the migration.
    open var userInfo: [AnyHashable: Any]?
    /// Kept for API compatibility: OpenCoreData's SQLite store has no faster
    /// store-specific path for migrations by mapping model.
    open var usesStoreSpecificMigrationManager = true

    private var policies: [String: NSEntityMigrationPolicy] = [:]
    private var destinationsBySource: [String: [ObjectIdentifier: [NSManagedObject]]] = [:]
    private var sourcesByDestination: [String: [ObjectIdentifier: [NSManagedObject]]] = [:]
    private var destinationsInOrder: [String: [NSManagedObject]] = [:]
    /// Destinations of every mapping, by source object (for relationship expressions).
    private var allDestinationsBySource: [ObjectIdentifier: [NSManagedObject]] = [:]
    private var cancellation: Error?

    /// Creates a manager for migrations between two models.
    ///
    /// - Parameters:
    ///   - sourceModel: The model of the stores to migrate from.
    ///   - destinationModel: The model of the stores to migrate to.
    public init(sourceModel: NSManagedObjectModel, destinationModel: NSManagedObjectModel) {
        self.sourceModel = sourceModel
        self.destinationModel = destinationModel
        super.init()
    }

    // MARK: Migrating

    /// Migrates the store at `sourceURL` (made with ``sourceModel``) into a store at
    /// `dURL` (made with ``destinationModel``, created when missing) by the entity
    /// mappings of `mappings`; `nil` infers them, as lightweight migration does.
    ///
    /// Throws the first error of any step, carrying the entity mapping's name under
    /// `NSMigrationEntityMappingKey`; then the source store is as it was and a
    /// destination file this call created is removed.
    ///
    /// Before anything is created, an SQLite source's rows are counted: rows of a source
    /// entity no entity mapping names (an inferred mapping's removals count as none), or
    /// of no entity of ``sourceModel``, stop the migration with `NSMigrationError` naming
    /// them, unless `sOptions` holds ``OpenCoreDataMigrationAllowsDataLossOption`` (Core
    /// Data drops them silently; see docs/DEVIATIONS.md).
    ///
    /// - Parameters:
    ///   - sourceURL: The store to read; it is never written.
    ///   - sStoreType: The source store's type.
    ///   - sOptions: Options for opening the source store (always opened read-only).
    ///   - mappings: The mapping model, or `nil` to infer one.
    ///   - dURL: The store to create or fill.
    ///   - dStoreType: The destination store's type.
    ///   - dOptions: Options for opening the destination store.
    /// - Throws: An `NSError` from the step that failed, or the error given to
    ///   ``cancelMigrationWithError(_:)``.
    open func migrateStore(
        from sourceURL: URL, sourceType sStoreType: String, options sOptions: [AnyHashable: Any]? = nil,
        with mappings: NSMappingModel?,
        toDestinationURL dURL: URL, destinationType dStoreType: String,
        destinationOptions dOptions: [AnyHashable: Any]? = nil
    ) throws {
        reset()
        let mapping =
            try mappings
            ?? NSMappingModel.inferredMappingModel(forSourceModel: sourceModel, destinationModel: destinationModel)
        mappingModel = mapping
        let createsDestination = dStoreType != NSInMemoryStoreType && !FileManager.default.fileExists(atPath: dURL.path)
        let source = NSPersistentStoreCoordinator(managedObjectModel: sourceModel)
        let destination = NSPersistentStoreCoordinator(managedObjectModel: destinationModel)
        do {
            // Read-only: opening for writing would switch the file to WAL, changing its
            // bytes even when the migration then fails.
            var readOptions = sOptions ?? [:]
            readOptions[NSReadOnlyPersistentStoreOption] = true
            do {
                try source.addPersistentStore(
                    ofType: sStoreType, configurationName: nil, at: sourceURL, options: readOptions)
            } catch {
                throw CoreDataError.make(
                    NSMigrationManagerSourceStoreError,
                    "Can't open the source store at \(sourceURL.path) with the source model: \((error as NSError).localizedDescription)",
                    [NSUnderlyingErrorKey: error as NSError, NSFilePathErrorKey: sourceURL.path])
            }
            if sStoreType == NSSQLiteStoreType, !StoreLocation.isDevNull(sourceURL),
                !MigrationDataLoss.isAllowed(by: sOptions)
            {
                let counts = try StoreEngines.sqlite().rowCounts(inStoreAt: sourceURL, entities: sourceModel.entities)
                try MigrationDataLoss.check(
                    counts, keeps: { MigrationDataLoss.accountsFor($0, in: mapping) }, store: sourceURL.path,
                    inferred: mapping.isInferred)
            }
            do {
                try destination.addPersistentStore(
                    ofType: dStoreType, configurationName: nil, at: dURL, options: dOptions)
            } catch {
                throw CoreDataError.make(
                    NSMigrationManagerDestinationStoreError,
                    "Can't open the destination store at \(dURL.path) with the destination model: \((error as NSError).localizedDescription)",
                    [NSUnderlyingErrorKey: error as NSError, NSFilePathErrorKey: dURL.path])
            }
            let sourceContext = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            sourceContext.persistentStoreCoordinator = source
            let destinationContext = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            destinationContext.persistentStoreCoordinator = destination
            self.sourceContext = sourceContext
            self.destinationContext = destinationContext
            try sourceContext.performAndWait {
                try destinationContext.performAndWait { try run(mapping) }
            }
            close(source, destination)
        } catch {
            close(source, destination)
            if createsDestination { try? StoreEngines.sqlite().destroyStoreFiles(at: dURL) }
            throw error
        }
    }

    /// Swift spelling of ``migrateStore(from:sourceType:options:with:toDestinationURL:destinationType:destinationOptions:)``.
    ///
    /// - Parameters:
    ///   - sourceURL: The store to read; it is never written.
    ///   - sourceType: The source store's type.
    ///   - sourceOptions: Options for opening the source store.
    ///   - mapping: The mapping model.
    ///   - destinationURL: The store to create or fill.
    ///   - destinationType: The destination store's type.
    ///   - destinationOptions: Options for opening the destination store.
    /// - Throws: An `NSError` from the step that failed.
    public func migrateStore(
        from sourceURL: URL, type sourceType: NSPersistentStore.StoreType,
        options sourceOptions: [AnyHashable: Any]? = nil, mapping: NSMappingModel,
        to destinationURL: URL, type destinationType: NSPersistentStore.StoreType,
        options destinationOptions: [AnyHashable: Any]? = nil
    ) throws {
        try migrateStore(
            from: sourceURL, sourceType: sourceType.rawValue, options: sourceOptions, with: mapping,
            toDestinationURL: destinationURL, destinationType: destinationType.rawValue,
            destinationOptions: destinationOptions)
    }

    /// Stops the migration under way; it fails with `error` at its next step.
    ///
    /// - Parameter error: What the migration throws.
    open func cancelMigrationWithError(_ error: Error) {
        cancellation = error
    }

    /// Forgets the last migration's contexts, associations and progress.
    open func reset() {
        mappingModel = nil
        sourceContext = nil
        destinationContext = nil
        currentEntityMapping = nil
        migrationProgress = 0
        progress.completedUnitCount = 0
        policies = [:]
        destinationsBySource = [:]
        sourcesByDestination = [:]
        destinationsInOrder = [:]
        allDestinationsBySource = [:]
        cancellation = nil
    }

    private func close(_ coordinators: NSPersistentStoreCoordinator...) {
        for coordinator in coordinators {
            for store in coordinator.persistentStores { try? coordinator.remove(store) }
        }
    }

    // MARK: The three passes

    /// The mappings that move objects (add and remove mappings have none to move).
    private func objectMappings(_ mapping: NSMappingModel) -> [NSEntityMapping] {
        (mapping.entityMappings ?? []).filter {
            $0.mappingType != .addEntityMappingType && $0.mappingType != .removeEntityMappingType
        }
    }

    private func run(_ mapping: NSMappingModel) throws {
        let mappings = objectMappings(mapping)
        let steps = Float(max(1, mappings.count * 3))
        progress.totalUnitCount = Int64(steps)
        var done: Float = 0
        func advance(_ fraction: Float) {
            migrationProgress = min(1, (done + fraction) / steps)
            progress.completedUnitCount = Int64(done + fraction)
        }
        for entityMapping in mappings {
            try step(entityMapping) { policy in
                try policy.begin(entityMapping, with: self)
                let sources = try sourceInstances(for: entityMapping, policy: policy)
                try checkCancellation()
                for (index, source) in sources.enumerated() {
                    try checkCancellation()
                    try policy.createDestinationInstances(forSource: source, in: entityMapping, manager: self)
                    advance(Float(index + 1) / Float(max(1, sources.count)))
                }
                try policy.endInstanceCreation(forMapping: entityMapping, manager: self)
            }
            done += 1
            advance(0)
        }
        for entityMapping in mappings {
            try step(entityMapping) { policy in
                for destination in destinationsInOrder[entityMapping.name ?? ""] ?? [] {
                    try checkCancellation()
                    try policy.createRelationships(forDestination: destination, in: entityMapping, manager: self)
                }
                try policy.endRelationshipCreation(forMapping: entityMapping, manager: self)
            }
            done += 1
            advance(0)
        }
        for entityMapping in mappings {
            try step(entityMapping) { try $0.performCustomValidation(forMapping: entityMapping, manager: self) }
        }
        try saveDestination()
        for entityMapping in mappings {
            try step(entityMapping) { try $0.end(entityMapping, manager: self) }
            done += 1
            advance(0)
        }
        migrationProgress = 1
        progress.completedUnitCount = progress.totalUnitCount
    }

    /// Runs one pass of one mapping with its policy; an error comes out naming the mapping.
    private func step(_ mapping: NSEntityMapping, _ body: (NSEntityMigrationPolicy) throws -> Void) throws {
        currentEntityMapping = mapping
        do {
            try body(try policy(for: mapping))
        } catch let error as NSError where error.userInfo[NSMigrationEntityMappingKey] == nil {
            var info = error.userInfo
            info[NSMigrationEntityMappingKey] = mapping.name
            info[NSLocalizedDescriptionKey] = "Entity mapping '\(mapping.name ?? "?")': \(error.localizedDescription)"
            if info[NSUnderlyingErrorKey] == nil { info[NSUnderlyingErrorKey] = error }
            throw NSError(domain: error.domain, code: error.code, userInfo: info)
        }
    }

    private func checkCancellation() throws {
        if progress.isCancelled, cancellation == nil {
            cancellation = CoreDataError.make(NSMigrationCancelledError, "The migration was cancelled")
        }
        if let cancellation { throw cancellation }
    }

    /// Saves the destination; a validation failure names the mapping that made the object.
    private func saveDestination() throws {
        do {
            try destinationContext.save()
        } catch let error as NSError {
            let details = error.userInfo[NSDetailedErrorsKey] as? [NSError] ?? []
            let object = ([error] + details).lazy.compactMap {
                $0.userInfo[NSValidationObjectErrorKey] as? NSManagedObject
            }.first
            let mapping = object.flatMap { object in
                sourcesByDestination.first { $0.value[ObjectIdentifier(object)] != nil }?.key
            }
            var info = error.userInfo
            info[NSMigrationEntityMappingKey] = mapping
            info[NSLocalizedDescriptionKey] =
                "The migrated objects are not valid\(mapping.map { " (entity mapping '\($0)')" } ?? ""): \(error.localizedDescription)"
            info[NSUnderlyingErrorKey] = error
            throw NSError(domain: error.domain, code: error.code, userInfo: info)
        }
    }

    private func policy(for mapping: NSEntityMapping) throws -> NSEntityMigrationPolicy {
        let name = mapping.name ?? ""
        if let policy = policies[name] { return policy }
        var policy = NSEntityMigrationPolicy()
        if let className = mapping.entityMigrationPolicyClassName, !className.isEmpty,
            className != "NSEntityMigrationPolicy"
        {
            guard let type = NSClassFromString(className) as? NSEntityMigrationPolicy.Type else {
                throw CoreDataError.make(
                    NSEntityMigrationPolicyError,
                    "No NSEntityMigrationPolicy subclass named '\(className)' (entity mapping '\(name)')")
            }
            policy = type.init()
        }
        policies[name] = policy
        return policy
    }

    // MARK: Default steps

    /// The source objects a mapping migrates: its source expression's result (a fetch
    /// request, run in the source context, or a collection), else every object of its
    /// source entity (not of subentities, which have mappings of their own).
    private func sourceInstances(
        for mapping: NSEntityMapping, policy: NSEntityMigrationPolicy
    ) throws -> [NSManagedObject] {
        if let expression = mapping.sourceExpression {
            // Xcode's FETCH(request, $manager.sourceContext, NO) runs here, so a failing
            // fetch stops the migration instead of selecting nothing.
            let fetch: NSExpression? = if case .fetch(let request, _, false) = expression.node { request } else { nil }
            let value = evaluate(
                fetch ?? expression, source: nil, destination: nil, mapping: mapping, property: nil, policy: policy)
            try checkCancellation()
            if let request = value as? any ErasedFetchRequest {
                return try request.results(in: sourceContext).compactMap { $0 as? NSManagedObject }
            }
            guard fetch == nil else {
                throw CoreDataError.make(
                    NSMigrationError,
                    "The source expression of the entity mapping '\(mapping.name ?? "")' does not evaluate to a fetch request",
                    [NSMigrationEntityMappingKey: mapping])
            }
            return (CollectionValue.members(of: value) ?? []).compactMap { $0 as? NSManagedObject }
        }
        guard let name = mapping.sourceEntityName else { return [] }
        return try sourceContext.fetch(fetchRequest(forSourceEntityNamed: name, predicate: nil))
    }

    private func fetchRequest(
        forSourceEntityNamed name: String, predicate: NSPredicate?
    ) -> NSFetchRequest<NSManagedObject> {
        let request = NSFetchRequest<NSManagedObject>(entityName: name)
        request.predicate = predicate
        request.includesSubentities = false
        return request
    }

    /// `createDestinationInstances(forSource:in:manager:)`'s default.
    func createDefaultDestinationInstance(
        forSource source: NSManagedObject, in mapping: NSEntityMapping, policy: NSEntityMigrationPolicy
    ) throws {
        guard let entity = destinationEntity(for: mapping) else {
            throw CoreDataError.make(
                NSMigrationError, "The destination model has no entity named '\(mapping.destinationEntityName ?? "")'")
        }
        let destination = NSManagedObject(entity: entity, insertInto: destinationContext)
        for property in mapping.attributeMappings ?? [] {
            guard let name = property.name, let expression = property.valueExpression,
                entity.attributesByName[name] != nil
            else { continue }
            destination.setValue(
                evaluate(
                    expression, source: source, destination: destination, mapping: mapping, property: property,
                    policy: policy), forKey: name)
        }
        associate(sourceInstance: source, withDestinationInstance: destination, for: mapping)
    }

    /// `createRelationships(forDestination:in:manager:)`'s default.
    func createDefaultRelationships(
        forDestination destination: NSManagedObject, in mapping: NSEntityMapping, policy: NSEntityMigrationPolicy
    ) throws {
        let source = sourcesByDestination[mapping.name ?? ""]?[ObjectIdentifier(destination)]?.first
        for property in mapping.relationshipMappings ?? [] {
            guard let name = property.name, let expression = property.valueExpression,
                let relationship = destination.entity.relationshipsByName[name]
            else { continue }
            let value = evaluate(
                expression, source: source, destination: destination, mapping: mapping, property: property,
                policy: policy)
            let objects = (CollectionValue.members(of: value) ?? [value]).compactMap { $0 as? NSManagedObject }
            if !relationship.isToMany {
                destination.setValue(objects.first, forKey: name)
            } else if relationship.isOrdered {
                destination.setValue(NSOrderedSet(array: objects), forKey: name)
            } else {
                destination.setValue(Set(objects), forKey: name)
            }
        }
    }

    private func evaluate(
        _ expression: NSExpression, source: NSManagedObject?, destination: NSManagedObject?, mapping: NSEntityMapping,
        property: NSPropertyMapping?, policy: NSEntityMigrationPolicy
    ) -> Any? {
        var bindings: [String: Any] = [
            NSMigrationManagerKey: self, NSMigrationEntityMappingKey: mapping, NSMigrationEntityPolicyKey: policy,
        ]
        if let source { bindings[NSMigrationSourceObjectKey] = source }
        if let destination { bindings[NSMigrationDestinationObjectKey] = destination }
        if let property { bindings[NSMigrationPropertyMappingKey] = property }
        return ExpressionEvaluator.value(of: expression, object: source, bindings: bindings)
    }

    // MARK: Associations

    /// The source model's entity a mapping reads.
    ///
    /// - Parameter mEntity: An entity mapping of the mapping model.
    /// - Returns: The entity, or `nil` when the mapping names none.
    open func sourceEntity(for mEntity: NSEntityMapping) -> NSEntityDescription? {
        mEntity.sourceEntityName.flatMap { sourceModel.entitiesByName[$0] }
    }

    /// The destination model's entity a mapping creates.
    ///
    /// - Parameter mEntity: An entity mapping of the mapping model.
    /// - Returns: The entity, or `nil` when the mapping names none.
    open func destinationEntity(for mEntity: NSEntityMapping) -> NSEntityDescription? {
        mEntity.destinationEntityName.flatMap { destinationModel.entitiesByName[$0] }
    }

    /// Records that `destinationInstance` was made from `sourceInstance` by `entityMapping`,
    /// so relationship expressions and later steps can find one from the other.
    ///
    /// - Parameters:
    ///   - sourceInstance: An object of the source context.
    ///   - destinationInstance: The object of the destination context made from it.
    ///   - entityMapping: The mapping that made it.
    open func associate(
        sourceInstance: NSManagedObject, withDestinationInstance destinationInstance: NSManagedObject,
        for entityMapping: NSEntityMapping
    ) {
        let name = entityMapping.name ?? ""
        destinationsBySource[name, default: [:]][ObjectIdentifier(sourceInstance), default: []].append(
            destinationInstance)
        sourcesByDestination[name, default: [:]][ObjectIdentifier(destinationInstance), default: []].append(
            sourceInstance)
        destinationsInOrder[name, default: []].append(destinationInstance)
        allDestinationsBySource[ObjectIdentifier(sourceInstance), default: []].append(destinationInstance)
    }

    /// The destination objects the mapping named `mappingName` made from `sourceInstances`
    /// (all of its destination objects when `sourceInstances` is `nil`).
    ///
    /// - Parameters:
    ///   - mappingName: The entity mapping's name.
    ///   - sourceInstances: Source objects, or `nil` for all.
    /// - Returns: The destination objects, in the order they were made.
    open func destinationInstances(
        forEntityMappingName mappingName: String, sourceInstances: [NSManagedObject]?
    ) -> [NSManagedObject] {
        guard let sourceInstances else { return destinationsInOrder[mappingName] ?? [] }
        let made = destinationsBySource[mappingName] ?? [:]
        return sourceInstances.flatMap { made[ObjectIdentifier($0)] ?? [] }
    }

    /// The source objects the mapping named `mappingName` made `destinationInstances` from
    /// (all of its source objects when `destinationInstances` is `nil`).
    ///
    /// - Parameters:
    ///   - mappingName: The entity mapping's name.
    ///   - destinationInstances: Destination objects, or `nil` for all.
    /// - Returns: The source objects.
    open func sourceInstances(
        forEntityMappingName mappingName: String, destinationInstances: [NSManagedObject]?
    ) -> [NSManagedObject] {
        let made = sourcesByDestination[mappingName] ?? [:]
        let destinations = destinationInstances ?? destinationsInOrder[mappingName] ?? []
        return destinations.flatMap { made[ObjectIdentifier($0)] ?? [] }
    }

    // MARK: Functions of mapping expressions

    /// Answers the functions Xcode's mapping models call on `$manager`:
    /// `destinationInstancesForEntityMappingNamed:sourceInstances:`,
    /// `destinationInstancesForSourceRelationshipNamed:sourceInstances:`,
    /// `sourceInstancesForEntityMappingNamed:destinationInstances:` and
    /// `fetchRequestForSourceEntityNamed:predicateString:`.
    ///
    /// - Parameters:
    ///   - selector: The function's Objective-C selector, such as
    ///     `"destinationInstancesForEntityMappingNamed:sourceInstances:"`.
    ///   - arguments: The evaluated arguments.
    /// - Returns: The function's value, or `nil` for a function it does not know.
    open func evaluateFunction(named selector: String, arguments: [Any?]) -> Any? {
        let name = arguments.first.flatMap { $0 as? String } ?? ""
        let objects = arguments.count > 1 ? Self.objects(arguments[1]) : []
        switch selector {
        case "destinationInstancesForEntityMappingNamed:sourceInstances:":
            return destinationInstances(forEntityMappingName: name, sourceInstances: objects)
        case "sourceInstancesForEntityMappingNamed:destinationInstances:":
            return sourceInstances(forEntityMappingName: name, destinationInstances: objects)
        case "destinationInstancesForSourceRelationshipNamed:sourceInstances:":
            // Each related source object's counterparts, whichever mapping made them, that
            // the destination relationship of that name can hold.
            let target = currentEntityMapping.flatMap(destinationEntity(for:))?.relationshipsByName[name]?
                .destinationEntity
            return objects.flatMap { allDestinationsBySource[ObjectIdentifier($0)] ?? [] }.filter {
                target.map($0.entity.isKindOf(entity:)) ?? true
            }
        case "fetchRequestForSourceEntityNamed:predicateString:":
            var predicate: NSPredicate?
            if arguments.count > 1, let format = arguments[1] as? String {
                do {
                    predicate = try NSPredicate.parse(format: format, argumentArray: [])
                } catch {
                    // A source expression that cannot select its objects must not select them all.
                    cancelMigrationWithError(
                        CoreDataError.make(
                            NSMigrationError,
                            "The source expression's predicate '\(format)' does not parse: \((error as NSError).localizedDescription)",
                            [NSUnderlyingErrorKey: error as NSError]))
                    return nil
                }
            }
            return fetchRequest(forSourceEntityNamed: name, predicate: predicate)
        default:
            return nil
        }
    }

    /// Managed objects in a function argument: one object, or a collection of them.
    private static func objects(_ value: Any?) -> [NSManagedObject] {
        if let object = value as? NSManagedObject { return [object] }
        return (CollectionValue.members(of: value) ?? []).compactMap { $0 as? NSManagedObject }
    }
}

/// Key paths on `$manager` in mapping expressions (`$manager.sourceContext` in Xcode's
/// source expressions) read the manager's properties by name.
extension NSMigrationManager: KeyValueCoding {
    /// The value of the manager's property named `key`; `nil` for other names.
    ///
    /// - Parameter key: A property name, such as `sourceContext`.
    /// - Returns: The property's value.
    public func value(forKey key: String) -> Any? {
        switch key {
        case "sourceContext": sourceContext
        case "destinationContext": destinationContext
        case "sourceModel": sourceModel
        case "destinationModel": destinationModel
        case "mappingModel": mappingModel
        case "currentEntityMapping": currentEntityMapping
        case "migrationProgress": migrationProgress
        case "userInfo": userInfo
        default: nil
        }
    }
}
