/// What executing an ``NSBatchInsertRequest`` returns; raw values are Core Data's.
public enum NSBatchInsertRequestResultType: UInt, Sendable {
    /// `true` when the insert succeeded.
    case statusOnly = 0
    /// The `[NSManagedObjectID]` of the rows written.
    case objectIDs = 1
    /// The number of rows written.
    case count = 2
}

/// Inserts many objects straight into the store, without creating managed objects
/// in a context: one prepared `INSERT` reused for every row, in one transaction.
///
/// Give the rows as dictionaries of attribute name → value, or produce them one at a
/// time with a handler that fills a dictionary or a managed object and returns
/// `true` to stop (the row of that call is not inserted). Values are checked against
/// the attribute types; missing attributes take their default values. Relationships
/// cannot be set. On an entity with uniqueness constraints, a row whose constrained
/// values match a stored row updates that row instead (see docs/DEVIATIONS.md).
///
/// Contexts do not see the new rows until they fetch again or merge the IDs with
/// ``NSManagedObjectContext/mergeChanges(fromRemoteContextSave:into:)``.
open class NSBatchInsertRequest: NSPersistentStoreRequest, @unchecked Sendable {
    /// The name of the entity to insert into.
    public let entityName: String
    /// The entity to insert into, when the request was made with one.
    public let entity: NSEntityDescription?
    /// The rows to insert: attribute name → value.
    open var objectsToInsert: [[String: Any]]?
    /// Fills one row per call; returns `true` to stop (that call's row is dropped).
    open var dictionaryHandler: ((NSMutableDictionary) -> Bool)?
    /// Sets the attributes of one new object per call (an object in no context);
    /// returns `true` to stop (that call's object is dropped).
    open var managedObjectHandler: ((NSManagedObject) -> Bool)?
    /// What the result holds. Default `.statusOnly`.
    open var resultType: NSBatchInsertRequestResultType = .statusOnly

    /// A batch insert.
    open override var requestType: NSPersistentStoreRequestType { .batchInsertRequestType }

    private init(entityName: String, entity: NSEntityDescription?) {
        self.entityName = entityName
        self.entity = entity
        super.init()
    }

    /// Inserts `dictionaries` (attribute name → value) into `entity`.
    public convenience init(entity: NSEntityDescription, objects dictionaries: [[String: Any]]) {
        self.init(entityName: entity.name ?? "", entity: entity)
        objectsToInsert = dictionaries
    }

    /// Inserts `dictionaries` (attribute name → value) into the entity named `entityName`.
    public convenience init(entityName: String, objects dictionaries: [[String: Any]]) {
        self.init(entityName: entityName, entity: nil)
        objectsToInsert = dictionaries
    }

    /// Inserts the rows `handler` fills until it returns `true`.
    public convenience init(
        entity: NSEntityDescription, dictionaryHandler handler: @escaping (NSMutableDictionary) -> Bool
    ) {
        self.init(entityName: entity.name ?? "", entity: entity)
        dictionaryHandler = handler
    }

    /// Inserts the rows `handler` fills until it returns `true`.
    public convenience init(entityName: String, dictionaryHandler handler: @escaping (NSMutableDictionary) -> Bool) {
        self.init(entityName: entityName, entity: nil)
        dictionaryHandler = handler
    }

    /// Inserts the attribute values `handler` sets on a fresh object per call, until it returns `true`.
    public convenience init(
        entity: NSEntityDescription, managedObjectHandler handler: @escaping (NSManagedObject) -> Bool
    ) {
        self.init(entityName: entity.name ?? "", entity: entity)
        managedObjectHandler = handler
    }

    /// Inserts the attribute values `handler` sets on a fresh object per call, until it returns `true`.
    public convenience init(entityName: String, managedObjectHandler handler: @escaping (NSManagedObject) -> Bool) {
        self.init(entityName: entityName, entity: nil)
        managedObjectHandler = handler
    }

    /// The request in the store's terms: every row produced and checked (handlers run here).
    func storeRequest(in model: NSManagedObjectModel) throws -> StoreBatchInsert {
        let target = try BatchRequestEntity.resolve(entity, name: entityName, in: model, request: "batch insert")
        if target.isAbstract {
            throw CoreDataError.make(
                NSCoreDataError, "Cannot batch insert into abstract entity '\(target.name ?? "?")'")
        }
        var rows = BatchInsertRows(entity: target)
        if let objectsToInsert {
            for dictionary in objectsToInsert { try rows.append(dictionary) }
        } else if let dictionaryHandler {
            while true {
                let dictionary = NSMutableDictionary()
                if dictionaryHandler(dictionary) { break }
                try rows.append(dictionary)
            }
        } else if let managedObjectHandler {
            while true {
                let object = target.instantiate(insertInto: nil)
                if managedObjectHandler(object) { break }
                try rows.append(object)
            }
        }
        return StoreBatchInsert(
            entity: target, attributes: rows.attributes, rows: rows.values, wantsObjectIDs: resultType == .objectIDs)
    }
}
