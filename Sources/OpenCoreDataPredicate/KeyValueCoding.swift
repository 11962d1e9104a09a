/// A value that exposes its properties by key, as Foundation's key-value coding does.
///
/// Predicates, expressions and sort descriptors reach into objects through this
/// protocol because Foundation on Linux has no Objective-C runtime to look
/// properties up by name.
public protocol KeyValueCoding {
    /// Returns the value of the property named `key`, or `nil` when it has none.
    func value(forKey key: String) -> Any?
}

/// A value whose equality in predicates is decided by an identity rather than by
/// its contents.
///
/// When both sides of an equality conform, they are equal exactly when their
/// identities are equal. This lets a managed object compare equal to its object ID.
package protocol ObjectIdentityComparable {
    /// The identity compared by predicate equality.
    var comparisonIdentity: AnyHashable { get }
}
