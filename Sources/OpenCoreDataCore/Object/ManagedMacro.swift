/// Marks a stored property of an `NSManagedObject` subclass as managed by Core Data:
/// OpenCoreData's spelling of `@NSManaged`.
///
/// ```swift
/// final class Person: NSManagedObject {
///     @Managed var name: String?
///     @Managed var age: Int64
///     @Managed var family: Family?
/// }
/// final class Family: NSManagedObject {
///     @Managed var people: NSSet?   // also brings addToPeople(_:), removeFromPeople(_:)
/// }
/// ```
/// On a property, the macro writes accessors that go through the object's storage
/// (with change tracking, faulting and inverse maintenance). On a to-many property it
/// also writes the accessors Xcode generates (`addTo<Key>`, `removeFrom<Key>`, and the
/// indexed ones for ordered relationships), so delete Xcode's generated accessor extension
/// rather than marking its functions: `@Managed` does not apply to functions.
@attached(accessor, names: named(get), named(set))
@attached(peer, names: arbitrary)
public macro Managed() = #externalMacro(module: "OpenCoreDataMacros", type: "ManagedMacro")
