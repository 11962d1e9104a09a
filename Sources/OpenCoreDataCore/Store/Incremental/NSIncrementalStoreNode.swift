/// One object's values as an ``NSIncrementalStore`` hands them to Core Data: what
/// ``NSIncrementalStore/newValuesForObject(with:with:)`` returns when a fault fires.
///
/// Values are keyed by property name: attributes as their values (numbers, strings,
/// dates, data, …), a to-one relationship as the destination's `NSManagedObjectID` (or
/// `NSNull` for none), a to-many as an array or set of IDs (an empty collection for none).
/// A relationship left out is asked for later with
/// ``NSIncrementalStore/newValue(forRelationship:forObjectWith:with:)``; an attribute left
/// out is `nil`. Keys the entity does not model are dropped.
open class NSIncrementalStoreNode: NSObject, @unchecked Sendable {
    /// The object the values belong to.
    public let objectID: NSManagedObjectID
    /// The revision of these values: the store raises it with each save of the object, and
    /// a save whose object was read at an older revision is a conflict.
    open private(set) var version: UInt64
    /// The modeled values by property name.
    private var values: [String: Any]

    /// A node of `values` at revision `version` for the object `objectID` names.
    ///
    /// - Parameters:
    ///   - objectID: An ID the store made with ``NSIncrementalStore/newObjectID(for:referenceObject:)``.
    ///   - values: Values by property name, as the type describes.
    ///   - version: The revision of the values (1 for an object saved once).
    public init(objectID: NSManagedObjectID, withValues values: [String: Any], version: UInt64) {
        self.objectID = objectID
        self.version = version
        self.values = Self.modeled(values, of: objectID.entity)
        super.init()
    }

    /// Replaces the values and the revision (a store keeping nodes refreshes them in place).
    ///
    /// - Parameters:
    ///   - values: The new values by property name; properties left out become unknown.
    ///   - version: Their revision.
    open func update(withValues values: [String: Any], version: UInt64) {
        self.values = Self.modeled(values, of: objectID.entity)
        self.version = version
    }

    /// The value the node holds for `prop`, `nil` when it holds none (`NSNull` stays, for
    /// a to-one the store said is empty).
    ///
    /// - Parameter prop: A property of the node's entity.
    /// - Returns: The value.
    open func value(for prop: NSPropertyDescription) -> Any? {
        values[prop.name]
    }

    /// Whether the node says anything about `name` (a missing relationship is loaded lazily).
    func holdsValue(forKey name: String) -> Bool { values[name] != nil }

    private static func modeled(_ values: [String: Any], of entity: NSEntityDescription) -> [String: Any] {
        let properties = entity.propertiesByName
        return values.filter { properties[$0.key] != nil }
    }

    open override var description: String {
        "<\(Swift.type(of: self)): \(objectID.uriRepresentation().absoluteString) v\(version)>"
    }
}
