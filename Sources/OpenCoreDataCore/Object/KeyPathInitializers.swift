// The predicate language knows nothing of managed objects; these initializers, which name a
// Swift key path over a managed object class, live with the objects.

extension NSSortDescriptor {
    /// Sorts by the `@Managed` property (or chain of them) that `keyPath` reads, as
    /// `NSSortDescriptor(key:ascending:)` with that property's key: `\Book.author?.name`
    /// sorts by `"author.name"`. A key path that reads anything else (a stored Swift
    /// property, a computed one over several keys) is a programmer error that traps,
    /// as Core Data's does for a key path without an Objective-C name.
    public convenience init<Root: NSManagedObject, Value>(keyPath: KeyPath<Root, Value>, ascending: Bool) {
        self.init(
            key: KeyPathNaming.requiredName(of: keyPath, in: "NSSortDescriptor(keyPath:ascending:)"),
            ascending: ascending)
        self.keyPath = keyPath
    }

    /// Sorts by the property `keyPath` reads, using `comparator` on its values.
    public convenience init<Root: NSManagedObject, Value>(
        keyPath: KeyPath<Root, Value>, ascending: Bool, comparator: @escaping Comparator
    ) {
        self.init(
            key: KeyPathNaming.requiredName(of: keyPath, in: "NSSortDescriptor(keyPath:ascending:comparator:)"),
            ascending: ascending, comparator: comparator)
        self.keyPath = keyPath
    }
}

extension NSExpression {
    /// An expression that reads the `@Managed` property (or chain of them) `keyPath`
    /// reads: `NSExpression(forKeyPath: \Book.author?.name)` is the key path `author.name`.
    /// A key path that reads anything else traps, as Core Data's does for a key path
    /// without an Objective-C name.
    public convenience init<Root: NSManagedObject, Value>(forKeyPath keyPath: KeyPath<Root, Value>) {
        self.init(forKeyPath: KeyPathNaming.requiredName(of: keyPath, in: "NSExpression(forKeyPath:)"))
    }
}
