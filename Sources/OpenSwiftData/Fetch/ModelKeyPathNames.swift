/// The Core Data key path (`destination.country`, `coordinates.latitude`) of a Swift key path
/// from a model type, which a predicate or a sort descriptor names.
///
/// A model's persisted properties are computed (`@Model` gives them accessors), so a key path's
/// description shows them as `<computed 0x… (Type)>`, the address being the property's getter:
/// the same in the key path of the property alone, which ``ModelTable`` holds. A key path of
/// several steps is matched step by step against those descriptions; steps into a `Codable`
/// struct stored as a composite are stored properties, which the description names.
enum ModelKeyPathNames {
    /// The dotted Core Data key of `keyPath`, or `nil` if a step is not persisted.
    static func name(of keyPath: AnyKeyPath) -> String? {
        let root = type(of: keyPath).rootType
        guard let model = root as? any PersistentModel.Type else {
            // A step inside a composite: a stored property of a struct.
            guard root is any Decodable.Type, let steps = steps(of: keyPath, root: root), steps.allSatisfy(isPlainName)
            else { return nil }
            return steps.joined(separator: ".")
        }
        if keyPath == identifierKeyPath(model) { return "self" }
        if let property = ModelTable.of(model).property(at: keyPath) { return property.name }
        guard let steps = steps(of: keyPath, root: root) else { return nil }
        var names: [String] = []
        var current: (any PersistentModel.Type)? = model
        for step in steps {
            guard let type = current else {
                guard isPlainName(step) else { return nil }
                names.append(step)
                continue
            }
            guard
                let property = ModelTable.of(type).properties.first(where: {
                    self.steps(of: $0.keyPath, root: type) == [step]
                })
            else {
                return nil
            }
            names.append(property.name)
            switch property.kind {
            case .toOne(let destination): current = destination
            case .attribute(let codec) where codec.composite != nil: current = nil
            default: return steps.count == names.count ? names.joined(separator: ".") : nil
            }
        }
        return names.joined(separator: ".")
    }

    /// `\T.persistentModelID`: a predicate comparing it compares the object itself.
    private static func identifierKeyPath<T: PersistentModel>(_ type: T.Type) -> AnyKeyPath { \T.persistentModelID }

    /// The steps of `keyPath`'s description after its root, without optional-chaining marks.
    private static func steps(of keyPath: AnyKeyPath, root: Any.Type) -> [String]? {
        let text = String(describing: keyPath)
        let prefix = "\\" + String(describing: root) + "."
        guard text.hasPrefix(prefix) else { return nil }
        var steps: [String] = []
        var current = ""
        var depth = 0
        for character in text.dropFirst(prefix.count) {
            switch character {
            case "<", "(": depth += 1
            case ">", ")": depth -= 1
            default: break
            }
            if character == ".", depth == 0 {
                steps.append(current)
                current = ""
            } else {
                current.append(character)
            }
        }
        steps.append(current)
        return steps.map { step in
            var step = Substring(step)
            while let last = step.last, last == "?" || last == "!" { step = step.dropLast() }
            return String(step)
        }
    }

    private static func isPlainName(_ step: String) -> Bool {
        !step.isEmpty && step.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" }
    }
}
