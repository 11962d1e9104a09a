import OpenCoreData

/// Where models are inserted, fetched, changed, deleted and saved.
///
/// A context drives a Core Data context over its container's stores. It is not `Sendable`:
/// use it where it was made (the main actor for ``ModelContainer/mainContext``, or the actor
/// of a ``ModelActor``), and pass ``PersistentIdentifier``s between contexts.
public final class ModelContext: Equatable, Hashable {
    /// The container whose stores the context reads and writes.
    public let container: ModelContainer
    /// The Core Data context underneath.
    let objectContext: SwiftDataObjectContext
    private var autosaveObserver: (any NSObjectProtocol)?
    private var autosaveScheduled = false

    /// A context over `container`'s stores, for use on the current actor or thread.
    public convenience init(_ container: ModelContainer) {
        self.init(container, concurrencyType: .privateQueueConcurrencyType)
    }

    init(_ container: ModelContainer, concurrencyType: NSManagedObjectContext.ConcurrencyType) {
        self.container = container
        objectContext = SwiftDataObjectContext(concurrencyType: concurrencyType, container: container)
        objectContext.persistentStoreCoordinator = container.persistentContainer.persistentStoreCoordinator
        objectContext.modelContext = self
        // A unique attribute makes a save of a second model with its value update the first
        // (an "upsert"), as in SwiftData: the saved object's properties win.
        objectContext.mergePolicy = NSMergePolicy.mergeByPropertyObjectTrump
    }

    deinit {
        if let autosaveObserver { NotificationCenter.default.removeObserver(autosaveObserver) }
    }

