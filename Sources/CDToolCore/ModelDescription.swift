import OpenCoreData
import OpenCoreDataCore

/// A model as readable text: what `cdtool model` prints and `cdtool inspect` shows for
/// a model it recovered from a store.
///
/// One block per entity, in name order: its class, parent, abstractness and version
/// hash, then one line per own attribute and relationship, so two models can be compared
/// with `diff`.
public enum ModelDescription {
    /// The text for `model`, ending with a newline.
    public static func text(of model: NSManagedObjectModel) -> String {
        let entities = model.entities.sorted { ($0.name ?? "") < ($1.name ?? "") }
        var lines = ["\(entities.count) \(entities.count == 1 ? "entity" : "entities")"]
        let identifiers = model.versionIdentifiers.map { "\($0.base)" }.sorted()
        if !identifiers.isEmpty { lines.append("version identifiers: \(identifiers.joined(separator: ", "))") }
        if !model.configurations.isEmpty {
            lines.append("configurations: \(model.configurations.joined(separator: ", "))")
        }
        // Hashed together: one entity's hash costs as much as its whole inheritance chain.
        let hashes = VersionHasher.hashes(of: entities)
        for entity in entities {
            lines.append("")
            lines += self.lines(for: entity, versionHash: hashes[ObjectIdentifier(entity)] ?? entity.versionHash)
        }
        return lines.joined(separator: "\n") + "\n"
    }

    static func lines(for entity: NSEntityDescription, versionHash: Data) -> [String] {
        var header = "entity \(entity.name ?? "?")"
        if let parent = entity.superentity { header += " : \(parent.name ?? "?")" }
        var facts = ["class \(entity.managedObjectClassName ?? "NSManagedObject")"]
        if entity.isAbstract { facts.append("abstract") }
        let subentities = entity.subentities.compactMap(\.name).sorted()
        if !subentities.isEmpty { facts.append("subentities \(subentities.joined(separator: ", "))") }
        var lines = [header + " (" + facts.joined(separator: ", ") + ")"]
        lines.append("  version hash \(versionHash.base64EncodedString())")
        let own = entity.properties.filter { $0.entity === entity }.sorted { $0.name < $1.name }
        for property in own {
            if let attribute = property as? NSAttributeDescription {
                lines.append("  attribute \(attribute.name): " + attributeFacts(attribute).joined(separator: ", "))
                if let composite = attribute as? NSCompositeAttributeDescription {
                    lines += elementLines(composite, indent: "    ", depth: 0)
                }
            } else if let relationship = property as? NSRelationshipDescription {
                lines.append(
                    "  relationship \(relationship.name): " + relationshipFacts(relationship).joined(separator: ", "))
            } else if let fetched = property as? NSFetchedPropertyDescription {
                let request = fetched.fetchRequest
                let predicate = request?.predicate.map { " where \($0.predicateFormat)" } ?? ""
                lines.append("  fetched property \(fetched.name): \(request?.entityName ?? "?")\(predicate)")
            } else {
                lines.append("  property \(property.name): \(type(of: property))")
            }
        }
        return lines
    }

    /// One line per element of a composite (`element city: String, optional`), nested
    /// composites' elements indented below theirs.
    static func elementLines(_ composite: NSCompositeAttributeDescription, indent: String, depth: Int) -> [String] {
        guard depth < 8 else { return ["\(indent)…"] }
        var lines: [String] = []
        for element in composite.elements {
            lines.append("\(indent)element \(element.name): " + attributeFacts(element).joined(separator: ", "))
            if let nested = element as? NSCompositeAttributeDescription {
                lines += elementLines(nested, indent: indent + "  ", depth: depth + 1)
            }
        }
        return lines
    }

    static func attributeFacts(_ attribute: NSAttributeDescription) -> [String] {
        var facts = [attribute.attributeType.displayName]
        if let derived = attribute as? NSDerivedAttributeDescription, let expression = derived.derivationExpression {
            facts.append("derived from \(expression)")
        }
        facts.append(attribute.isOptional ? "optional" : "required")
        if attribute.isTransient { facts.append("transient") }
        if attribute.isIndexed { facts.append("indexed") }
        if let value = attribute.defaultValue { facts.append("default \(literal(value))") }
        if attribute.allowsExternalBinaryDataStorage { facts.append("external storage") }
        if let name = attribute.valueTransformerName { facts.append("transformer \(name)") }
        if attribute.attributeType == .transformableAttributeType, let name = attribute.attributeValueClassName {
            facts.append("class \(name)")
        }
        return facts
    }

    static func relationshipFacts(_ relationship: NSRelationshipDescription) -> [String] {
        var facts = [
            (relationship.isToMany ? (relationship.isOrdered ? "to-many ordered " : "to-many ") : "to-one ")
                + (relationship.destinationEntity?.name ?? "?")
        ]
        facts.append("inverse " + (relationship.inverseRelationship?.name ?? "none"))
        facts.append("delete rule " + deleteRuleName(relationship.deleteRule))
        facts.append(relationship.isOptional ? "optional" : "required")
        if relationship.isTransient { facts.append("transient") }
        facts.append(
            "count \(relationship.minCount)…\(relationship.maxCount == 0 ? "∞" : String(relationship.maxCount))")
        return facts
    }

    package static func deleteRuleName(_ rule: NSDeleteRule) -> String {
        switch rule {
        case .noActionDeleteRule: "no action"
        case .nullifyDeleteRule: "nullify"
        case .cascadeDeleteRule: "cascade"
        case .denyDeleteRule: "deny"
        }
    }

    /// A default value as a literal: strings quoted, dates in ISO 8601, data in base64.
    static func literal(_ value: Any) -> String {
        switch value {
        case let string as String: "\"\(string)\""
        case let date as Date: ValueFormatting.iso8601(date)
        case let data as Data: "<\(data.base64EncodedString())>"
        default: "\(value)"
        }
    }
}
