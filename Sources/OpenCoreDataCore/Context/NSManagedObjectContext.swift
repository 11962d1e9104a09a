internal import OrderedCollections
internal import Synchronization

/// The C name of ``NSManagedObjectContext/ConcurrencyType``, as Core Data code spells it
/// (`NSManagedObjectContext(concurrencyType: NSManagedObjectContextConcurrencyType.mainQueueConcurrencyType)`).
public typealias NSManagedObjectContextConcurrencyType = NSManagedObjectContext.ConcurrencyType

/// A scratch pad of managed objects: it registers them, tracks their changes, and
/// saves those changes through its coordinator.
///
/// A context and its objects belong to its queue. Do the work inside `perform` or
/// `performAndWait` (a main-queue context may also be used directly on the main
/// thread), exactly as with Core Data.
open class NSManagedObjectContext: NSObject, @unchecked Sendable {
    /// How a context is tied to a queue.
    public enum ConcurrencyType: UInt, Sendable {
        /// Deprecated by Apple; treated as a private queue here.
        case confinementConcurrencyType = 0
        /// The context owns a private serial queue.
        case privateQueueConcurrencyType = 1
        /// The context uses the main queue.
        case mainQueueConcurrencyType = 2
    }

    /// When an async `perform` runs its block.
    public enum ScheduledTaskType: Int, Sendable {
        /// Run at once when already on the context's queue, else enqueue.
        case immediate
        /// Always enqueue behind work already scheduled.
        case enqueued
    }

    /// The queue discipline chosen at creation.
    public let concurrencyType: ConcurrencyType
    /// The coordinator the context saves to and fetches from; a child context's is its parent's.
    ///
    /// A context has either a coordinator or a parent: setting one when the other is set
    /// is a programmer error that traps, as Core Data raises.
    open var persistentStoreCoordinator: NSPersistentStoreCoordinator? {
        get { parent?.persistentStoreCoordinator ?? ownCoordinator }
        set {
            precondition(
                parent == nil || newValue == nil,
                "Context already has a parent context; a child context uses its parent's coordinator")
            ownCoordinator = newValue
        }
    }
    // Set once before use, read for every fault and fetch: no run-time exclusivity check.
    @exclusivity(unchecked) private var ownCoordinator: NSPersistentStoreCoordinator?
    /// The context this one reads from and saves into (a child context), instead of a
    /// coordinator: the child sees the parent's unsaved changes, and its `save()` makes
    /// its changes the parent's, reaching the store only when the parent saves.
    ///
    /// Set it once, before use. Setting it on a context that has its own coordinator is
    /// a programmer error that traps, as Core Data raises.
    @exclusivity(unchecked) open var parent: NSManagedObjectContext? {
        didSet {
            precondition(
                parent == nil || ownCoordinator == nil, "Context already has a coordinator; cannot set a parent context"
            )
            var ancestor = parent
            while let current = ancestor {
                precondition(current !== self, "A context cannot be its own ancestor")
                ancestor = current.parent
            }
        }
    }
    /// A name for debugging and persistent history.
    open var name: String?
    /// The author recorded in persistent history for this context's saves.
    open var transactionAuthor: String?
    /// Who this context is in the history of the stores it writes to.
    var historyOrigin: StoreHistoryOrigin { StoreHistoryOrigin(author: transactionAuthor, contextName: name) }
    /// How old a snapshot in the coordinator's row cache may be for a fault to fire
    /// from it instead of reading the store: negative (the default) accepts any age,
    /// 0 always reads the store. Fetches always read the store.
    open var stalenessInterval: TimeInterval = -1
    /// Whether the context keeps strong references to all its registered objects.
    /// By default (`false`) it holds only objects with unsaved changes; the others
    /// live as long as the app references them.
    open var retainsRegisteredObjects: Bool {
        get { registry.retainsObjects }
        set { registry.retainsObjects = newValue }
    }
    /// Whether a fault whose row is gone becomes a deleted object instead of an error.
    ///
    /// With `true` (the default) such an object reads `nil` or 0 for every property and is
    /// marked deleted; with `false` it stays a fault, is listed in ``faultingErrors``, and a
    /// save that would write it throws. ``shouldHandleInaccessibleFault(_:for:triggeredByProperty:)``
    /// decides for each fault, and returns this value unless a subclass overrides it.
    open var shouldDeleteInaccessibleFaults = true
    /// How a save settles conflicts with the store: an `NSMergePolicy` (`NSErrorMergePolicy`,
    /// the default, fails the save). A value of another type fails saves that meet conflicts.
    open var mergePolicy: Any = NSErrorMergePolicy
    /// Whether the context takes in, on its own queue, the changes its parent saves (a
    /// child context) or that other contexts save to its coordinator (a root context):
    /// changed objects it holds are refreshed, keeping its own unsaved changes on top,
    /// and deleted ones leave it.
    open var automaticallyMergesChangesFromParent = false {
        didSet { observeSavesToMerge(automaticallyMergesChangesFromParent) }
    }
    /// The observer behind ``automaticallyMergesChangesFromParent``.
    private var saveObserver: NSObjectProtocol?
    /// Whether a child context has used this one as its parent: only then does a save
    /// remember which permanent ID replaced each temporary one (children still hold
    /// their objects under the temporary IDs).
    @exclusivity(unchecked) var servesChildren = false
    /// Temporary IDs this context's saves replaced, with their permanent IDs, for children.
    @exclusivity(unchecked) var temporaryIDAliases: [NSManagedObjectID: NSManagedObjectID] = [:]
    /// In a child: the permanent IDs the parent's saves gave objects this context still
    /// holds under their temporary IDs (which they keep, as in Core Data), learned before
    /// each fetch so that a row read under the permanent ID is the child's own object.
    @exclusivity(unchecked) var sourcePermanentIDs: [NSManagedObjectID: NSManagedObjectID] = [:]
    /// ``sourcePermanentIDs`` the other way round: permanent ID → temporary ID.
    @exclusivity(unchecked) var temporaryIDsBySourceID: [NSManagedObjectID: NSManagedObjectID] = [:]
    /// The query generation the context reads at (`nil`: the latest data); see
    /// ``queryGenerationToken``. Changed on this context's queue, read by its children on
    /// theirs (they read at their root's generation), hence the lock.
    let pinnedGeneration = Mutex<QueryGeneration?>(nil)
    /// Whether ``pinnedGeneration`` holds one, written with it under its lock: a fault
    /// reads the context's generation, and most contexts are never pinned.
    let isPinned = Atomic<Bool>(false)

