/// Makes a computed property, a stored property of a plain class, or a method without
/// parameters reachable by key-value coding: OpenCoreData's spelling of `@objc` for
/// members that key paths name.
///
/// ```swift
/// final class Person: NSManagedObject {
///     @Managed var name: String?
///     @KeyValueCoded var firstInitial: String { String(name?.prefix(1) ?? "") }
/// }
///
/// person.value(forKey: "firstInitial")                          // "A"
/// NSFetchedResultsController(fetchRequest: request, managedObjectContext: context,
///                            sectionNameKeyPath: "firstInitial", cacheName: nil)
/// NSSortDescriptor(key: "firstInitial", ascending: true)         // sorts in memory
/// ```
/// `value(forKey:)`, `value(forKeyPath:)`, `setValue(_:forKey:)` (for a settable property
/// of a class), predicates and sort descriptors evaluated in memory, and section key paths
/// reach the member. Numbers and Booleans read as `NSNumber`, as `@objc` scalars do.
/// A store cannot evaluate such a key in SQL (neither can Core Data's): use it where Core
/// Data evaluates in memory. The macro adds a nested type named after the key, which the
/// Swift runtime finds by name; members of a type declared `private`, of a generic type,
/// or in an extension written in another module than the type are not found (see
/// docs/DEVIATIONS.md).
@attached(peer, names: prefixed(__KeyValueCoded_), arbitrary)
public macro KeyValueCoded() = #externalMacro(module: "OpenCoreDataMacros", type: "KeyValueCodedMacro")
