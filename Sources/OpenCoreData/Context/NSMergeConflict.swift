/// One optimistic-locking conflict a save met: the row of ``sourceObject`` changed (or
/// was deleted) in the store since the context read it.
///
/// Merge policies read it to decide what to keep. Snapshots hold every attribute and
/// to-one relationship (as `NSManagedObjectID`s; `NSNull` for nil), never to-manys.
open class NSMergeConflict: NSObject, @unchecked Sendable {
    /// The object whose save met the conflict.
    public let sourceObject: NSManagedObject
    /// The object's values in memory, unsaved changes included, when the conflict was found.
    public let objectSnapshot: [String: Any]?
    /// The values the object was read with (the coordinator's snapshot at its old version).
    public let cachedSnapshot: [String: Any]?
    /// The values in the store now; `nil` when the row was deleted.
    public let persistedSnapshot: [String: Any]?
    /// The row's version in the store now (`Z_OPT`); 0 when the row was deleted.
    public let newVersionNumber: Int
    /// The version the object was read with.
    public let oldVersionNumber: Int
    /// The stored row behind `persistedSnapshot`, for the standard resolutions.
    let persistedRow: StoreRow?

    /// A conflict for `srcObject` between version `oldvers` (values `cachesnap`) and
    /// version `newvers` in the store (values `persnap`; version 0 and `nil` for a deleted row).
    public init(source srcObject: NSManagedObject, newVersion newvers: Int, oldVersion oldvers: Int, cachedSnapshot cachesnap: [String: Any]?, persistedSnapshot persnap: [String: Any]?) {
        sourceObject = srcObject
        objectSnapshot = srcObject.isFaultStorage ? nil : ConflictSnapshot.dictionary(srcObject.storage, of: srcObject.entity)
        cachedSnapshot = cachesnap
        persistedSnapshot = persnap
        newVersionNumber = newvers
        oldVersionNumber = oldvers
        persistedRow = nil
    }

    /// The conflict a save found for `object`, whose row in the store is now `row`.
    init(object: NSManagedObject, row: StoreRow?) {
        sourceObject = object
        objectSnapshot = ConflictSnapshot.dictionary(object.storage, of: object.entity)
        cachedSnapshot = object.committed.map { ConflictSnapshot.dictionary($0, of: object.entity) }
        persistedSnapshot = row.map { ConflictSnapshot.dictionary($0.values, of: object.entity) }
        newVersionNumber = Int(row?.version ?? 0)
        oldVersionNumber = Int(object.storedVersion)
        persistedRow = row
    }

    open override var description: String {
        "<NSMergeConflict: \(sourceObject.objectID.uriRepresentation().absoluteString), version \(oldVersionNumber) → \(newVersionNumber)>"
    }
}

/// Snapshot dictionaries in the form conflicts hand them out.
enum ConflictSnapshot {
    /// Attributes (public values) and to-ones (IDs) of slot-indexed `values`; `NSNull` for nil.
    static func dictionary(_ values: [Any?], of entity: NSEntityDescription) -> [String: Any] {
        var result: [String: Any] = [:]
        for property in entity.facts.slots where !property.isTransient && property.slot < values.count {
            switch property {
            case let relationship as NSRelationshipDescription:
                guard !relationship.isToMany else { continue }
                result[property.name] = NSManagedObject.objectID(of: values[property.slot]) ?? NSNull()
            case let attribute as NSAttributeDescription:
                result[property.name] = values[property.slot].map { AttributeValue.publicValue($0, type: attribute.attributeType) } ?? NSNull()
            default:
                continue
            }
        }
        return result
    }
}
