// Ported code maps entities to classes with NSStringFromClass and NSClassFromString.
// On Apple platforms Xcode's `@objc(Person)` gives managed object classes their bare
// names in the Objective-C runtime; without that runtime Foundation answers with
// module-qualified names and finds only those. These versions answer as Core Data apps
// see it: the bare name, from the class registry, for managed object classes.

/// The name of `aClass`: the bare class name for `NSManagedObject` subclasses and
/// OpenCoreData's own classes (as `@objc(Name)` gives them on Apple platforms),
/// Foundation's answer for any other class.
///
/// The class is remembered, so `NSClassFromString` finds it by that name afterwards.
public func NSStringFromClass(_ aClass: AnyClass) -> String {
    if let managed = aClass as? NSManagedObject.Type {
        ManagedObjectClassRegistry.shared.register(managed)
        return String(describing: aClass)
    }
    if String(reflecting: aClass).hasPrefix(ownModulePrefix) { return String(describing: aClass) }
    return Foundation.NSStringFromClass(aClass)
}

/// The class named `aClassName`: a managed object class the app has used (by bare or
/// module-qualified name), one of OpenCoreData's classes, or what Foundation finds
/// (module-qualified names); `nil` when none has that name.
///
/// Without the Objective-C runtime a class cannot be found by its bare name before the
/// app mentions it: `Person(context:)`, `Person.entity()`, `Person.fetchRequest()` or
/// `NSStringFromClass(Person.self)` all make `Person` known.
public func NSClassFromString(_ aClassName: String) -> AnyClass? {
    if let managed = ManagedObjectClassRegistry.shared.registeredClass(named: aClassName) { return managed }
    if !aClassName.contains("."), let own = _typeByName(ownModulePrefix + aClassName) as? AnyClass { return own }
    guard let found = Foundation.NSClassFromString(aClassName) else { return nil }
    if let managed = found as? NSManagedObject.Type { ManagedObjectClassRegistry.shared.register(managed) }
    return found
}

/// How this module's classes are qualified (`OpenCoreDataCore.`).
private let ownModulePrefix = String(String(reflecting: NSManagedObject.self).dropLast("NSManagedObject".count))
