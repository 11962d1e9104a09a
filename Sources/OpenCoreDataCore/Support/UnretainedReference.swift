#if !canImport(ObjectiveC)
internal import OpenCoreDataRuntimeShims
#endif

/// A reference that, like `weak`, does not keep its object alive, but costs the object nothing.
///
/// A `weak` reference moves its object's reference count into a separately allocated
/// side table, and from then on every retain and release of that object takes the
/// runtime's slow path. The registry and the row cache reference every object and
/// every snapshot a fetch creates, so that cost fell on the hottest paths (a quarter
/// of a fetch's time). Core Data's own tables work the same way: unretained entries,
/// removed by the object as it deallocates.
///
/// The contract that makes it safe: whoever holds these references guards them with a
/// lock, calls ``load()`` only under that lock, and the object's `deinit` removes
/// every reference to itself under the same lock. The object's memory then outlives
/// every reference a reader can see, and ``load()`` refuses an object whose
/// deinitialization has begun (it may still be waiting for the lock).
///
/// On Apple platforms `NSObject` subclasses use the Objective-C runtime's reference
/// counts, so there the reference is an ordinary `weak` one (same behaviour, slower).
///
/// Sendable because it is only an identity (an address): reading it is what the lock guards.
struct UnretainedReference<Object: AnyObject>: @unchecked Sendable {
    private let identity: ObjectIdentifier
    #if canImport(ObjectiveC)
    private weak var object: Object?
    #endif

    init(_ object: Object) {
        identity = ObjectIdentifier(object)
        #if canImport(ObjectiveC)
        self.object = object
        #endif
    }

    /// The object, retained, unless its deinitialization has begun. Call under the owner's lock.
    func load() -> Object? {
        #if canImport(ObjectiveC)
        return object
        #else
        let address = UnsafeMutableRawPointer(bitPattern: UInt(bitPattern: identity))!
        guard opencoredata_try_retain(address) else { return nil }
        return Unmanaged<Object>.fromOpaque(address).takeRetainedValue()
        #endif
    }

    /// The referenced object's identity (its address), usable after the object is gone.
    var objectIdentity: ObjectIdentifier { identity }

    /// Whether this references the object with `identity` (`ObjectIdentifier(object)`,
    /// safe to take in the object's `deinit`: nothing is retained).
    func refers(to identity: ObjectIdentifier) -> Bool { self.identity == identity }
}
