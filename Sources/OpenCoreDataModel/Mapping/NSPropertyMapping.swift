/// How one destination property gets its value during a migration.
open class NSPropertyMapping: NSObject, @unchecked Sendable {
    /// The destination property's name.
    open var name: String?
    /// The expression that computes the value from `$source` (and `$manager`);
    /// `nil` leaves the property at its default.
    open var valueExpression: NSExpression?
    /// Anything the app keeps with the mapping.
    open var userInfo: [AnyHashable: Any]?

    /// The source property an inferred mapping copies (what `valueExpression` reads),
    /// kept so a store can copy the value without evaluating the expression per object.
    package var sourcePropertyName: String?

    // MARK: Equality

    /// Whether `object` is a property mapping with the same name, value expression and user info.
    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? NSPropertyMapping else { return false }
        if other === self { return true }
        return name == other.name && valueExpression == other.valueExpression
            && MappingUserInfo.equal(userInfo, other.userInfo)
    }

    /// A hash consistent with ``isEqual(_:)``.
    open override var hash: Int { name?.hashValue ?? 0 }
}
