/// One optimistic-locking conflict a save met: the state of ``sourceObject`` changed (or
/// was deleted) in the context's source since the context read it.
///
/// The source is the store for a context on a coordinator: then ``persistedSnapshot``
/// holds the row as stored now. For a child context it is the parent context: then
/// ``persistedSnapshot`` is `nil` and ``cachedSnapshot`` holds the parent's values now
/// (``newVersionNumber`` 0 and no snapshot when the parent deleted the object).
///
/// Merge policies read it to decide what to keep. Snapshots hold every attribute and
/// to-one relationship (as `NSManagedObjectID`s; `NSNull` for nil), never to-manys.
open class NSMergeConflict: NSObject, @unchecked Sendable {
    /// The object whose save met the conflict.
    public let sourceObject: NSManagedObject
    /// The object's values in memory, unsaved changes included, when the conflict was found.
    public let objectSnapshot: [String: Any]?
    /// For a store conflict, the values the object was read with; for a conflict with a
    /// parent context, the parent's values now (`nil` when the parent deleted the object).
    public let cachedSnapshot: [String: Any]?
    /// The values in the store now; `nil` when the row was deleted, and for a conflict
    /// with a parent context.
    public let persistedSnapshot: [String: Any]?
    /// The version in the source now: the row's `Z_OPT`, or the version of the parent's
    /// object; 0 when the row or the parent's object was deleted.
    public let newVersionNumber: Int
    /// The version the object was read with.
    public let oldVersionNumber: Int
    /// The source's state behind the snapshots (the stored row, or the parent's values),
    /// for the standard resolutions; `nil` when it was deleted or is not known.
    let currentRow: StoreRow?
    /// Whether the conflict is with the parent context rather than the store.
    let isWithParent: Bool

    /// A conflict for `srcObject` between version `oldvers` (values `cachesnap`) and
    /// version `newvers` in the store (values `persnap`; version 0 and `nil` for a deleted row).
    public init(
        source srcObject: NSManagedObject, newVersion newvers: Int, oldVersion oldvers: Int,
        cachedSnapshot cachesnap: [String: Any]?, persistedSnapshot persnap: [String: Any]?
    ) {
        sourceObject = srcObject
        objectSnapshot =
            srcObject.isFaultStorage ? nil : ConflictSnapshot.dictionary(srcObject.storage, of: srcObject.entity)
        cachedSnapshot = cachesnap
        persistedSnapshot = persnap
        newVersionNumber = newvers
        oldVersionNumber = oldvers
        currentRow = nil
        isWithParent = false
    }

    /// The conflict a save found for `object`, whose state in its context's source is now
    /// `row`: a stored row, or the parent's values when `withParent`.
    init(object: NSManagedObject, row: StoreRow?, withParent: Bool) {
        sourceObject = object
        objectSnapshot = ConflictSnapshot.dictionary(object.storage, of: object.entity)
        let current = row.map { ConflictSnapshot.dictionary($0.values, of: object.entity) }
        if withParent {
            cachedSnapshot = current
            persistedSnapshot = nil
        } else {
            cachedSnapshot = object.committed.map { ConflictSnapshot.dictionary($0, of: object.entity) }
            persistedSnapshot = current
        }
        // 0 says "deleted"; a parent's unsaved new object has no version yet, so it counts as 1.
        newVersionNumber = row.map { max(Int($0.version), 1) } ?? 0
        oldVersionNumber = Int(object.storedVersion)
        currentRow = row
        isWithParent = withParent
    }

    open override var description: String {
        "<NSMergeConflict: \(sourceObject.objectID.uriRepresentation().absoluteString), version \(oldVersionNumber) → \(newVersionNumber)>"
    }
}

/// Snapshot dictionaries in the form conflicts hand them out.
enum ConflictSnapshot {
    /// Attributes (public values) and to-ones (IDs) of slot-indexed `values`; `NSNull` for nil.
    static func dictionary(_ values: SlotValues, of entity: NSEntityDescription) -> [String: Any] {
        var result: [String: Any] = [:]
        for property in entity.facts.slots where !property.isTransient && property.slot < values.count {
            switch property {
            case let relationship as NSRelationshipDescription:
                guard !relationship.isToMany else { continue }
                result[property.name] = NSManagedObject.objectID(of: values[property.slot]) ?? NSNull()
            case let attribute as NSAttributeDescription:
                result[property.name] =
                    values[property.slot].map { AttributeValue.publicValue($0, type: attribute.attributeType) }
                    ?? NSNull()
            default:
                continue
            }
        }
        return result
    }
}
