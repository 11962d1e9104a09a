/// Reads key paths such as `department.name` or `employees.@avg.salary` from values,
/// as Foundation's key-value coding does.
package enum KeyPathEvaluation {
    /// The collection operators understood in key paths.
    package static let collectionOperators: Set<String> = [
        "@count", "@sum", "@avg", "@min", "@max",
        "@distinctUnionOfObjects", "@unionOfObjects",
        "@distinctUnionOfArrays", "@unionOfArrays", "@distinctUnionOfSets",
    ]

    /// The value at `keyPath` (dot-separated) in `object`.
    ///
    /// Passing through a to-many (a collection) yields the collection of the
    /// elements' values; collections reached through collections are flattened,
    /// as a SQL join would.
    package static func value(forKeyPath keyPath: String, of object: Any?) -> Any? {
        value(for: keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init)[...], of: object)
    }

    /// The value of the single property `key` of `object`: through ``KeyValueCoding``,
    /// a dictionary lookup, or a member marked `@KeyValueCoded`. `self` is the object itself; anything else is `nil`.
    package static func value(forKey key: String, of object: Any?) -> Any? {
        guard let object = CollectionValue.unwrapNull(object) else { return nil }
        if key == "self" || key == "SELF" { return object }
        if let coding = object as? KeyValueCoding { return CollectionValue.unwrapNull(coding.value(forKey: key)) }
        // NSString's `length` (UTF-16 units): Core Data's string length rules are `length` predicates.
        if key == "length", let string = object as? String { return string.utf16.count }
        // NSData's `length` (bytes): binary attributes' min/max rules from model files.
        if key == "length", let data = object as? Data { return data.count }
        if let dictionary = object as? [String: Any] { return CollectionValue.unwrapNull(dictionary[key]) }
        if let dictionary = object as? [AnyHashable: Any] {
            return CollectionValue.unwrapNull(dictionary[AnyHashable(key)])
        }
        if let dictionary = object as? NSDictionary {
            return CollectionValue.unwrapNull(dictionary.object(forKey: key))
        }
        // Members marked `@KeyValueCoded` on values that are not `KeyValueCoding` themselves.
        return KeyValueCodedMembers.value(forKey: key, of: object) ?? nil
    }

    private static func value(for components: ArraySlice<String>, of object: Any?) -> Any? {
        guard let key = components.first else { return object }
        let rest = components.dropFirst()
        if key.hasPrefix("@") {
            return applyOperator(key, rest: rest, to: object)
        }
        if key != "self", key != "SELF", let elements = CollectionValue.elements(of: object) {
            var values: [Any?] = []
            for element in elements {
                let value = self.value(forKey: key, of: element)
                if let nested = CollectionValue.elements(of: value) { values += nested } else { values.append(value) }
            }
            return value(for: rest, of: values)
        }
        return value(for: rest, of: value(forKey: key, of: object))
    }

    private static func applyOperator(_ name: String, rest: ArraySlice<String>, to object: Any?) -> Any? {
        if name == "@count" {
            if let members = CollectionValue.members(of: object) { return members.count }
            return nil
        }
        guard let elements = CollectionValue.elements(of: object) else { return nil }
        let values = rest.isEmpty ? elements : elements.map { value(for: rest, of: $0) }
        switch name {
        case "@sum": return PredicateFunctions.call("sum:", [values])
        case "@avg": return values.compactMap { $0 }.isEmpty ? nil : PredicateFunctions.call("average:", [values])
        case "@min": return PredicateFunctions.call("min:", [values])
        case "@max": return PredicateFunctions.call("max:", [values])
        case "@unionOfObjects": return values.filter { $0 != nil }
        case "@distinctUnionOfObjects": return ExpressionEvaluator.distinct(values.filter { $0 != nil })
        case "@unionOfArrays": return values.flatMap { CollectionValue.elements(of: $0) ?? [] }
        case "@distinctUnionOfArrays", "@distinctUnionOfSets":
            return ExpressionEvaluator.distinct(values.flatMap { CollectionValue.elements(of: $0) ?? [] })
        default: return nil
        }
    }
}
