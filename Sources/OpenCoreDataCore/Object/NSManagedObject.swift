internal import OrderedCollections
internal import Synchronization

/// An object whose state Core Data tracks, validates and persists.
///
/// Subclass it for each entity and declare the entity's properties with `@Managed`:
/// ```swift
/// final class Person: NSManagedObject {
///     @Managed var name: String?
///     @Managed var family: Family?
/// }
/// ```
/// An object belongs to one context and, like the context, to that context's queue.
/// Equality is identity: a context holds at most one object per object ID.
open class NSManagedObject: NSObject {
    /// The entity that describes this object.
    public let entity: NSEntityDescription
    /// The entity's compiled facts, held directly: every accessor reads them, and a
    /// constant here costs less than the entity's mutable `compiled` (an exclusivity check).
    let entityFacts: EntityFacts
    /// The object's identity; temporary until the object is first saved.
    ///
    /// Readable from another thread, as in Core Data (the one property apps pass between
    /// queues): an ID made on first use is made once, under a lock the context's queue
    /// also takes before the object's row can go. While the queue replaces a temporary ID
    /// at a save, a read elsewhere races the replacement (docs/DEVIATIONS.md).
    open internal(set) var objectID: NSManagedObjectID {
        get { assignedID ?? makeObjectID() }
        set {
            let replaced = assignedIDReference.exchange(
                Unmanaged.passRetained(newValue), ordering: .acquiringAndReleasing)
            replaced?.release()
        }
    }
    /// The ID once made, published atomically (it may be read off the object's queue). A
    /// fetched object has none until asked: its row keeps the ID's parts, and a fetch that
    /// only reads values never allocates one. A new object's temporary ID is made on first
    /// use too (an object inserted into a context, during insertion).
    private let assignedIDReference = Atomic<Unmanaged<NSManagedObjectID>?>(nil)

    private var assignedID: NSManagedObjectID? {
        assignedIDReference.load(ordering: .acquiring)?.takeUnretainedValue()
    }

    /// Makes the ID from the object's row (or a temporary one) unless another thread just
    /// did. The lock keeps the row alive while it is read: the queue takes the same lock
    /// before it lets the row of an object without an ID go (`snapshot`'s `willSet`).
    private func makeObjectID() -> NSManagedObjectID {
        let lock = IdentityLocks.lock(for: self)
        lock.lock()
        defer { lock.unlock() }
        if let id = assignedID { return id }
        let id = snapshot?.objectID ?? NSManagedObjectID(temporaryFor: entity)
        let made = Unmanaged.passRetained(id)
        // Published only if no ID came meanwhile: the setter (on the queue) does not take the lock.
        let (published, current) = assignedIDReference.compareExchange(
            expected: nil, desired: made, successOrdering: .releasing, failureOrdering: .acquiring)
        guard !published, let current else { return id }
        made.release()
        return current.takeUnretainedValue()
    }
    /// The context that owns the object, `nil` once it is deleted and saved, or before insertion.
    /// Written on the context's queue only (objects are confined to it): no run-time exclusivity check.
    @exclusivity(unchecked) open internal(set) weak var managedObjectContext: NSManagedObjectContext?
    /// The registry of the context the object is registered with; the object leaves it
    /// when it deallocates (the registry does not keep it alive).
    @exclusivity(unchecked) var registry: ObjectRegistry?
    /// The ID the registry files the object under (its ID when registered or last promoted);
    /// `nil` for an object registered before its ID was made, filed under its row's key.
    @exclusivity(unchecked) var registeredID: NSManagedObjectID?

    // MARK: Storage
    // The stored state is `@exclusivity(unchecked)`: an object is confined to its
    // context's queue (as in Core Data; Thread Sanitizer checks the tests), and a dynamic
    // exclusivity check on every property read and write cost more than the read itself.