    /// The undo manager that records the context's changes; `nil` (the default, as on
    /// iOS) records nothing.
    ///
    /// With one, each `processPendingChanges()` registers the changes made since the last
    /// one (inserts, deletes with their delete rules' effects, attribute and relationship
    /// changes) as one undo operation, in the manager's open group or the current event's.
    /// Use the manager on the context's queue. Set it to `nil` during large imports: every
    /// change is recorded while it is set.
    open var undoManager: UndoManager? {
        didSet { undoManagerDidChange(from: oldValue) }
    }
    /// Observes the undo manager's checkpoints (registers pending changes at each).
    var undoCheckpointObserver: (any NSObjectProtocol)?
    /// Counts saves, refreshes and merges: an undo state taken in another generation is
    /// applied to the saved values as they are now rather than restored exactly.
    @exclusivity(unchecked) var undoGeneration = 0
    /// Set while `save()` runs `willSave()`: the changes registered before it and the ones
    /// `willSave()` makes belong to one undo group, as they belong to one event.
    @exclusivity(unchecked) var holdsUndoEvent = false

    /// The model of the coordinator.
    var managedObjectModel: NSManagedObjectModel? { persistentStoreCoordinator?.managedObjectModel }

    private let queue: DispatchQueue
    private static let queueKey = DispatchSpecificKey<ObjectIdentifier>()

    // MARK: Object state

    deinit {
        // With `retainsRegisteredObjects`, the registry and its objects reference each
        // other; letting the objects go ends that cycle with the context.
        registry.retainsObjects = false
        if let undoCheckpointObserver { NotificationCenter.default.removeObserver(undoCheckpointObserver) }
        if let saveObserver { NotificationCenter.default.removeObserver(saveObserver) }
    }

    private func observeSavesToMerge(_ on: Bool) {
        if let saveObserver { NotificationCenter.default.removeObserver(saveObserver) }
        saveObserver = nil
        guard on else { return }
        saveObserver = NotificationCenter.default.addObserver(
            forName: .NSManagedObjectContextDidSaveObjectIDs, object: nil, queue: nil
        ) { [weak self] note in
            // Runs on the saving context's queue: only IDs cross over, the merge runs on ours.
            guard let self, let saver = note.object as? NSManagedObjectContext, saver !== self,
                self.mergesSaves(of: saver)
            else { return }
            // Later, not now: the saver's queue must not wait for ours (a child may be
            // waiting for its parent). The notification holds object IDs, which are immutable.
            let save = UncheckedSendable(note)
            self.perform { self.mergeChanges(fromContextDidSave: save.value) }
        }
    }

    /// Whether a save by `saver` is one this context merges automatically: its parent's,
    /// or, for a root context, another root context's on the same coordinator.
    private func mergesSaves(of saver: NSManagedObjectContext) -> Bool {
        if let parent { return saver === parent }
        return saver.parent == nil && saver.persistentStoreCoordinator === persistentStoreCoordinator
            && persistentStoreCoordinator != nil
    }

