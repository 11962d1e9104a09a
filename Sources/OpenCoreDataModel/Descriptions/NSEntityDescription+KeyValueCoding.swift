// An object's `entity` is reachable from predicates and key paths (`entity.name ==
// "Person"`), as Core Data's NSObject key-value coding allows; Linux has no such
// lookup, so the entity's readable properties are listed here.
extension NSEntityDescription: KeyValueCoding {
    /// The value of the entity's property named `key`, or `nil` for another key.
    public func value(forKey key: String) -> Any? {
        switch key {
        case "name": name
        case "managedObjectClassName": managedObjectClassName
        case "isAbstract", "abstract": isAbstract
        case "superentity": superentity
        case "subentities": subentities
        case "properties": properties
        case "userInfo": userInfo
        case "renamingIdentifier": renamingIdentifier
        case "versionHash": versionHash
        case "versionHashModifier": versionHashModifier
        default: nil
        }
    }
}