    /// One value per property slot (see `EntityFacts.slots`), laid out per entity; a loaded
    /// object reads its row's buffer until its first write.
    ///
    /// Attributes hold their native stored value. A to-one holds the related
    /// `NSManagedObject`, or its `NSManagedObjectID` until first read. A to-many holds
    /// a `ToManyRelationship`, or `nil` while it is a fault.
    @exclusivity(unchecked) var storage: SlotValues
    /// Stored values as of the last fetch or save (to-ones as IDs); `nil` for new objects.
    @exclusivity(unchecked) var committed: SlotValues?
    /// The shared snapshot the object was loaded from (keeping it alive in the row cache),
    /// or, while the object is a fault, the row a fetch already read for it.
    ///
    /// An object without its ID yet is identified by this row, which stays until the ID
    /// is made: before another row replaces it or it goes, the ID is made from it (and, if
    /// the object is registered under the row's key, remembered as the registered ID).
    @exclusivity(unchecked) var snapshot: StoreRow? {
        willSet {
            guard let snapshot, newValue !== snapshot else { return }
            let id = assignedID ?? makeObjectID()
            if registry != nil, registeredID == nil { registeredID = id.key == snapshot.key ? id : snapshot.objectID }
        }
    }
    /// Assignments refused because the key is unknown or the value has the wrong type.
    /// Reported by validation, so the next save throws instead of losing data silently.
    @exclusivity(unchecked) var rejectedAssignments: [String: String] = [:]
    /// The row version (`Z_OPT`) the object was fetched or last saved with.
    @exclusivity(unchecked) var storedVersion: Int64 = 0
    // The flags come right after the nine-byte slot set, in its padding (declaration
    // order is layout order): the object stays within 128 bytes.
    /// Slots set since the last save.
    @exclusivity(unchecked) var changedSlots = SlotSet()
    /// An unsaved insert its context has announced (in `NSManagedObjectContextObjectsDidChange`):
    /// its later changes are announced as updates.
    @exclusivity(unchecked) var insertAnnounced = false
    /// Whether the object's values are not loaded yet.
    @exclusivity(unchecked) var isFaultStorage = false
    @exclusivity(unchecked) var lifecycle: Lifecycle = .detached

    /// Where the object is in its life with a context.
    enum Lifecycle {
        /// Created without a context, or removed from one.
        case detached
        /// Inserted and not saved yet.
        case inserted
        /// Saved or fetched, possibly with unsaved changes.
        case persisted
        /// Marked for deletion; removed from the store at the next save.
        case deleted
    }

    // MARK: Creating objects

    /// Creates an object of `entity`, inserted into `context` when one is given.
    ///
    /// This is the designated initializer; subclasses that override it must mark the
    /// override `required` (Swift needs that to create objects of the right class
    /// when fetching, where Core Data uses the Objective-C runtime).
    ///
    /// - Parameters:
    ///   - entity: The object's entity, from the model of `context`'s coordinator.
    ///   - context: The context to insert the object into, or `nil` to insert it later with
    ///     ``NSManagedObjectContext/insert(_:)``.
    public required init(entity: NSEntityDescription, insertInto context: NSManagedObjectContext?) {
        if entity.frozenFacts == nil { entity.managedObjectModel?.freeze() }
        self.entity = entity
        let facts = entity.facts
        self.entityFacts = facts
        // Shared until first written; to-manys of new objects are created on first use.
        self.storage = facts.defaultStorage
        super.init()
        facts.noteInstantiated(type(of: self), entity: entity)
        context?.insert(self)
    }

    /// Creates an object of the subclass's entity and inserts it into `context`.
    ///
    /// The entity is the one of the context's model whose `managedObjectClassName`
    /// names this class. Having none is a programmer error that traps, as Core Data raises.
    ///
    /// - Parameter context: The context to insert the new object into.
    public convenience init(context: NSManagedObjectContext) {
        guard let entity = context.managedObjectModel.flatMap({ Self.entity(in: $0) }) else {
            preconditionFailure(
                "An NSManagedObject of class '\(Self.self)' must have a valid NSEntityDescription: no entity of the context's model has managedObjectClassName '\(Self.self)'"
            )
        }
        self.init(entity: entity, insertInto: context)
    }

    @available(*, unavailable, message: "Use init(entity:insertInto:) or init(context:)")
    public override init() { fatalError("unavailable") }

    deinit {
        assignedIDReference.load(ordering: .relaxed)?.release()
        guard let registry else { return }
        if let registeredID {
            registry.objectWillDeallocate(ObjectIdentifier(self), id: registeredID)
        } else if let snapshot {
            registry.objectWillDeallocate(ObjectIdentifier(self), key: snapshot.key)
        }
    }