    /// Every object the context knows, by ID (weakly, unless `retainsRegisteredObjects`).
    let registry = ObjectRegistry()
    // The change sets are changed by this class and by undo (which restores them). They
    // skip dynamic exclusivity checks, which only ever catch same-thread overlaps: the
    // context's queue already orders every access, and each object change touches them.
    /// Objects inserted since the last save.
    @exclusivity(unchecked) var insertedSet = ManagedObjectSet()
    /// Saved objects changed since the last save.
    @exclusivity(unchecked) var updatedSet = ManagedObjectSet()
    /// Saved objects deleted since the last save.
    @exclusivity(unchecked) var deletedSet = ManagedObjectSet()
    /// Deleted objects whose delete rules have not run yet.
    @exclusivity(unchecked) var deletionQueue: [NSManagedObject] = []
    /// Objects deleted before they were ever saved: dropped once their rules ran.
    @exclusivity(unchecked) var discardedInserts: [NSManagedObject] = []
    /// Changes not yet announced with `NSManagedObjectContextObjectsDidChange`.
    @exclusivity(unchecked) var pendingInserted = ManagedObjectSet()
    @exclusivity(unchecked) var pendingUpdated = ManagedObjectSet()
    @exclusivity(unchecked) var pendingDeleted = ManagedObjectSet()
    /// Objects refreshed since the last announcement (`NSRefreshedObjectsKey`).
    @exclusivity(unchecked) var pendingRefreshed = ManagedObjectSet()
    /// Re-entrancy guard: delete propagation and change announcements run once at a time.
    @exclusivity(unchecked) private var isProcessingPendingChanges = false
    /// Objects whose values or to-many members the store failed to give, with the error
    /// (see ``faultingErrors``). Usually empty; held strongly so the error outlives a
    /// passing reference, and so a save can refuse the object.
    @exclusivity(unchecked) var faultFailures: [ObjectIdentifier: FaultFailure] = [:]

    /// Creates a context with the given queue discipline.
    ///
    /// - Parameter concurrencyType: The queue the context and its objects belong to: the main
    ///   queue, or a private queue of the context's own.
    public init(concurrencyType: ConcurrencyType) {
        self.concurrencyType = concurrencyType
        if concurrencyType == .mainQueueConcurrencyType {
            queue = .main
        } else {
            queue = DispatchQueue(label: "OpenCoreData.NSManagedObjectContext")
        }
        super.init()
        if concurrencyType == .mainQueueConcurrencyType {
            MainQueue.prepare()
        } else {
            queue.setSpecific(key: Self.queueKey, value: ObjectIdentifier(self))
        }
    }

    // MARK: Queue

    /// Whether the caller is running on the context's queue.
    var isOnQueue: Bool {
        if concurrencyType == .mainQueueConcurrencyType {
            return MainQueue.isCurrent || HeldContextQueues.holdsMainQueue
        }
        return DispatchQueue.getSpecific(key: Self.queueKey) == ObjectIdentifier(self) || HeldContextQueues.holds(self)
    }

    /// Runs `block` on the context's queue, later; pending changes are processed after it.
    ///
    /// - Parameter block: The work; it may use the context and its objects.
    open func perform(_ block: @escaping () -> Void) {
        let work = UncheckedSendable(block)
        queue.async {
            HeldContextQueues.holding(self, mainHeld: false) {
                work.value()
                self.processPendingChanges()
            }
        }
    }

    /// Runs `block` on the context's queue and waits for it; re-entrant.
    ///
    /// Called on the context's queue, it runs `block` at once, so nested calls do not deadlock.
    ///
    /// - Parameter block: The work; it may use the context and its objects.
    /// - Returns: What `block` returns.
    /// - Throws: What `block` throws.
    open func performAndWait<T>(_ block: () throws -> T) rethrows -> T {
        if isOnQueue { return try block() }
        // Work this thread does for the main queue stays recognisable inside our block.
        let mainHeld = MainQueue.isCurrent || HeldContextQueues.holdsMainQueue
        return try withoutActuallyEscaping(block) { escapable in
            let work = UncheckedSendable(escapable)
            return try queue.sync {
                try HeldContextQueues.holding(self, mainHeld: mainHeld) {
                    defer { processPendingChanges() }
                    return try UncheckedSendable(work.value()).value
                }
            }
        }
    }

