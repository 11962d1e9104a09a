/// One object's record in an ``NSAtomicStore``: its ID and its values by property name.
///
/// As in Core Data, attributes are kept as their values (numbers, strings, dates, data, …)
/// and relationships as other cache nodes: a to-one as the destination's node, a to-many
/// as a set of nodes (`Set<NSAtomicStoreCacheNode>` or `NSSet`; for an ordered
/// relationship an `NSOrderedSet` or an array of nodes). Subclasses may add state of
/// their own.
open class NSAtomicStoreCacheNode: NSObject, @unchecked Sendable {
    /// The ID of the object the node stands for.
    public let objectID: NSManagedObjectID

    /// The node's values by property name; `nil` until a value is set.
    ///
    /// The store reads it when it loads and after each save callback, so a subclass may
    /// replace the whole dictionary or change it in place.
    open var propertyCache: NSMutableDictionary?

    /// Creates a node for the object `moid` names (an ID from
    /// ``NSAtomicStore/objectID(for:referenceObject:)``, or a saved object's ID).
    ///
    /// - Parameter moid: The object's ID.
    public init(objectID moid: NSManagedObjectID) {
        objectID = moid
        super.init()
    }

    /// The value kept for `key`, `nil` when there is none.
    ///
    /// - Parameter key: A property name.
    /// - Returns: The value from ``propertyCache``.
    open func value(forKey key: String) -> Any? {
        guard let value = propertyCache?[key], !(value is NSNull) else { return nil }
        return value
    }

    /// Keeps `value` for `key` in ``propertyCache`` (creating it when needed); `nil`
    /// removes the key.
    ///
    /// - Parameters:
    ///   - value: An attribute value, a node, or a collection of nodes.
    ///   - key: A property name.
    open func setValue(_ value: Any?, forKey key: String) {
        if propertyCache == nil { propertyCache = NSMutableDictionary() }
        if let value {
            propertyCache?[key] = value
        } else {
            propertyCache?.removeObject(forKey: key)
        }
    }

    open override var description: String {
        "<\(Swift.type(of: self)): \(objectID.uriRepresentation().absoluteString)>"
    }
}
