/// The standard rules a merge policy can follow when a save meets conflicts.
///
/// A conflict is either an optimistic-locking conflict (the row changed or vanished
/// since the context read it) or a uniqueness-constraint conflict (two objects would
/// share constrained values). The raw values are Core Data's.
public enum NSMergePolicyType: UInt, Sendable {
    /// Fail the save with `NSManagedObjectMergeError` or `NSManagedObjectConstraintMergeError`: the default.
    case errorMergePolicyType = 0
    /// Merge property by property; where both sides changed a property, the store's value wins.
    case mergeByPropertyStoreTrumpMergePolicyType = 1
    /// Merge property by property; where both sides changed a property, the in-memory value wins.
    case mergeByPropertyObjectTrumpMergePolicyType = 2
    /// Write the whole in-memory object over the stored one.
    case overwriteMergePolicyType = 3
    /// Discard the in-memory changes of the objects in conflict and keep the stored state.
    case rollbackMergePolicyType = 4
}

/// Decides how a save settles conflicts between a context's objects and the store.
///
/// Set one on `NSManagedObjectContext.mergePolicy`. The five shared policies follow
/// the standard rules; subclass and override ``resolve(optimisticLockingConflicts:)``
/// or ``resolve(constraintConflicts:)`` for rules of your own (call `super` to fall back
/// on the policy's type). A save asks the policy through ``resolve(mergeConflicts:)``
/// with every conflict it found, then checks again: conflicts a policy leaves in place
/// are found again, and after a few rounds the save fails with them rather than
/// writing over a change it has not seen.
open class NSMergePolicy: NSObject, @unchecked Sendable {
    private let type: NSMergePolicyType

    /// The rule this policy follows.
    open var mergeType: NSMergePolicyType { type }

    /// A policy following `ty`; subclasses call it to pick the rule `super` applies.
    public init(merge ty: NSMergePolicyType) {
        type = ty
        super.init()
    }

    /// The shared policy that fails saves with conflicts (the default of every context).
    open class var error: NSMergePolicy { SharedMergePolicies.error }
    /// The shared policy that discards the in-memory changes of conflicting objects.
    open class var rollback: NSMergePolicy { SharedMergePolicies.rollback }
    /// The shared policy that writes conflicting objects' whole in-memory state.
    open class var overwrite: NSMergePolicy { SharedMergePolicies.overwrite }
    /// The shared property-by-property policy in which in-memory changes win.
    open class var mergeByPropertyObjectTrump: NSMergePolicy { SharedMergePolicies.objectTrump }
    /// The shared property-by-property policy in which the store's changes win.
    open class var mergeByPropertyStoreTrump: NSMergePolicy { SharedMergePolicies.storeTrump }

    /// Resolves a save's conflicts: `NSMergeConflict`s go to
    /// ``resolve(optimisticLockingConflicts:)`` and then `NSConstraintConflict`s to
    /// ``resolve(constraintConflicts:)``. Other elements are ignored.
    ///
    /// - Parameter list: The save's conflicts.
    /// - Throws: The error policy's error, or what the two methods it calls throw.
    open func resolve(mergeConflicts list: [Any]) throws {
        let locking = list.compactMap { $0 as? NSMergeConflict }
        let constraints = list.compactMap { $0 as? NSConstraintConflict }
        if !locking.isEmpty { try resolve(optimisticLockingConflicts: locking) }
        if !constraints.isEmpty { try resolve(constraintConflicts: constraints) }
    }

    /// Settles objects whose rows (or, in a child context, whose state in the parent
    /// context) changed or vanished since they were read, by ``mergeType``.
    ///
    /// The error policy throws `NSManagedObjectMergeError` with the conflicts under
    /// `"conflictList"`. The others change the objects in memory so the save can go on:
    /// property merges take the stored value of every property the object did not
    /// change, and of the ones both sides changed the object's (object trump) or the
    /// store's (store trump); overwrite keeps every in-memory value; rollback reloads the
    /// stored values. A row deleted elsewhere stays deleted: the object becomes deleted in
    /// its context. A deleted object whose row changed is deleted anyway by the object
    /// trump and overwrite policies, and restored from the store by the others. In a
    /// child context "the store" is the parent: its values win under store trump, and
    /// rollback reloads from it. Inverse relationships follow every to-one a resolution
    /// changes, so the object graph stays consistent.
    ///
    /// - Parameter list: The conflicts: objects whose rows changed or vanished.
    /// - Throws: `NSManagedObjectMergeError` under the error policy; the save then fails.
    open func resolve(optimisticLockingConflicts list: [NSMergeConflict]) throws {
        guard !list.isEmpty else { return }
        if type == .errorMergePolicyType { throw MergeResolution.lockingError(list) }
        for conflict in list { try MergeResolution.resolve(conflict, type) }
    }

    /// Settles uniqueness-constraint conflicts, by ``mergeType``.
    ///
    /// The error policy throws `NSManagedObjectConstraintMergeError` with the conflicts
    /// under `"conflictList"`. The others keep one object per constrained value: the
    /// stored one when the store has it (the save becomes an update of that row, an
    /// upsert), else the first conflicting object already saved, else the first inserted.
    /// The others' to-many members move to it and they are deleted. Their values reach it
    /// by the policy: object trump copies every property they set, overwrite copies all
    /// their properties, store trump fills only properties it has no value for, rollback
    /// copies nothing and moves no members.
    ///
    /// - Parameter list: The conflicts, one per duplicated constrained value.
    /// - Throws: `NSManagedObjectConstraintMergeError` under the error policy; the save then fails.
    open func resolve(constraintConflicts list: [NSConstraintConflict]) throws {
        guard !list.isEmpty else { return }
        if type == .errorMergePolicyType { throw MergeResolution.constraintError(list) }
        for conflict in list { MergeResolution.resolve(conflict, type) }
    }

    open override var description: String {
        "<\(Swift.type(of: self)): \(type)>"
    }
}

/// The shared instances behind the class properties and the global constants.
private enum SharedMergePolicies {
    static let error = NSMergePolicy(merge: .errorMergePolicyType)
    static let rollback = NSMergePolicy(merge: .rollbackMergePolicyType)
    static let overwrite = NSMergePolicy(merge: .overwriteMergePolicyType)
    static let objectTrump = NSMergePolicy(merge: .mergeByPropertyObjectTrumpMergePolicyType)
    static let storeTrump = NSMergePolicy(merge: .mergeByPropertyStoreTrumpMergePolicyType)
}

/// The default merge policy: saves with conflicts fail (same object as `NSMergePolicy.error`).
nonisolated(unsafe) public let NSErrorMergePolicy: AnyObject = NSMergePolicy.error
/// Property-by-property merging in which the store's changes win (`NSMergePolicy.mergeByPropertyStoreTrump`).
nonisolated(unsafe) public let NSMergeByPropertyStoreTrumpMergePolicy: AnyObject = NSMergePolicy
    .mergeByPropertyStoreTrump
/// Property-by-property merging in which in-memory changes win (`NSMergePolicy.mergeByPropertyObjectTrump`).
nonisolated(unsafe) public let NSMergeByPropertyObjectTrumpMergePolicy: AnyObject = NSMergePolicy
    .mergeByPropertyObjectTrump
/// Writes the whole in-memory object over the stored one (`NSMergePolicy.overwrite`).
nonisolated(unsafe) public let NSOverwriteMergePolicy: AnyObject = NSMergePolicy.overwrite
/// Discards in-memory changes of conflicting objects (`NSMergePolicy.rollback`).
nonisolated(unsafe) public let NSRollbackMergePolicy: AnyObject = NSMergePolicy.rollback