    /// Runs `block` on the context's queue and returns its result to the awaiting task.
    ///
    /// - Parameters:
    ///   - schedule: `.immediate` runs `block` at once when the caller is already on the
    ///     context's queue; `.enqueued` always queues it behind earlier work.
    ///   - block: The work; it may use the context and its objects.
    /// - Returns: What `block` returns.
    /// - Throws: What `block` throws.
    open func perform<T, E: Error>(
        schedule: ScheduledTaskType = .immediate, _ block: @escaping () throws(E) -> T
    ) async throws(E) -> T {
        if schedule == .immediate, isOnQueue {
            return try block()
        }
        let work = UncheckedSendable(block)
        let result: UncheckedSendable<Result<T, E>> = await withCheckedContinuation { continuation in
            queue.async {
                let outcome: Result<T, E> = HeldContextQueues.holding(self, mainHeld: false) {
                    let outcome: Result<T, E>
                    do throws(E) { outcome = .success(try work.value()) } catch { outcome = .failure(error) }
                    self.processPendingChanges()
                    return outcome
                }
                continuation.resume(returning: UncheckedSendable(outcome))
            }
        }
        return try result.value.get()
    }

    // MARK: Undo

    /// Undoes the newest group of changes through ``undoManager`` (registering pending
    /// changes first, which then are what is undone). Does nothing without an undo manager.
    open func undo() { undoManager?.undo() }

    /// Redoes the newest undone group through ``undoManager``.
    open func redo() { undoManager?.redo() }

    // MARK: Saving

    /// Writes every insert, update and delete to the store in one transaction.
    ///
    /// Order, as in Core Data: `NSManagedObjectContextWillSave`, pending changes
    /// (delete rules), `willSave()` on each object, validation (all errors, combined
    /// into `NSValidationMultipleErrorsError` when several), the write, `didSave()`,
    /// then `NSManagedObjectContextDidSave`. A failed save writes nothing and leaves
    /// the context's changes in place.
    ///
    /// - Throws: An `NSError`: a validation error (`NSValidationMultipleErrorsError` holding
    ///   several), a merge error when the merge policy leaves conflicts, or a store error. The
    ///   context's changes are then all still unsaved.
    open func save() throws { try saveChanges() }

    // MARK: Registered objects

    /// All objects registered with the context.
    open var registeredObjects: Set<NSManagedObject> { Set(registry.objects) }
    /// Objects inserted since the last save.
    open var insertedObjects: Set<NSManagedObject> { Set(insertedSet) }
    /// Objects changed since the last save.
    open var updatedObjects: Set<NSManagedObject> { Set(updatedSet) }
    /// Objects that the next save removes from the store.
    open var deletedObjects: Set<NSManagedObject> { Set(deletedSet) }
    /// Whether the context has unsaved inserts, updates or deletes.
    open var hasChanges: Bool {
        !insertedSet.isEmpty || !updatedSet.isEmpty || !deletedSet.isEmpty || !deletionQueue.isEmpty
    }

    func isUpdated(_ object: NSManagedObject) -> Bool { updatedSet.contains(object) }

    /// The registered object with `objectID`, or `nil` when the context has none.
    ///
    /// - Parameter objectID: The ID to look up.
    /// - Returns: The object, or `nil`; the store is never read.
    open func registeredObject(for objectID: NSManagedObjectID) -> NSManagedObject? { registered(objectID) }

    /// The registered object for `objectID`, also when this child context holds it under
    /// the temporary ID its parent's save has since replaced with `objectID`.
    func registered(_ objectID: NSManagedObjectID) -> NSManagedObject? {
        if let object = registry[objectID] { return object }
        guard !temporaryIDsBySourceID.isEmpty, let temporary = temporaryIDsBySourceID[objectID] else { return nil }
        return registry[temporary]
    }

    /// The registered object for `row`'s ID, found by its key; the ID is made only in a
    /// child context holding objects under temporary IDs its parent's save replaced.
    func registered(_ row: StoreRow) -> NSManagedObject? {
        if let object = registry[row.key] { return object }
        return temporaryIDsBySourceID.isEmpty ? nil : registered(row.objectID)
    }

    /// The object for `objectID`: the registered one, or a fault that loads on first use.
    ///
    /// Like Core Data, this does not check that the row exists; use
    /// ``existingObject(with:)`` for that.
    ///
    /// - Parameter objectID: An ID from this context, another context on the same
    ///   coordinator, or `managedObjectID(forURIRepresentation:)`.
    /// - Returns: The object for the ID, possibly a fault.
    open func object(with objectID: NSManagedObjectID) -> NSManagedObject {
        if let object = registered(objectID) { return object }
        let object = objectID.entity.instantiate(insertInto: nil)
        object.objectID = objectID
        // A parent may hold an unsaved object under a temporary ID.
        object.isFaultStorage = !objectID.isTemporaryID || parent != nil
        object.lifecycle = .persisted
        register(object)
        return object
    }

