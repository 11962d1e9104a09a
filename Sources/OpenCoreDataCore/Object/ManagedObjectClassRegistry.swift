/// Finds the `NSManagedObject` subclass named by an entity's `managedObjectClassName`.
///
/// Core Data asks the Objective-C runtime; Swift on Linux has none. A class is known
/// here once the app mentions it in a way that reaches OpenCoreData — creating an
/// object (`Person(context:)`), asking for `Person.entity()` or
/// `Person.fetchRequest()`, fetching with `NSFetchRequest<Person>`, or reading a
/// typed `@Managed` relationship — or, for module-qualified names (`"MyApp.Person"`),
/// by asking the Swift runtime for the type by name; a bare name (`"Person"`, as Xcode
/// writes it) is also looked for in the modules of the classes already known and in the
/// program's own module.
final class ManagedObjectClassRegistry: @unchecked Sendable {
    static let shared = ManagedObjectClassRegistry()

    private let lock = NSLock()
    private var classesByName: [String: NSManagedObject.Type] = [:]

    /// Records `objectClass` under its bare and module-qualified names.
    func register(_ objectClass: NSManagedObject.Type) {
        guard objectClass != NSManagedObject.self else { return }
        let qualified = String(reflecting: objectClass)
        let bare = String(describing: objectClass)
        lock.lock()
        defer { lock.unlock() }
        if classesByName[qualified] == nil { classesByName[qualified] = objectClass }
        if classesByName[bare] == nil { classesByName[bare] = objectClass }
    }

    /// The class for `entity`: a registered or runtime-found subclass, else `NSManagedObject`.
    func objectClass(for entity: NSEntityDescription) -> NSManagedObject.Type {
        guard let name = entity.managedObjectClassName, !name.isEmpty, name != "NSManagedObject" else {
            return NSManagedObject.self
        }
        let trimmed = name.hasPrefix(".") ? String(name.dropFirst()) : name
        if let known = registeredClass(named: trimmed) { return known }
        if trimmed.contains("."), let found = _typeByName(trimmed) as? NSManagedObject.Type {
            register(found)
            return found
        }
        if !trimmed.contains("."), let found = lookUpInKnownModules(trimmed) {
            register(found)
            return found
        }
        return NSManagedObject.self
    }

    /// Names looked up in vain, with how many classes were known then: tried again only
    /// once more are known, so an entity without a class does not search on every object.
    private var misses: [String: Int] = [:]

    /// A bare class name (Xcode writes `representedClassName="Image"`) in the modules of the
    /// classes already known and the program's own module: the classes of one model usually
    /// live together, so one mentioned class (`Tag.fetchRequest()`) leads to the others
    /// (`tag.images` holding `Image` objects).
    private func lookUpInKnownModules(_ name: String) -> NSManagedObject.Type? {
        lock.lock()
        let known = classesByName.count
        if misses[name] == known {
            lock.unlock()
            return nil
        }
        var modules = Set(classesByName.keys.compactMap { key in key.lastIndex(of: ".").map { String(key[..<$0]) } })
        lock.unlock()
        modules.insert(ProcessInfo.processInfo.processName.replacingOccurrences(of: "-", with: "_"))
        let found = modules.compactMap { _typeByName("\($0).\(name)") as? NSManagedObject.Type }
        // Two modules with a class of that name: which one the model means is not known.
        if found.count == 1 { return found[0] }
        lock.lock()
        misses[name] = known
        lock.unlock()
        return nil
    }

    /// The registered class named `name` (bare or module-qualified), if any.
    func registeredClass(named name: String) -> NSManagedObject.Type? {
        lock.lock()
        defer { lock.unlock() }
        return classesByName[name]
    }

    /// Whether `objectClass` is the one `entity` names (bare or module-qualified).
    static func names(_ objectClass: AnyClass, entity: NSEntityDescription) -> Bool {
        guard let name = entity.managedObjectClassName else { return false }
        let trimmed = name.hasPrefix(".") ? String(name.dropFirst()) : name
        return trimmed == String(describing: objectClass) || trimmed == String(reflecting: objectClass)
    }
}
