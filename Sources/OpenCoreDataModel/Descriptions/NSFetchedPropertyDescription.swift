/// A property whose value is the result of a fetch, evaluated when the property is read.
///
/// Core Data models use fetched properties for weak, one-way links ("the newest
/// items of this list") that no foreign key holds. Reading the property runs
/// ``fetchRequest`` in the object's context with `$FETCH_SOURCE` bound to the object
/// and `$FETCHED_PROPERTY` to this description, and keeps the array until the object
/// is refreshed or turned into a fault.
///
/// It has no column in the store: it is an object slot that behaves like a transient
/// attribute (never saved, never validated, absent from `changedValues()`).
open class NSFetchedPropertyDescription: NSPropertyDescription, @unchecked Sendable {
    /// The request whose results are the property's value.
    ///
    /// Its predicate may use `$FETCH_SOURCE` (the object whose property is read) and
    /// `$FETCHED_PROPERTY`.
    ///
    /// Stored and handed out as copies, as model templates are: a frozen model is
    /// shared by every context, so no caller may change the request it holds.
    open var fetchRequest: NSFetchRequest<NSFetchRequestResult>? {
        get { storedRequest?.copied(as: NSFetchRequestResult.self) }
        set {
            assertMutable()
            storedRequest = newValue?.copied(as: NSFetchRequestResult.self)
        }
    }
    /// The request as set, kept with the class it was made for.
    package final private(set) var storedRequest: NSFetchRequest<NSFetchRequestResult>?

    /// Creates a fetched property with no request yet.
    public override init() { super.init() }

    /// Always `true`: a fetched property's value is computed, never stored.
    open override var isTransient: Bool {
        get { true }
        set {}
    }

    /// Always `true`: the results are never validated, whatever the model file says.
    open override var isOptional: Bool {
        get { true }
        set {}
    }

    open override var description: String {
        "(\(type(of: self))) name \(name), fetchRequest \(fetchRequest?.description ?? "nil"), entity \(entity?.name ?? "nil")"
    }
}