    public static func == (lhs: ModelContext, rhs: ModelContext) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }

    // MARK: Inserting and deleting

    /// Inserts `model` (and every model its relationships reach that is in no context) into
    /// the context; the next save stores it.
    public func insert<T: PersistentModel>(_ model: T) {
        insert(model as any PersistentModel)
    }

    func insert(_ model: any PersistentModel) {
        let storage = model.storage
        if let object = storage.managedObject {
            guard object.managedObjectContext === objectContext else {
                preconditionFailure(
                    "\(type(of: model)) is already in another ModelContext; a model belongs to one context (pass its persistentModelID instead)"
                )
            }
            return
        }
        storage.insert(model, into: self)
    }

    /// The Core Data object of a new model of `type`.
    func makeObject(for type: any PersistentModel.Type) -> SwiftDataManagedObject {
        SwiftDataManagedObject(entity: container.entity(for: type), insertInto: objectContext)
    }

    /// Marks `model` deleted; the next save removes it from the store. Its relationships'
    /// delete rules run as in Core Data.
    public func delete<T: PersistentModel>(_ model: T) {
        guard let object = model.storage.managedObject, object.managedObjectContext === objectContext else { return }
        objectContext.delete(object)
    }

    /// Deletes every model of `model` (and of its subclasses) matching `predicate`, in SQL,
    /// without loading them; models of the context that match are deleted too.
    ///
    /// - Throws: ``SwiftDataError/unsupportedPredicate`` for a predicate SQL cannot express, or
    ///   the store's error.
    public func delete<T: PersistentModel>(
        model: T.Type, where predicate: Predicate<T>? = nil, includeSubclasses: Bool = true
    ) throws {
        let translated = try predicate.map { try Self.translator.predicate($0) }
        let request = NSFetchRequest<NSFetchRequestResult>(entityName: Schema.entityName(for: model))
        request.predicate = translated
        request.includesSubentities = includeSubclasses
        // Unsaved models are not in the store: delete the matching ones here.
        for object in objectContext.insertedObjects where object.entity.name == request.entityName {
            if translated?.evaluate(with: object) ?? true { objectContext.delete(object) }
        }
        // Saved models the context holds that the delete may take: only these need the merge
        // that marks them deleted (the coordinator forgets the deleted rows itself), so the
        // delete need not return one object ID per row.
        let entity = container.entity(for: model)
        let held = objectContext.registeredObjects.compactMap { object -> NSManagedObjectID? in
            guard !object.objectID.isTemporaryID, !object.isDeleted,
                includeSubclasses ? object.entity.isKindOf(entity: entity) : object.entity === entity
            else { return nil }
            return object.objectID
        }
        let batch = NSBatchDeleteRequest(fetchRequest: request)
        batch.resultType = .resultTypeCount
        _ = try objectContext.execute(batch)
        guard !held.isEmpty else { return }
        // Which of them the store still has, asked of the store alone (a changed model would
        // match in memory), a bounded list at a time.
        var kept = Set<NSManagedObjectID>()
        for start in stride(from: 0, to: held.count, by: 1000) {
            let survivors = NSFetchRequest<NSFetchRequestResult>(entityName: entity.name ?? "")
            survivors.includesSubentities = includeSubclasses
            survivors.includesPendingChanges = false
            survivors.resultType = .managedObjectIDResultType
            survivors.predicate = NSPredicate(format: "SELF IN %@", Array(held[start..<min(start + 1000, held.count)]))
            kept.formUnion(try objectContext.fetch(survivors).compactMap { $0 as? NSManagedObjectID })
        }
        let gone = held.filter { !kept.contains($0) }
        if !gone.isEmpty {
            NSManagedObjectContext.mergeChanges(
                fromRemoteContextSave: [NSDeletedObjectsKey: gone], into: [objectContext])
        }
    }

    /// Deletes every model of `type` in the store.
    func deleteAll(_ type: any PersistentModel.Type) throws {
        try delete(model: type)
    }

    // MARK: Changes

    /// Whether the context has inserted, changed or deleted models it has not saved.
    public var hasChanges: Bool { objectContext.hasChanges }

    /// The models inserted since the last save.
    public var insertedModelsArray: [any PersistentModel] { models(of: objectContext.insertedObjects) }
    /// The saved models changed since the last save.
    public var changedModelsArray: [any PersistentModel] { models(of: objectContext.updatedObjects) }
    /// The saved models deleted since the last save.
    public var deletedModelsArray: [any PersistentModel] { models(of: objectContext.deletedObjects) }

    private func models(of objects: Set<NSManagedObject>) -> [any PersistentModel] {
        objects.compactMap { ($0 as? SwiftDataManagedObject)?.resolvedModel() }
    }

    /// Runs delete rules and announces changes now rather than at the end of the event.
    public func processPendingChanges() { objectContext.processPendingChanges() }

    /// The undo manager recording the context's changes (none unless set).
    public var undoManager: UndoManager? {
        get { objectContext.undoManager }
        set { objectContext.undoManager = newValue }
    }

    // MARK: Saving

    /// Writes the context's changes to the stores.
    ///
    /// Posts ``willSave`` before and ``didSave`` after, with the identifiers of the inserted,
    /// updated and deleted models.
    ///
    /// - Throws: ``SwiftDataError/modelValidationFailure`` when a model fails validation or
    ///   a conflict is left unresolved, its sentence naming the model type, the property and
    ///   the value (Core Data's error under `NSUnderlyingErrorKey`); the store's error otherwise.
    public func save() throws {
        guard objectContext.hasChanges else { return }
        NotificationCenter.default.post(name: Self.willSave, object: self)
        objectContext.processPendingChanges()
        let (inserted, updated, deleted) = objectContext.unsavedChanges
        let deletedIDs = deleted.map { PersistentIdentifier($0.objectID) }
        do {
            try objectContext.save()
        } catch {
            // Core Data's error names NSManagedObject and userInfo keys; say it in models.
            throw SwiftDataError.saveError(error) ?? error
        }
        NotificationCenter.default.post(
            name: Self.didSave, object: self,
            userInfo: [
                NotificationKey.insertedIdentifiers.rawValue: inserted.map { PersistentIdentifier($0.objectID) },
                NotificationKey.updatedIdentifiers.rawValue: updated.map { PersistentIdentifier($0.objectID) },
                NotificationKey.deletedIdentifiers.rawValue: deletedIDs,
            ])
    }

    /// Discards the changes made since the last save.
    public func rollback() { objectContext.rollback() }

    /// Runs `block`, then saves what it changed.
    ///
    /// - Throws: What `block` throws (nothing is saved then), or the save's error.
    public func transaction(block: () throws -> Void) throws {
        try block()
        try save()
    }

    /// Whether the context saves by itself shortly after each change (the main context's default).
    public var autosaveEnabled: Bool = false {
        didSet { observeChangesForAutosave(autosaveEnabled) }
    }

    private func observeChangesForAutosave(_ on: Bool) {
        if let autosaveObserver { NotificationCenter.default.removeObserver(autosaveObserver) }
        autosaveObserver = nil
        guard on else { return }
        // The notification comes on the context's queue, where the context is used.
        let reference = WeakContextReference(self)
        autosaveObserver = NotificationCenter.default.addObserver(
            forName: .NSManagedObjectContextObjectsDidChange, object: objectContext, queue: nil
        ) { _ in
            reference.context?.scheduleAutosave()
        }
    }

    /// One save after the current burst of changes, on the context's queue.
    private func scheduleAutosave() {
        guard !autosaveScheduled else { return }
        autosaveScheduled = true
        let reference = WeakContextReference(self)
        objectContext.perform {
            guard let self = reference.context else { return }
            self.autosaveScheduled = false
            guard self.autosaveEnabled, self.hasChanges else { return }
            do {
                try self.save()
            } catch {
                // SwiftData's autosave reports failures to the log; the changes stay pending.
                FileHandle.standardError.write(Data("OpenSwiftData: autosave failed: \(error)\n".utf8))
            }
        }
    }

    // MARK: Notifications

    /// Posted before a context saves; the object is the context.
    public static let willSave = Notification.Name("ModelContextWillSave")
    /// Posted after a context saved; the object is the context, the user info holds the
    /// identifiers of the saved changes under ``NotificationKey`` keys.
    public static let didSave = Notification.Name("ModelContextDidSave")

    /// The keys of ``didSave``'s user info.
    public enum NotificationKey: String, Sendable {
        /// The query generation the context read from.
        case queryGeneration
        /// Set when every identifier the context knew became invalid (the store was reset).
        case invalidatedAllIdentifiers
        /// The identifiers of the inserted models.
        case insertedIdentifiers
        /// The identifiers of the updated models.
        case updatedIdentifiers
        /// The identifiers of the deleted models.
        case deletedIdentifiers
    }

    // MARK: Looking up models

    /// The model with `persistentModelID`, from the context if registered, else a fault that
    /// loads from the store on first use.
    public func model(for persistentModelID: PersistentIdentifier) -> any PersistentModel {
        guard let objectID = persistentModelID.objectID(in: objectContext.persistentStoreCoordinator),
            let object = objectContext.object(with: objectID) as? SwiftDataManagedObject
        else {
            preconditionFailure("\(persistentModelID) names no model of this container's stores")
        }
        return object.resolvedModel()
    }

    /// The model with `persistentModelID` if the context already has it, else `nil`.
    public func registeredModel<T: PersistentModel>(for persistentModelID: PersistentIdentifier) -> T? {
        guard let objectID = persistentModelID.objectID(in: objectContext.persistentStoreCoordinator),
            let object = objectContext.registeredObject(for: objectID) as? SwiftDataManagedObject
        else { return nil }
        return object.resolvedModel(as: T.self)
    }

    /// The predicate and sort translation every fetch of the context uses.
    static var translator: PredicateTranslator {
        PredicateTranslator(keyName: ModelContext.keyName, constant: ModelContext.storedConstant)
    }

    /// The Core Data key of a key path of a model type (see ``ModelKeyPathNames``).
    static func keyName(_ keyPath: AnyKeyPath) -> String? {
        ModelKeyPathNames.name(of: keyPath)
    }

    /// What a predicate compares for a constant: a model's object ID, an identifier's.
    static func storedConstant(_ value: Any) throws -> Any? {
        switch value {
        case let model as any PersistentModel:
            guard let object = model.storage.managedObject else {
                throw SwiftDataError.unsupportedPredicate.explained(
                    "the predicate compares with a \(type(of: model)) that is in no context")
            }
            return object.objectID
        case let identifier as PersistentIdentifier:
            return identifier.objectID ?? identifier.uri
        default:
            return value
        }
    }
}

/// A weak reference to a context that closures run on the context's own queue may carry.
private final class WeakContextReference: @unchecked Sendable {
    weak var context: ModelContext?
    init(_ context: ModelContext) { self.context = context }
}
