/// A store error that kept a context from reading an object's values or one of its
/// to-many relationships: the object is not saved while it stands (its values were never read).
struct FaultFailure {
    let object: NSManagedObject
    let error: any Error
}

// What a context does when a fault cannot be filled. Core Data raises an exception from the
// property access that fired it; Swift has no exceptions, and a made-up value (the model's
// default, an empty relationship) would pass for stored data and could be saved over the
// row. So the object reads `nil` or 0, stays a fault (the next access tries again), the
// error is kept where code can ask for it, and a save that would write the object throws.
extension NSManagedObjectContext {
    /// The store errors that kept this context from filling faults or loading to-many
    /// relationships, by the ID of the object concerned (an OpenCoreData addition).
    ///
    /// Core Data raises an exception from the property access that fires such a fault;
    /// here that access reads `nil` or 0, the object stays a fault (so ``NSManagedObject/isFault``
    /// says its values are not loaded) and its error is listed here until a later access
    /// reads it, it is refreshed, or the context is reset. A save that would write or delete
    /// such an object throws. A row deleted meanwhile is not a store error: see
    /// ``shouldHandleInaccessibleFault(_:for:triggeredByProperty:)``. To read an object or
    /// get the error at once, call ``existingObject(with:)``, which throws.
    public var faultingErrors: [NSManagedObjectID: any Error] {
        var errors: [NSManagedObjectID: any Error] = [:]
        for failure in faultFailures.values { errors[failure.object.objectID] = failure.error }
        return errors
    }

    /// Records that the store failed to give `object`'s values (or members): what it
    /// holds is cleared to `nil` but for changes made here, so nothing read afterwards
    /// looks like stored data.
    func noteFaultFailure(of object: NSManagedObject, _ error: any Error) {
        if object.isFaultStorage { object.clearUnreadValues() }
        faultFailures[ObjectIdentifier(object)] = FaultFailure(object: object, error: error)
    }

    /// A fault whose row is gone: deleted with `nil` values, or kept a fault that saves refuse,
    /// as ``shouldHandleInaccessibleFault(_:for:triggeredByProperty:)`` answers.
    func handleInaccessibleFault(_ object: NSManagedObject, triggeredBy key: String?) {
        object.clearUnreadValues()
        let property = key.flatMap { object.entityFacts.propertiesByName[$0] }
        if shouldHandleInaccessibleFault(object, for: object.objectID, triggeredByProperty: property) {
            object.isFaultStorage = false
            object.lifecycle = .deleted
            return
        }
        let missing = CoreDataError.make(
            NSManagedObjectReferentialIntegrityError,
            "The store has no row for \(object.objectID.uriRepresentation().absoluteString) (deleted elsewhere), so its fault could not be filled",
            [NSAffectedObjectsErrorKey: [object.objectID]])
        faultFailures[ObjectIdentifier(object)] = FaultFailure(object: object, error: missing)
    }

    /// Forgets the failure of an object whose values are discarded (refreshed or reset).
    func forgetFaultFailure(of object: NSManagedObject) {
        if !faultFailures.isEmpty { faultFailures[ObjectIdentifier(object)] = nil }
    }

    /// Forgets `object`'s failure once nothing of it is left unread: its values are loaded
    /// and no to-many stands in for members the store failed to give.
    func noteRead(_ object: NSManagedObject) {
        guard !faultFailures.isEmpty, !object.isFaultStorage, !object.hasUnreadMembers else { return }
        faultFailures[ObjectIdentifier(object)] = nil
    }

    /// Throws when a save would write or delete an object whose values or members the
    /// store failed to give: writing it would put made-up values over the stored row.
    func refuseUnreadChanges() throws {
        guard !faultFailures.isEmpty else { return }
        let blocked = faultFailures.values.filter { failure in
            let object = failure.object
            return updatedSet.contains(object) || deletedSet.contains(object) || insertedSet.contains(object)
        }
        guard let first = blocked.first else { return }
        let names = blocked.prefix(5).map { $0.object.objectID.uriRepresentation().absoluteString }.joined(
            separator: ", ")
        throw CoreDataError.make(
            NSPersistentStoreSaveError,
            "\(blocked.count) changed object\(blocked.count == 1 ? "" : "s") could not be read from the store (\(names)\(blocked.count > 5 ? ", …" : "")), so saving them would overwrite stored values: \((first.error as NSError).localizedDescription)",
            [NSAffectedObjectsErrorKey: blocked.map(\.object), NSUnderlyingErrorKey: first.error as NSError])
    }
}