    /// The registered object for a row a fetch read: a new object becomes a fault that
    /// fires from `row` without another query (or is loaded at once, when `asFault` is
    /// false). An object the context already holds keeps its in-memory state — unsaved
    /// changes win, as in Core Data — unless `refresh` asks for the row's values.
    func register(_ row: StoreRow, asFault: Bool, refresh: Bool = false) -> NSManagedObject {
        let object: NSManagedObject
        if let registered = registered(row) {
            object = registered
            if object.isFaultStorage {
                object.snapshot = row
            } else if refresh, object.lifecycle == .persisted, !updatedSet.contains(object) {
                undoGeneration &+= 1
                object.load(row)
                object.awakeFromFetch()
                return object
            } else {
                return object
            }
        } else {
            // No ID yet: the row keeps its parts, and the object makes it when asked.
            object = row.entity.instantiate(insertInto: nil)
            object.isFaultStorage = true
            object.snapshot = row
            object.lifecycle = .persisted
            register(object)
        }
        if !asFault { fulfillFault(for: object) }
        return object
    }

    /// The object for `objectID`, loaded from the store; throws when it does not exist.
    ///
    /// - Parameter objectID: The ID of the object to return.
    /// - Returns: The registered object, or the object loaded from its row.
    /// - Throws: An `NSError` when no row has that ID, or the ID is temporary and not
    ///   registered here.
    open func existingObject(with objectID: NSManagedObjectID) throws -> NSManagedObject {
        if let object = registered(objectID), !object.isFaultStorage { return object }
        func missing() -> NSError {
            CoreDataError.make(
                NSManagedObjectReferentialIntegrityError,
                "No object exists with ID \(objectID.uriRepresentation().absoluteString)",
                [NSAffectedObjectsErrorKey: [objectID]])
        }
        guard !objectID.isTemporaryID || parent != nil, persistentStoreCoordinator != nil else { throw missing() }
        // A registered fault is filled here, so that a store error or a missing row reaches
        // the caller instead of an object that cannot be read.
        if let object = registered(objectID) {
            guard try loadFault(object) else { throw missing() }
            return object
        }
        guard let row = try sourceRow(for: objectID) else { throw missing() }
        return register(row, asFault: false)
    }

    func register(_ object: NSManagedObject) {
        object.managedObjectContext = self
        registry.insert(object)
    }

    /// Re-registers objects that a save gave permanent IDs, under those IDs.
    func promoteRegistrations(_ objects: [NSManagedObject], from temporaryIDs: [NSManagedObjectID]) {
        registry.promote(objects, from: temporaryIDs)
    }

    // MARK: Inserting and deleting

    /// Registers a new object with the context; it is saved at the next `save()`.
    ///
    /// - Parameter object: An object not yet in any context.
    open func insert(_ object: NSManagedObject) {
        if object.managedObjectContext === self, object.lifecycle != .detached { return }
        precondition(
            object.managedObjectContext == nil || object.managedObjectContext === self,
            "An NSManagedObject may only be in (or observed by) a single NSManagedObjectContext")
        // The object is not registered yet, so it cannot tell the recorder itself.
        registry.undoRecorder?.objectWillChange(object, slot: nil)
        if object.lifecycle == .deleted, deletedSet.contains(object) {
            deletedSet.remove(object)
            object.lifecycle = .persisted
            return
        }
        object.lifecycle = .inserted
        register(object)
        insertedSet.append(object)
        pendingInserted.append(object)
        object.awakeFromInsert()
        for slot in object.storage.indices where object.storage[slot] != nil {
            object.changedSlots.insert(slot)
        }
    }

    /// Takes in an object a child context inserted and saved: new here too, but already
    /// awake (its `awakeFromInsert` ran in the child).
    func adoptInsertFromChild(_ object: NSManagedObject) {
        insertedSet.append(object)
        pendingInserted.append(object)
    }

    /// Marks `object` for deletion; its delete rules run at the next `processPendingChanges()`.
    ///
    /// - Parameter object: An object of this context. An object never saved is simply
    ///   forgotten; a saved one is removed from the store by the next save.
    open func delete(_ object: NSManagedObject) {
        guard object.managedObjectContext === self, object.lifecycle != .deleted else { return }
        object.fireFaultIfNeeded()
        object.noteUndoableChange(slot: nil)
        if object.lifecycle == .inserted {
            insertedSet.remove(object)
            // Inserted in an earlier event, it was announced: its deletion is too.
            if pendingInserted.remove(object) == nil { pendingDeleted.append(object) }
            discardedInserts.append(object)
        } else {
            deletedSet.append(object)
            updatedSet.remove(object)
            pendingDeleted.append(object)
        }
        object.lifecycle = .deleted
        deletionQueue.append(object)
    }

