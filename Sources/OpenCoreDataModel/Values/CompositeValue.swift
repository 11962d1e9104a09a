/// The values of composite attributes: dictionaries keyed by element name.
///
/// An object keeps a composite's value as `[String: Any]` holding each element's
/// stored form (see `AttributeValue`; a nested composite is a dictionary again), with
/// elements that are `nil` left out. Key-value coding hands out the same dictionary
/// with numbers as `NSNumber`, as Core Data does. Stores flatten the dictionary into
/// one value per leaf element (``leaves(of:)``) and assemble it back (``assemble(_:)``).
package enum CompositeValue {
    /// How deep composites may nest (the compiled-model reader and writer stop there too).
    package static let maximumDepth = NSCompositeAttributeDescription.maximumDepth

    /// One element that is not itself a composite, and the element names leading to it.
    package struct Leaf {
        /// Element names from the composite down to this element (`["position", "latitude"]`).
        package let path: [String]
        /// The element's description.
        package let element: NSAttributeDescription
    }

    /// The leaf elements of `composite`, depth first in element order.
    package static func leaves(of composite: NSCompositeAttributeDescription) -> [Leaf] {
        var result: [Leaf] = []
        func visit(_ composite: NSCompositeAttributeDescription, _ prefix: [String], depth: Int) {
            guard depth < maximumDepth else { return }
            for element in composite.elements {
                if let nested = element as? NSCompositeAttributeDescription {
                    visit(nested, prefix + [element.name], depth: depth + 1)
                } else {
                    result.append(Leaf(path: prefix + [element.name], element: element))
                }
            }
        }
        visit(composite, [], depth: 0)
        return result
    }

    /// `value` as a dictionary with string keys, whatever dictionary type it arrived in.
    package static func dictionary(_ value: Any) -> [String: Any]? {
        if let dictionary = value as? [String: Any] { return dictionary }
        if let dictionary = value as? [AnyHashable: Any] {
            var result: [String: Any] = [:]
            for (key, element) in dictionary {
                guard let name = key.base as? String else { return nil }
                result[name] = element
            }
            return result
        }
        if let dictionary = value as? NSDictionary {
            var result: [String: Any] = [:]
            for (key, element) in dictionary {
                guard let name = key as? String ?? (key as? NSString).map({ $0 as String }) else { return nil }
                result[name] = element
            }
            return result
        }
        return nil
    }

    /// The stored form of `value` for `composite`, or `nil` when it does not fit:
    /// not a dictionary, a key that names no element, or an element value of the wrong type.
    package static func coerce(_ value: Any, to composite: NSCompositeAttributeDescription) -> [String: Any]? {
        (try? stored(value, for: composite, prefix: [], depth: 0).get())
    }

    /// Why `value` does not fit `composite` (a sentence naming the element), or `nil` when it fits.
    package static func problem(with value: Any, for composite: NSCompositeAttributeDescription) -> String? {
        switch stored(value, for: composite, prefix: [], depth: 0) {
        case .success: nil
        case .failure(let failure): failure.reason
        }
    }

    private struct Mismatch: Error { let reason: String }

    private static func stored(
        _ value: Any, for composite: NSCompositeAttributeDescription, prefix: [String], depth: Int
    ) -> Result<[String: Any], Mismatch> {
        let place = prefix.isEmpty ? "" : " for element '\(prefix.joined(separator: "."))'"
        guard depth < maximumDepth else { return .failure(Mismatch(reason: "composites nest too deeply")) }
        guard let dictionary = dictionary(value) else {
            return .failure(
                Mismatch(reason: "expected a dictionary of element values\(place), given \(type(of: value))"))
        }
        var result: [String: Any] = [:]
        for (key, element) in dictionary {
            guard let description = composite.elements.first(where: { $0.name == key }) else {
                let known = composite.elements.map(\.name).joined(separator: ", ")
                return .failure(
                    Mismatch(
                        reason:
                            "'\((prefix + [key]).joined(separator: "."))' is not an element of the composite (its elements: \(known))"
                    ))
            }
            guard let element = CollectionValue.unwrapNull(element) else { continue }
            if let nested = description as? NSCompositeAttributeDescription {
                switch stored(element, for: nested, prefix: prefix + [key], depth: depth + 1) {
                case .success(let inner): result[key] = inner
                case .failure(let failure): return .failure(failure)
                }
            } else if let converted = AttributeValue.coerce(element, to: description) {
                result[key] = converted
            } else {
                return .failure(
                    Mismatch(
                        reason:
                            "element '\((prefix + [key]).joined(separator: "."))' expects \(description.attributeType.displayName), given \(type(of: element)) (\(element))"
                    ))
            }
        }
        return .success(result)
    }

    /// The dictionary key-value coding reports: the stored dictionary with numbers and
    /// Booleans as `NSNumber` and decimals as `NSDecimalNumber`, nested composites alike.
    package static func publicValue(_ stored: [String: Any]) -> [String: Any] {
        stored.mapValues { element in
            if let nested = element as? [String: Any] { return publicValue(nested) }
            return NumberBoxing.boxed(element)
        }
    }

    /// The value at `path` (element names) in a composite's dictionary, `nil` when absent.
    package static func value(at path: [String], in dictionary: [String: Any]) -> Any? {
        guard let first = path.first else { return dictionary }
        guard let element = dictionary[first] else { return nil }
        if path.count == 1 { return element }
        return (element as? [String: Any]).flatMap { value(at: Array(path.dropFirst()), in: $0) }
    }

    /// `dictionary` with the element at `path` set to `value` (removed when `nil`),
    /// creating the dictionaries of nested composites on the way.
    package static func setting(_ value: Any?, at path: [String], in dictionary: [String: Any]) -> [String: Any] {
        guard let first = path.first else { return dictionary }
        var result = dictionary
        if path.count == 1 {
            result[first] = CollectionValue.unwrapNull(value)
        } else {
            let inner = result[first].flatMap(Self.dictionary) ?? [:]
            result[first] = setting(value, at: Array(path.dropFirst()), in: inner)
        }
        return result
    }

    /// The dictionary a store's leaf values make, nested for nested composites; a
    /// leaf without a value is left out, and so is a nested composite without any.
    package static func assemble(_ leaves: [(path: [String], value: Any)]) -> [String: Any] {
        var result: [String: Any] = [:]
        for (path, value) in leaves where !path.isEmpty {
            result = setting(value, at: path, in: result)
        }
        return result
    }

    /// Whether two stored composite values hold equal elements.
    package static func isEqual(_ lhs: [String: Any], _ rhs: [String: Any]) -> Bool {
        guard lhs.count == rhs.count else { return false }
        for (key, left) in lhs {
            guard let right = rhs[key], AttributeValue.isEqual(left, right) else { return false }
        }
        return true
    }

    /// A new object's value: the composite's default dictionary, with the defaults of
    /// the elements it leaves out added (nested composites alike); `nil` when neither
    /// the composite nor any element has a default.
    package static func defaultValue(of composite: NSCompositeAttributeDescription, depth: Int = 0) -> [String: Any]? {
        guard depth < maximumDepth else { return nil }
        var result = composite.defaultValue.flatMap { coerce($0, to: composite) }
        for element in composite.elements where result?[element.name] == nil {
            let value: Any?
            if let nested = element as? NSCompositeAttributeDescription {
                value = defaultValue(of: nested, depth: depth + 1)
            } else {
                value = element.defaultValue.flatMap { AttributeValue.coerce($0, to: element) }
            }
            if let value { result = (result ?? [:]).merging([element.name: value]) { $1 } }
        }
        return result
    }

    /// The first problem a save finds in a stored composite value: a required element
    /// that is missing (named by its key path, `location.latitude`), or an element
    /// failing one of its validation predicates. `nil` when the value is valid.
    package static func validationProblem(
        in stored: [String: Any], of composite: NSCompositeAttributeDescription, keyPath: String, depth: Int = 0
    )
        -> (code: Int, key: String, value: Any?, message: String, predicate: NSPredicate?)?
    {
        guard depth < maximumDepth else { return nil }
        for element in composite.elements {
            let key = keyPath + "." + element.name
            guard let value = stored[element.name] else {
                if element.isOptional { continue }
                return (
                    NSValidationMissingMandatoryPropertyError, key, nil,
                    "is a required element of composite attribute '\(keyPath)'", nil
                )
            }
            if let nested = element as? NSCompositeAttributeDescription, let inner = value as? [String: Any] {
                if let problem = validationProblem(in: inner, of: nested, keyPath: key, depth: depth + 1) {
                    return problem
                }
                continue
            }
            let checked = AttributeValue.publicValue(value, type: element.attributeType)
            for (index, predicate) in element.validationPredicates.enumerated() where !predicate.evaluate(with: checked)
            {
                let warning = index < element.validationWarnings.count ? element.validationWarnings[index] : nil
                return (
                    ValidationPredicateKind.errorCode(for: predicate, value: checked), key, checked,
                    warning ?? "value \(checked) does not satisfy \(predicate.predicateFormat)", predicate
                )
            }
        }
        return nil
    }
}
