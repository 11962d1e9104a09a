/// User info dictionaries of mappings, compared as Foundation compares dictionaries.
///
/// Mapping models compare by what they map, as Core Data's do: two loads of one mapping
/// model file are equal, so code that looks a mapping up among those it loaded, or keeps
/// them in sets, finds it (see `isEqual` of `NSMappingModel` and its parts).
package enum MappingUserInfo {
    package static func equal(_ lhs: [AnyHashable: Any]?, _ rhs: [AnyHashable: Any]?) -> Bool {
        let (left, right) = (lhs ?? [:], rhs ?? [:])
        if left.isEmpty && right.isEmpty { return true }
        return NSDictionary(dictionary: left).isEqual(to: right)
    }
}