    /// The entity whose class is this class in any model in use.
    ///
    /// When no model in use names this class (none is loaded yet, or the class is in no
    /// model), Core Data logs that `+entity` is confused and hands back an entity without
    /// a name; so does this, which keeps the common `entity().name ?? String(describing:
    /// self)` working. Nothing is cached: a model loaded later is found by the next call.
    ///
    /// - Returns: The entity description, or an empty one without a name.
    open class func entity() -> NSEntityDescription {
        for model in ModelRegistry.shared.models {
            if let entity = entity(in: model) { return entity }
        }
        UnclaimedClassLog.note(self)
        return NSEntityDescription()
    }

    /// The entity of `model` that this class represents; registers the class for it.
    class func entity(in model: NSManagedObjectModel) -> NSEntityDescription? {
        if let known = model.cachedEntity(for: self) { return known }
        guard
            let entity = model.entities.first(where: { ManagedObjectClassRegistry.names(self, entity: $0) })
                ?? (self == NSManagedObject.self ? nil : model.entitiesByName[String(describing: self)])
        else { return nil }
        ManagedObjectClassRegistry.shared.register(self)
        // Bound to this very class: another class of the same bare name (another module's)
        // must not be what fetches of this entity create.
        if entity.frozenFacts != nil { entity.facts.noteInstantiated(self, entity: entity) }
        model.cacheEntity(entity, for: self)
        return entity
    }

    // MARK: Identity without the ID

    /// The key the object is filed under in a registry and, unless that is its row's,
    /// its ID. An object with no ID yet is filed under its row's key (making the ID for the
    /// registry alone would cost an allocation per fetched row), except an incremental
    /// store's object: its store is told about registrations by ID.
    var registrationIdentity: (key: ObjectKey, id: NSManagedObjectID?) {
        if assignedID == nil, let snapshot, !(snapshot.persistentStore?.isIncremental ?? false) {
            return (snapshot.key, nil)
        }
        let id = objectID
        return (id.key, id)
    }

    /// The key of the object's ID, without making the ID.
    var objectKey: ObjectKey { assignedID?.key ?? snapshot?.key ?? objectID.key }

    /// The key the object's registry filed it under; `nil` when it is in none.
    var filedKey: ObjectKey? { registry == nil ? nil : registeredID?.key ?? snapshot?.key }

    /// Whether the object's ID is temporary, without making the ID: a row's is temporary
    /// only when the row is a child context's copy of its parent's unsaved object.
    var hasTemporaryID: Bool {
        if let assignedID { return assignedID.isTemporaryID }
        if let snapshot { return snapshot.persistentStore == nil }
        return true
    }

    /// Whether the object's ID has been made (for tests of fetches that should make none).
    var hasMadeObjectID: Bool { assignedID != nil }

    // MARK: State

    /// Whether the object was inserted and not saved yet.
    open var isInserted: Bool { lifecycle == .inserted }
    /// Whether the object's source has no state for it yet: new in this context, or, in a
    /// root context, not in the store (a temporary ID). In a child context an object with
    /// a temporary ID may be the parent's unsaved object, whose relationships load from it.
    var isUnsaved: Bool { lifecycle == .inserted || (hasTemporaryID && managedObjectContext?.parent == nil) }
    /// Whether the object has unsaved changes to its properties.
    open var isUpdated: Bool { managedObjectContext?.isUpdated(self) ?? false }
    /// Whether the object will be deleted at the next save.
    open var isDeleted: Bool { lifecycle == .deleted }
    /// Whether the object's values are not loaded yet (they load on first access).
    open var isFault: Bool { isFaultStorage }
    /// Whether the object was inserted, changed or deleted since the last save.
    open var hasChanges: Bool { isInserted || isDeleted || isUpdated }
    /// Whether a stored property differs from its last saved value.
    open var hasPersistentChangedValues: Bool { !changedValues().isEmpty }
    /// 0 when the object's values are loaded, 1 when it is a fault (Core Data's convention).
    open var faultingState: Int { isFaultStorage ? 1 : 0 }

    // MARK: Life-cycle hooks (override points, called by the context)

