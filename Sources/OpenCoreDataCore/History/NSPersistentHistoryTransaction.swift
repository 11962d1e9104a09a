/// The changes one save or batch request made to a store, as its persistent history
/// recorded them.
open class NSPersistentHistoryTransaction: NSObject, KeyValueCoding, @unchecked Sendable {
    /// When the transaction was committed.
    public let timestamp: Date
    /// The changes, in the order they were recorded; `nil` when the request asked for
    /// transactions only.
    public package(set) var changes: [NSPersistentHistoryChange]?
    /// The transaction's number, increasing with time in its store.
    public let transactionNumber: Int64
    /// The UUID of the store the transaction changed.
    public let storeID: String
    /// The bundle identifier (or, without one, the executable name) of the process that wrote it.
    public let bundleID: String
    /// The identifier of the process that wrote it.
    public let processID: String
    /// The writing context's ``NSManagedObjectContext/name``.
    public let contextName: String?
    /// The writing context's ``NSManagedObjectContext/transactionAuthor``.
    public let author: String?
    /// The token marking this transaction: fetch the history after it to get what came next.
    public let token: NSPersistentHistoryToken

    package init(
        timestamp: Date, transactionNumber: Int64, storeID: String, bundleID: String, processID: String,
        contextName: String?, author: String?
    ) {
        self.timestamp = timestamp
        self.transactionNumber = transactionNumber
        self.storeID = storeID
        self.bundleID = bundleID
        self.processID = processID
        self.contextName = contextName
        self.author = author
        token = NSPersistentHistoryToken(transactionNumbers: [storeID: transactionNumber])
        super.init()
    }

    /// A did-save notification listing the transaction's object IDs as inserted, updated
    /// and deleted, to pass to ``NSManagedObjectContext/mergeChanges(fromContextDidSave:)``.
    ///
    /// Empty when the transaction was fetched without its changes.
    open func objectIDNotification() -> Notification {
        var inserted = Set<NSManagedObjectID>(), updated = Set<NSManagedObjectID>(), deleted = Set<NSManagedObjectID>()
        for change in changes ?? [] {
            switch change.changeType {
            case .insert: inserted.insert(change.changedObjectID)
            case .update: updated.insert(change.changedObjectID)
            case .delete: deleted.insert(change.changedObjectID)
            }
        }
        // An object inserted and changed again in one batch is simply inserted.
        updated.subtract(inserted)
        return Notification(
            name: .NSManagedObjectContextDidSave, object: nil,
            userInfo: [
                NSInsertedObjectsKey: inserted, NSUpdatedObjectsKey: updated, NSDeletedObjectsKey: deleted,
            ])
    }

    /// The entity of history transactions, for a fetch request that filters them (by
    /// `author`, `contextName`, `bundleID`, `processID`, `timestamp`, `transactionNumber`, …).
    open class var entityDescription: NSEntityDescription? { PersistentHistoryEntities.transaction }

    /// ``entityDescription``; the context is not needed to find it.
    open class func entityDescription(with context: NSManagedObjectContext) -> NSEntityDescription? {
        entityDescription
    }

    /// A fetch request on ``entityDescription``: give it a predicate and set it as an
    /// ``NSPersistentHistoryChangeRequest``'s `fetchRequest` to keep only matching transactions.
    open class var fetchRequest: NSFetchRequest<NSFetchRequestResult>? {
        PersistentHistoryEntities.fetchRequest(for: PersistentHistoryEntities.transaction)
    }

    /// Key-value access for predicates and sort descriptors.
    public func value(forKey key: String) -> Any? {
        switch key {
        case "timestamp": timestamp
        case "changes": changes
        case "transactionNumber": transactionNumber
        case "storeID": storeID
        case "bundleID": bundleID
        case "processID": processID
        case "contextName": contextName
        case "author": author
        case "token": token
        default: nil
        }
    }

    /// The transaction's number, author and size, for debugging.
    open override var description: String {
        "<NSPersistentHistoryTransaction \(transactionNumber) author: \(author ?? "nil") context: \(contextName ?? "nil") changes: \(changes?.count ?? 0)>"
    }
}

/// The entities that stand for history transactions and changes in fetch requests.
/// They belong to no model; a history request only reads their names and predicates.
enum PersistentHistoryEntities {
    static let transaction = entity(named: "NSPersistentHistoryTransaction")
    static let change = entity(named: "NSPersistentHistoryChange")

    private static func entity(named name: String) -> NSEntityDescription {
        let entity = NSEntityDescription()
        entity.name = name
        entity.managedObjectClassName = name
        return entity
    }

    static func fetchRequest(for entity: NSEntityDescription) -> NSFetchRequest<NSFetchRequestResult> {
        let request = NSFetchRequest<NSFetchRequestResult>(entityName: entity.name!)
        request.entity = entity
        return request
    }
}