    /// Records that `object`, one of this context's, changed; called by every property write.
    ///
    /// Each event's notification names every object changed in it, as Core Data's does:
    /// also one already changed in an earlier event, and an unsaved inserted one (which
    /// stays out of ``updatedObjects``).
    func objectDidChange(_ object: NSManagedObject) {
        switch object.lifecycle {
        case .persisted:
            updatedSet.append(object)
            pendingUpdated.append(object)
        case .inserted:
            pendingUpdated.append(object)
        default:
            return
        }
    }

    // MARK: Pending changes

    /// Runs delete rules for deleted objects, registers the changes made since the last
    /// call with the undo manager (one operation; see ``undoManager``) and posts
    /// `NSManagedObjectContextObjectsDidChange`.
    open func processPendingChanges() {
        guard !isProcessingPendingChanges else { return }
        isProcessingPendingChanges = true
        defer { isProcessingPendingChanges = false }
        while !deletionQueue.isEmpty {
            let object = deletionQueue.removeFirst()
            DeletePropagation.apply(to: object, in: self)
        }
        for object in discardedInserts where object.lifecycle == .deleted {
            object.lifecycle = .detached
            unregister(object)
        }
        discardedInserts.removeAll()
        registerUndoableChanges()
        guard
            !pendingInserted.isEmpty || !pendingUpdated.isEmpty || !pendingDeleted.isEmpty || !pendingRefreshed.isEmpty
        else { return }
        var info: [AnyHashable: Any] = [:]
        if !pendingInserted.isEmpty {
            for object in pendingInserted { object.insertAnnounced = true }
            info[NSInsertedObjectsKey] = Set(pendingInserted)
        }
        if !pendingUpdated.isEmpty {
            info[NSUpdatedObjectsKey] = Set(
                pendingUpdated.filter { !pendingInserted.contains($0) && !pendingDeleted.contains($0) })
        }
        if !pendingDeleted.isEmpty { info[NSDeletedObjectsKey] = Set(pendingDeleted) }
        if !pendingRefreshed.isEmpty { info[NSRefreshedObjectsKey] = Set(pendingRefreshed) }
        pendingInserted.removeAll()
        pendingUpdated.removeAll()
        pendingDeleted.removeAll()
        pendingRefreshed.removeAll()
        NotificationCenter.default.post(name: .NSManagedObjectContextObjectsDidChange, object: self, userInfo: info)
    }

    /// Drops a saved-and-deleted object from the context.
    func registryRemove(_ object: NSManagedObject) { unregister(object) }

    /// Stops tracking `object`'s unsaved insert, changes or delete: its row is gone
    /// from the store (a merged remote delete), so no save may write it.
    func forgetUnsavedChanges(of object: NSManagedObject) {
        insertedSet.remove(object)
        updatedSet.remove(object)
        deletedSet.remove(object)
        pendingInserted.remove(object)
        pendingUpdated.remove(object)
        pendingDeleted.remove(object)
        pendingRefreshed.remove(object)
        deletionQueue.removeAll { $0 === object }
        discardedInserts.removeAll { $0 === object }
    }

    /// Empties the change sets after a successful save.
    func clearSavedChanges() {
        insertedSet.removeAll()
        updatedSet.removeAll()
        deletedSet.removeAll()
        pendingInserted.removeAll()
        pendingUpdated.removeAll()
        pendingDeleted.removeAll()
        pendingRefreshed.removeAll()
    }

    private func unregister(_ object: NSManagedObject) {
        registry.remove(object)
        object.managedObjectContext = nil
    }

    // MARK: Discarding changes

    /// Discards every unsaved change: inserted objects leave, others return to their saved
    /// state. The context's operations leave its undo manager, as in Core Data.
    open func rollback() {
        discardUndoHistory()
        for object in insertedSet {
            object.lifecycle = .detached
            unregister(object)
        }
        for object in Array(updatedSet) + Array(deletedSet) {
            object.lifecycle = .persisted
            object.turnIntoFault()
        }
        for object in registry.objects where !object.changedSlots.isEmpty || !object.rejectedAssignments.isEmpty {
            object.turnIntoFault()
        }
        insertedSet.removeAll()
        updatedSet.removeAll()
        deletedSet.removeAll()
        deletionQueue.removeAll()
        pendingInserted.removeAll()
        pendingUpdated.removeAll()
        pendingDeleted.removeAll()
        pendingRefreshed.removeAll()
    }