    /// Called once, when the object is first inserted into a context. Set defaults here.
    open func awakeFromInsert() {}
    /// Called after the object's values are loaded from the store.
    open func awakeFromFetch() {}
    /// Called before the object is saved; changes made here are saved too.
    open func willSave() {}
    /// Called after the object was saved.
    open func didSave() {}
    /// Called when the object is deleted, before delete rules run.
    open func prepareForDeletion() {}
    /// Called before the object's values are discarded.
    open func willTurnIntoFault() {}
    /// Called after the object's values were discarded.
    open func didTurnIntoFault() {}
    /// Called before a key is read; fires the fault when needed.
    ///
    /// - Parameter key: The key about to be read, or `nil`.
    open func willAccessValue(forKey key: String?) { fireFaultIfNeeded(triggeredBy: key) }
    /// Called after a key was read.
    ///
    /// - Parameter key: The key that was read, or `nil`.
    open func didAccessValue(forKey key: String?) {}
    /// Called before a key changes (key-value observing hook; fires the fault when needed).
    ///
    /// - Parameter key: The key about to change.
    open func willChangeValue(forKey key: String) { fireFaultIfNeeded() }
    /// Called after a key changed.
    ///
    /// - Parameter key: The key that changed.
    open func didChangeValue(forKey key: String) {}

    // MARK: Overridable key-value coding and validation
    // Declared here, not in extensions, because Swift without the Objective-C runtime
    // only lets subclasses override members of the class body.

    /// The value of a property: numbers as `NSNumber`, a to-one as its object, a
    /// to-many as `NSSet` (or `NSOrderedSet` when ordered). Unknown keys go to ``value(forUndefinedKey:)``.
    ///
    /// - Parameter key: The name of an attribute, relationship or fetched property.
    /// - Returns: The value, or `nil` when it has none.
    open func value(forKey key: String) -> Any? { kvcValue(forKey: key) }

    /// Called for a key the entity does not have. Traps, as Core Data raises
    /// `NSUnknownKeyException`; override to supply computed values.
    ///
    /// - Parameter key: The key the entity does not have.
    /// - Returns: A value for the key, in an override.
    open func value(forUndefinedKey key: String) -> Any? { kvcValue(forUndefinedKey: key) }

    /// Sets a property, updating the inverse of a relationship at once. A value of the
    /// wrong type is refused and reported by the next save (see docs/DEVIATIONS.md).
    ///
    /// - Parameters:
    ///   - value: The new value, `nil` to clear it.
    ///   - key: The name of an attribute or relationship.
    open func setValue(_ value: Any?, forKey key: String) { kvcSetValue(value, forKey: key) }

    /// Called for a key the entity does not have: the next save throws; override to accept extra keys.
    ///
    /// - Parameters:
    ///   - value: The value that was set.
    ///   - key: The key the entity does not have.
    open func setValue(_ value: Any?, forUndefinedKey key: String) { kvcSetValue(value, forUndefinedKey: key) }

    /// Checks one value for `key`: required-ness, type, relationship counts, validation predicates.
    /// Override to add rules (call `super`); `inout` lets a validator replace the value.
    ///
    /// - Parameters:
    ///   - value: The value to check; a validator may replace it.
    ///   - key: The property the value is for.
    /// - Throws: An `NSError` whose code names the rule broken and whose user info names
    ///   the object and the key.
    open func validateValue(_ value: inout Any?, forKey key: String) throws {
        try builtInValidateValue(&value, forKey: key)
    }

    /// Validates the object as saving it for the first time would.
    ///
    /// - Throws: An `NSError` for the broken rule, or `NSValidationMultipleErrorsError`
    ///   holding one per rule under `NSDetailedErrorsKey` when several are broken.
    open func validateForInsert() throws { try builtInValidateForInsert() }

    /// Validates the object as saving its changes would.
    ///
    /// - Throws: An `NSError` for the broken rule, or `NSValidationMultipleErrorsError`
    ///   holding one per rule under `NSDetailedErrorsKey` when several are broken.
    open func validateForUpdate() throws { try builtInValidateForUpdate() }

    /// Checks deny rules: deleting fails while a deny relationship still has destinations.
    ///
    /// - Throws: `NSValidationRelationshipDeniedDeleteError` for a deny rule that still has
    ///   destinations.
    open func validateForDelete() throws { try builtInValidateForDelete() }

    // MARK: Faulting

