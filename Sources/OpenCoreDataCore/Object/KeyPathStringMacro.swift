/// The key path string of a Swift key path literal, at compile time: OpenCoreData's
/// stand-in for `#keyPath`, which needs the Objective-C runtime.
///
/// ```swift
/// let request = Person.fetchRequest()
/// request.predicate = NSPredicate(format: "%K == %@", #keyPathString(\Person.name), "Ada")
/// request.sortDescriptors = [NSSortDescriptor(key: #keyPathString(\Person.family?.name), ascending: true)]
/// ```
/// The expansion is the string literal (`"family.name"`). The key path is an ordinary
/// Swift key path, so the compiler checks every component, and a misspelled key fails
/// to compile, as with `#keyPath`. Optional chaining (`?`) and force unwraps (`!`) add
/// nothing to the string. Swift key paths cannot continue through a to-many
/// relationship's members; write such a key as a string (`"books.title"`).
@freestanding(expression)
public macro keyPathString<Root, Value>(_ keyPath: KeyPath<Root, Value>) -> String =
    #externalMacro(module: "OpenCoreDataMacros", type: "KeyPathStringMacro")