    /// Forgets every object: the context is as new. Objects obtained before must not be
    /// used. The context's operations leave its undo manager, as in Core Data.
    open func reset() {
        discardUndoHistory()
        advanceQueryGeneration()
        // Objects with changes are held by the change sets, so the registry has them all.
        // They leave the registry first: turning them into faults breaks relationship
        // cycles, so they may deallocate as soon as this array lets them go.
        let invalidated = registry.removeAll()
        for object in invalidated {
            object.turnIntoFault()
            object.managedObjectContext = nil
        }
        sourcePermanentIDs.removeAll()
        temporaryIDsBySourceID.removeAll()
        faultFailures.removeAll()
        insertedSet.removeAll()
        updatedSet.removeAll()
        deletedSet.removeAll()
        deletionQueue.removeAll()
        pendingInserted.removeAll()
        pendingUpdated.removeAll()
        pendingDeleted.removeAll()
        pendingRefreshed.removeAll()
        // Core Data names every object the reset invalidated, by ID.
        NotificationCenter.default.post(
            name: .NSManagedObjectContextObjectsDidChange, object: self,
            userInfo: [NSInvalidatedAllObjectsKey: invalidated.map(\.objectID)])
    }

    /// Updates `object` from the row cache or the store (within `stalenessInterval`).
    ///
    /// With `flag` false the object becomes a fault and its unsaved changes are
    /// discarded. With `flag` true its unsaved changes survive: it reloads the saved
    /// values and applies its changes on top (an unchanged object just becomes a fault).
    ///
    /// An inserted object refreshed with `flag` false becomes a fault too, as in Core Data:
    /// all its values were unsaved changes, so when the fault fires it has none. It stays
    /// inserted. With `flag` true it keeps its values, as nothing saved lies beneath them.
    ///
    /// - Parameters:
    ///   - object: An object of this context.
    ///   - flag: Whether the object keeps its unsaved changes.
    open func refresh(_ object: NSManagedObject, mergeChanges flag: Bool) {
        guard object.managedObjectContext === self else { return }
        if object.lifecycle == .inserted, !flag {
            undoGeneration &+= 1
            object.turnIntoFault()
            // `fulfillFault` fills it with nothing: no store or parent holds its values.
            object.isFaultStorage = true
            return
        }
        guard object.lifecycle == .persisted else { return }
        undoGeneration &+= 1
        // Announced with the next NSManagedObjectContextObjectsDidChange, as Core Data does.
        pendingRefreshed.append(object)
        if flag, updatedSet.contains(object) {
            // A changed fault is one its store failed to fill: filling it keeps the changes.
            if object.isFaultStorage { fulfillFault(for: object) } else { object.reloadKeepingChanges() }
            return
        }
        updatedSet.remove(object)
        pendingUpdated.remove(object)
        object.turnIntoFault()
    }

    /// Refreshes every registered object (objects with unsaved changes keep them) and
    /// announces them at once under `NSRefreshedObjectsKey`.
    open func refreshAllObjects() {
        for object in registry.objects where object.lifecycle == .persisted {
            refresh(object, mergeChanges: true)
        }
        processPendingChanges()
    }

    // MARK: Store access for objects

    /// Decides what becomes of a fault whose row the store no longer has (another context
    /// or process deleted it): `true` turns it into a deleted object that reads `nil` or 0;
    /// `false` leaves it a fault, listed in ``faultingErrors``, that a save refuses to write.
    ///
    /// Override it to log or count such faults. It returns ``shouldDeleteInaccessibleFaults``.
    /// It is not asked by methods that throw instead (``existingObject(with:)``), nor for
    /// store errors: an object the store failed to read is never deleted (see ``faultingErrors``).
    ///
    /// - Parameters:
    ///   - fault: The object whose fault fired.
    ///   - oid: Its object ID.
    ///   - property: The property whose access fired the fault, or `nil` when not known.
    /// - Returns: Whether the context turns the fault into a deleted object.
    open func shouldHandleInaccessibleFault(
        _ fault: NSManagedObject, for oid: NSManagedObjectID, triggeredByProperty property: NSPropertyDescription?
    ) -> Bool {
        shouldDeleteInaccessibleFaults
    }

    /// Loads a fault's values: from the row its fetch read, else from the coordinator's
    /// row cache (within `stalenessInterval`), else with one query.
    ///
    /// A store error leaves the object a fault that reads `nil` or 0 (never the model's
    /// defaults, which would pass for stored values) and is recorded in ``faultingErrors``;
    /// a row that no longer exists goes to ``shouldHandleInaccessibleFault(_:for:triggeredByProperty:)``.
    func fulfillFault(for object: NSManagedObject, triggeredBy key: String? = nil) {
        if object.lifecycle == .inserted {
            // Refreshed without merging (the only way an inserted object becomes a fault):
            // its values were all unsaved, so it fills with none.
            object.isFaultStorage = false
            return
        }
        do {
            if try !loadFault(object) { handleInaccessibleFault(object, triggeredBy: key) }
        } catch {
            noteFaultFailure(of: object, error)
        }
    }