    /// Loads the object's values from its context's store when they are not loaded.
    ///
    /// - Parameter key: The property being read, when known (for the context's inaccessible-fault hook).
    func fireFaultIfNeeded(triggeredBy key: String? = nil) {
        guard isFaultStorage else { return }
        guard let context = managedObjectContext else {
            // A fault whose context was reset (or is gone) has nowhere to load from: as in
            // Core Data, firing it leaves an object that is no longer a fault, with no values.
            isFaultStorage = false
            return
        }
        context.fulfillFault(for: self, triggeredBy: key)
    }

    /// Whether the to-many relationship `key` has not been loaded yet.
    ///
    /// - Parameter key: The name of a relationship of the object's entity.
    /// - Returns: `true` while the relationship has not been loaded.
    open func hasFault(forRelationshipNamed key: String) -> Bool {
        guard let relationship = entityFacts.propertiesByName[key] as? NSRelationshipDescription else { return false }
        if isFaultStorage { return true }
        if relationship.isToMany {
            // Members the store failed to give are not loaded (see `toMany`).
            guard !isUnsaved else { return false }
            return (storage[relationship.slot] as? ToManyRelationship)?.committed == nil
        }
        return storage[relationship.slot] is NSManagedObjectID
    }

    /// The IDs of the objects a relationship points to, loading them from the store if needed.
    ///
    /// - Parameter key: The name of a relationship of the object's entity.
    /// - Returns: The destinations' IDs, without firing their faults.
    open func objectIDs(forRelationshipNamed key: String) -> [NSManagedObjectID] {
        guard let relationship = entityFacts.propertiesByName[key] as? NSRelationshipDescription else { return [] }
        if relationship.isToMany { return toMany(relationship).members.map(\.objectID) }
        fireFaultIfNeeded()
        switch storage[relationship.slot] {
        case let object as NSManagedObject: return [object.objectID]
        case let id as NSManagedObjectID: return [id]
        default: return []
        }
    }

    /// Identity, as Core Data requires (subclasses must not override it). Spelled out
    /// because the inherited `NSObject` equality boxes its argument on every set insert.
    public final override func isEqual(_ object: Any?) -> Bool {
        guard let object else { return false }
        // Hashed collections call this for every occupied bucket they probe. A value of
        // exactly this object's class is compared by address; anything else takes the cast.
        func isSelf<T>(_ value: T) -> Bool {
            if T.self == type(of: self) { return unsafeBitCast(value, to: AnyObject.self) === self }
            return (value as? NSManagedObject) === self
        }
        return _openExistential(object, do: isSelf)
    }

    /// The identity's hash, matching ``isEqual(_:)``: the address itself, since every
    /// hashed collection mixes `hash` through its own hasher again.
    public final override var hash: Int { Int(bitPattern: UInt(bitPattern: ObjectIdentifier(self))) }

    /// The object's class and address, entity, object ID and, unless it is a fault, its
    /// values, as Core Data prints managed objects.
    open override var description: String {
        let address = String(UInt(bitPattern: ObjectIdentifier(self)), radix: 16)
        let name = entity.name ?? "?"
        guard !isFaultStorage else {
            return
                "<\(type(of: self)): 0x\(address)> (entity: \(name); id: \(objectID.uriRepresentation().absoluteString); data: <fault>)"
        }
        let data = entityFacts.slots.map { property -> String in
            "    \(property.name) = \(describeSlot(property));"
        }.joined(separator: "\n")
        return
            "<\(type(of: self)): 0x\(address)> (entity: \(name); id: \(objectID.uriRepresentation().absoluteString); data: {\n\(data)\n})"
    }

    private func describeSlot(_ property: NSPropertyDescription) -> String {
        switch storage[property.slot] {
        case nil:
            return (property as? NSRelationshipDescription)?.isToMany == true && !isUnsaved
                ? "<relationship fault>" : "nil"
        case let object as NSManagedObject:
            return object.objectID.uriRepresentation().absoluteString
        case let id as NSManagedObjectID:
            return id.uriRepresentation().absoluteString
        case let many as ToManyRelationship:
            return "(" + many.members.map { $0.objectID.uriRepresentation().absoluteString }.joined(separator: ", ")
                + ")"
        case let value?:
            return value is String ? "\"\(value)\"" : "\(value)"
        }
    }
}
