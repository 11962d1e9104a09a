/// What a persistent-history change did to its object.
public enum NSPersistentHistoryChangeType: Int, Sendable {
    /// The object was inserted.
    case insert = 0
    /// Some of the object's properties changed.
    case update = 1
    /// The object was deleted.
    case delete = 2
}

/// One object's insertion, update or deletion in one history transaction.
open class NSPersistentHistoryChange: NSObject, KeyValueCoding, @unchecked Sendable {
    /// The change's number, unique in its store and increasing with time.
    public let changeID: Int64
    /// The object that changed.
    public let changedObjectID: NSManagedObjectID
    /// Insert, update or delete.
    public let changeType: NSPersistentHistoryChangeType
    /// For deletions, the values of the attributes marked
    /// ``/OpenCoreDataModel/NSAttributeDescription/preservesValueInHistoryOnDeletion``, by name; otherwise `nil`.
    public let tombstone: [AnyHashable: Any]?
    /// For updates, the properties whose stored values changed; otherwise `nil`.
    public let updatedProperties: Set<NSPropertyDescription>?
    /// The transaction the change belongs to. Weak, as in Core Data: the transaction
    /// holds its changes, so keep the transaction while you use them.
    public package(set) weak var transaction: NSPersistentHistoryTransaction?

    package init(
        changeID: Int64, changedObjectID: NSManagedObjectID, changeType: NSPersistentHistoryChangeType,
        tombstone: [AnyHashable: Any]?, updatedProperties: Set<NSPropertyDescription>?
    ) {
        self.changeID = changeID
        self.changedObjectID = changedObjectID
        self.changeType = changeType
        self.tombstone = tombstone
        self.updatedProperties = updatedProperties
        super.init()
    }

    /// The entity of history changes, for a fetch request that filters them (by
    /// `changeType`, `changedEntity`, `changedObjectID`, `changeID`, `transaction`, …).
    open class var entityDescription: NSEntityDescription? { PersistentHistoryEntities.change }

    /// ``entityDescription``; the context is not needed to find it.
    open class func entityDescription(with context: NSManagedObjectContext) -> NSEntityDescription? {
        entityDescription
    }

    /// A fetch request on ``entityDescription``: give it a predicate and set it as an
    /// ``NSPersistentHistoryChangeRequest``'s `fetchRequest` to keep only matching changes.
    open class var fetchRequest: NSFetchRequest<NSFetchRequestResult>? {
        PersistentHistoryEntities.fetchRequest(for: PersistentHistoryEntities.change)
    }

    /// Key-value access for predicates. `changedEntity` is the changed object's entity.
    public func value(forKey key: String) -> Any? {
        switch key {
        case "changeID": changeID
        case "changedObjectID", "changedObject": changedObjectID
        case "changedEntity": changedObjectID.entity
        case "changeType": changeType.rawValue
        case "tombstone": tombstone
        case "updatedProperties": updatedProperties
        case "transaction": transaction
        default: nil
        }
    }

    /// The change's kind, object and number, for debugging.
    open override var description: String {
        "<NSPersistentHistoryChange \(changeID) \(changeType) \(changedObjectID)>"
    }
}