    /// Fills a fault from its source: `false` when the source no longer has the object.
    ///
    /// - Throws: The store's error when it could not be read; the object is left as it was.
    func loadFault(_ object: NSManagedObject) throws -> Bool {
        guard let coordinator = persistentStoreCoordinator else { return true }
        guard let row = try faultRow(for: object, coordinator) else { return false }
        // Changes made while the store could not be read stay on top of the values read now.
        if object.changedSlots.isEmpty { object.load(row) } else { object.loadKeepingChanges(row) }
        noteRead(object)
        object.awakeFromFetch()
        return true
    }

    /// The row a fault fires from: for a child, the one its fetch read or the parent's
    /// state; for a root context, the fetched row if still current, else the row cache or
    /// the store. `nil` when the source no longer has the object.
    private func faultRow(for object: NSManagedObject, _ coordinator: NSPersistentStoreCoordinator) throws -> StoreRow?
    {
        if parent != nil { return try object.snapshot ?? sourceRow(for: object.objectID) }
        let generation = readGeneration
        if let fetched = object.snapshot, let row = try coordinator.currentRow(for: fetched, at: generation, by: self) {
            return row
        }
        return try coordinator.row(for: object.objectID, maxAge: stalenessInterval, at: generation, by: self)
    }

    /// The objects a to-many relationship holds in the store, as registered objects or faults;
    /// `nil` when the store could not be read (the error is then in ``faultingErrors``).
    func relatedObjects(of object: NSManagedObject, relationship: NSRelationshipDescription) -> [NSManagedObject]? {
        if let parent {
            return parent.relatedObjectIDsForChild(of: object.objectID, relationship: relationship).map {
                self.object(with: $0)
            }
        }
        guard !object.objectID.isTemporaryID, let coordinator = persistentStoreCoordinator else { return [] }
        do {
            let ids = try coordinator.relatedObjectIDs(
                of: object.objectID, relationship: relationship, at: readGeneration, by: self)
            return ids.map { self.object(with: $0) }
        } catch {
            noteFaultFailure(of: object, error)
            return nil
        }
    }

    /// Names the store a newly inserted object is saved to.
    ///
    /// A coordinator here saves every object to its first store, so that is the one store
    /// an object can be assigned to (see docs/DEVIATIONS.md). Assigning an object that is
    /// not newly inserted in this context, or to a store of another coordinator, is a
    /// programmer error that traps, as Core Data raises.
    ///
    /// - Parameters:
    ///   - object: A newly inserted object of this context.
    ///   - store: The store to save the object to.
    open func assign(_ object: Any, to store: NSPersistentStore) {
        guard let object = object as? NSManagedObject, object.managedObjectContext === self,
            object.lifecycle == .inserted
        else {
            preconditionFailure("assign(_:to:) takes an object newly inserted into this context")
        }
        guard let stores = persistentStoreCoordinator?.persistentStores, stores.contains(where: { $0 === store }) else {
            preconditionFailure("assign(_:to:): the store does not belong to this context's coordinator")
        }
        precondition(
            stores.first === store,
            "assign(_:to:): OpenCoreData saves every object of a coordinator to its first store; \(object.entity.name ?? "the object") cannot go to '\(store.url?.path ?? "?")'"
        )
    }

    /// Permanent IDs for objects that still have temporary ones (the store reserves the keys now).
    ///
    /// - Parameter objects: Objects of this context; those already permanent are left alone.
    /// - Throws: An `NSError` when the store cannot reserve keys.
    open func obtainPermanentIDs(for objects: [NSManagedObject]) throws {
        let pending = objects.filter { $0.objectID.isTemporaryID }
        guard !pending.isEmpty else { return }
        guard let coordinator = persistentStoreCoordinator else {
            throw CoreDataError.make(NSPersistentStoreSaveError, "This context has no persistent store coordinator")
        }
        let ids =
            if let store = coordinator.persistentStores.first as? NSIncrementalStore {
                try incrementalPermanentIDs(for: pending, store: store, coordinator)
            } else {
                try coordinator.permanentIDs(for: pending.map(\.entity))
            }
        for (object, id) in zip(pending, ids) {
            object.objectID = id
            // Filed anew under the permanent ID by whichever context holds it.
            object.registry?.insert(object)
        }
    }

    /// The context's class, its ``name`` and how many objects it has registered, for logs
    /// and the debugger.
    open override var description: String {
        "<\(type(of: self)): \(name ?? "unnamed"), \(registry.count) objects>"
    }
}

extension NSManagedObjectContext {
    /// ``insertedObjects``, ``updatedObjects`` and ``deletedObjects`` as arrays, in the order
    /// the changes were made, for layers above that only walk them (no sets are hashed).
    package var unsavedChanges: (inserted: [NSManagedObject], updated: [NSManagedObject], deleted: [NSManagedObject]) {
        (Array(insertedSet), Array(updatedSet), Array(deletedSet))
    }
}
