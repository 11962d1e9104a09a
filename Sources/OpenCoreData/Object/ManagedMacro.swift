/// Marks a property or a generated relationship accessor of an `NSManagedObject`
/// subclass as managed by Core Data: OpenCoreData's spelling of `@NSManaged`.
///
/// ```swift
/// final class Person: NSManagedObject {
///     @Managed var name: String?
///     @Managed var age: Int64
///     @Managed var family: Family?
/// }
/// extension Family {
///     @Managed func addToPeople(_ value: Person)
/// }
/// ```
/// On a property, the macro writes accessors that go through the object's storage
/// (with change tracking, faulting and inverse maintenance). On a body-less function
/// named like Xcode's generated to-many accessors, it writes the body.
@attached(accessor, names: named(get), named(set))
@attached(body)
public macro Managed() = #externalMacro(module: "OpenCoreDataMacros", type: "ManagedMacro")
