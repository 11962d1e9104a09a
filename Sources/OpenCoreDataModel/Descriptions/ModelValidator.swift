/// Finds the mistakes that make a model unusable, as readable sentences.
///
/// Core Data raises on most of these when the model is first used; here they become
/// one thrown error listing every problem, before any store is touched.
package enum ModelValidator {
    package static func problems(in model: NSManagedObjectModel) -> [String] {
        var problems: [String] = []
        var entityNames = Set<String>()
        let entities = model.entities
        let members = Set(entities.map(ObjectIdentifier.init))

        for entity in entities {
            guard let name = entity.name, !name.isEmpty else {
                problems.append("an entity has no name")
                continue
            }
            if !entityNames.insert(name).inserted {
                problems.append("two entities are named '\(name)'")
            }
            if !isIdentifier(name) {
                problems.append("entity name '\(name)' is not made of letters, digits and underscores")
            }
            if let parent = entity.superentity, !members.contains(ObjectIdentifier(parent)) {
                problems.append("entity '\(name)' has a superentity '\(parent.name ?? "?")' that is not in the model")
            }
            for sub in entity.subentities where !members.contains(ObjectIdentifier(sub)) {
                problems.append("entity '\(name)' has a subentity '\(sub.name ?? "?")' that is not in the model")
            }
            if entity.inheritsFromItself {
                problems.append("entity '\(name)' inherits from itself")
                continue
            }
            var propertyNames = Set<String>()
            for property in entity.properties {
                if property.name.isEmpty {
                    problems.append("entity '\(name)' has a property with no name")
                    continue
                }
                if !propertyNames.insert(property.name).inserted {
                    problems.append("entity '\(name)' has two properties named '\(property.name)'")
                }
                if NSPropertyDescription.reservedNames.contains(property.name) {
                    problems.append("property '\(name).\(property.name)' uses a name reserved by NSManagedObject")
                }
                if !isIdentifier(property.name) {
                    problems.append(
                        "property name '\(name).\(property.name)' is not made of letters, digits and underscores")
                }
                if let derived = property as? NSDerivedAttributeDescription,
                    let expression = derived.derivationExpression
                {
                    let known = entity.propertiesByName
                    for key in DerivationKeys.rootKeys(of: expression) where known[key] == nil {
                        problems.append(
                            "derived attribute '\(name).\(property.name)' reads '\(key)', which entity '\(name)' does not have"
                        )
                    }
                }
                if let attribute = property as? NSAttributeDescription {
                    problems += attributeProblems(attribute, entity: name)
                } else if let relationship = property as? NSRelationshipDescription {
                    problems += relationshipProblems(relationship, entity: entity, members: members)
                }
            }
            for constraint in entity.uniquenessConstraints {
                for key in NSEntityDescription.propertyNames(inConstraint: constraint) {
                    if entity.propertiesByName[key] == nil {
                        problems.append("uniqueness constraint of '\(name)' names unknown property '\(key)'")
                    } else if entity.propertiesByName[key] is NSCompositeAttributeDescription {
                        problems.append(
                            "uniqueness constraint of '\(name)' names composite attribute '\(key)', which OpenCoreData cannot check (see docs/DEVIATIONS.md)"
                        )
                    }
                }
            }
        }
        return problems
    }

    /// Whether `name` can be a table or column name as it is: names become SQL
    /// identifiers (`Z<NAME>`), and a model read from a file must not smuggle SQL in.
    package static func isIdentifier(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, !("0"..."9").contains(first) else { return false }
        return name.unicodeScalars.allSatisfy {
            $0 == "_" || ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0)
        }
    }

    private static func attributeProblems(_ attribute: NSAttributeDescription, entity: String) -> [String] {
        let label = "attribute '\(entity).\(attribute.name)'"
        switch attribute.attributeType {
        case .undefinedAttributeType:
            // A transient attribute without a type holds any value in memory (Core Data and
            // momc accept it); a stored one would need a column type.
            return attribute.isTransient
                ? [] : ["\(label) has an undefined attribute type (only a transient attribute may)"]
        case .compositeAttributeType:
            guard let composite = attribute as? NSCompositeAttributeDescription else {
                return [
                    "\(label) has the Composite type but is not an NSCompositeAttributeDescription (create one to give it elements)"
                ]
            }
            return compositeProblems(composite, label: label, depth: 0)
        default:
            break
        }
        if let value = attribute.defaultValue, AttributeValue.coerce(value, to: attribute) == nil {
            return [
                "\(label) has a default value of type \(type(of: value)), which is not a \(attribute.attributeType.displayName)"
            ]
        }
        return []
    }

    /// What makes a composite unusable: no elements, elements without a usable name or
    /// of a type composites cannot hold (Core Data's rule: not Undefined, not Object ID,
    /// not binary data stored externally), and defaults that do not fit.
    private static func compositeProblems(
        _ composite: NSCompositeAttributeDescription, label: String, depth: Int
    ) -> [String] {
        guard depth < CompositeValue.maximumDepth else {
            return ["\(label) nests composites more than \(CompositeValue.maximumDepth) deep"]
        }
        if composite.elements.isEmpty { return ["\(label) is a composite attribute without elements"] }
        var problems: [String] = []
        var names = Set<String>()
        for element in composite.elements {
            let elementLabel = "element '\(element.name)' of \(label)"
            if element.name.isEmpty {
                problems.append("\(label) has an element with no name")
                continue
            }
            if !names.insert(element.name).inserted {
                problems.append("\(label) has two elements named '\(element.name)'")
            }
            if !isIdentifier(element.name) {
                problems.append("\(elementLabel) has a name that is not made of letters, digits and underscores")
            }
            if element is NSDerivedAttributeDescription {
                problems.append("\(elementLabel) is derived, which a composite's elements cannot be")
            }
            if element.isTransient {
                problems.append(
                    "\(elementLabel) is transient, which a composite's elements cannot be (make the composite transient instead)"
                )
            }
            switch element.attributeType {
            case .undefinedAttributeType, .objectIDAttributeType:
                problems.append(
                    "\(elementLabel) has type \(element.attributeType.displayName), which composites cannot hold")
                continue
            case .binaryDataAttributeType where element.allowsExternalBinaryDataStorage:
                problems.append("\(elementLabel) allows external storage, which composites cannot hold")
                continue
            case .compositeAttributeType:
                guard let nested = element as? NSCompositeAttributeDescription else {
                    problems.append(
                        "\(elementLabel) has the Composite type but is not an NSCompositeAttributeDescription")
                    continue
                }
                problems += compositeProblems(nested, label: elementLabel, depth: depth + 1)
                continue
            default:
                break
            }
            if let value = element.defaultValue, AttributeValue.coerce(value, to: element) == nil {
                problems.append(
                    "\(elementLabel) has a default value of type \(type(of: value)), which is not a \(element.attributeType.displayName)"
                )
            }
        }
        if problems.isEmpty, let value = composite.defaultValue,
            let problem = CompositeValue.problem(with: value, for: composite)
        {
            problems.append("\(label) has a default value that does not fit the composite: \(problem)")
        }
        return problems
    }

    private static func relationshipProblems(
        _ relationship: NSRelationshipDescription,
        entity: NSEntityDescription,
        members: Set<ObjectIdentifier>
    ) -> [String] {
        let label = "relationship '\(entity.name ?? "").\(relationship.name)'"
        guard let destination = relationship.destinationEntity else {
            return ["\(label) has no destination entity"]
        }
        guard members.contains(ObjectIdentifier(destination)) else {
            return ["\(label) points to entity '\(destination.name ?? "?")', which is not in the model"]
        }
        var problems: [String] = []
        if relationship.minCount < 0 || relationship.maxCount < 0 {
            problems.append("\(label) has a negative minimum or maximum count")
        }
        if relationship.maxCount > 0 && relationship.minCount > relationship.maxCount {
            problems.append("\(label) has a minimum count above its maximum")
        }
        if let inverse = relationship.inverseRelationship {
            guard let inverseOwner = inverse.entity else {
                return problems + ["\(label) has an inverse '\(inverse.name)' that belongs to no entity"]
            }
            if !destination.isKindOf(entity: inverseOwner) && !inverseOwner.isKindOf(entity: destination) {
                problems.append(
                    "\(label) has inverse '\(inverseOwner.name ?? "?").\(inverse.name)', which is not on its destination '\(destination.name ?? "?")'"
                )
            }
            // The inverse may point back at a superentity or a subentity of the entity that
            // declares the relationship (Core Data and momc accept both).
            let declaring = relationship.entity ?? entity
            if let back = inverse.destinationEntity, !declaring.isKindOf(entity: back),
                !back.isKindOf(entity: declaring)
            {
                problems.append(
                    "\(label) has inverse '\(inverse.name)', whose destination '\(back.name ?? "?")' is not '\(entity.name ?? "?")'"
                )
            }
            if let backInverse = inverse.inverseRelationship, backInverse !== relationship {
                problems.append("\(label) and its inverse '\(inverse.name)' do not point back at each other")
            }
        }
        return problems
    }
}

extension NSEntityDescription {
    /// Whether the chain of superentities comes back to an entity already on it; every
    /// walk up the hierarchy (inherited properties, version hashes) would then never end.
    package var inheritsFromItself: Bool {
        var seen = Set<ObjectIdentifier>()
        var current: NSEntityDescription? = self
        while let candidate = current {
            if !seen.insert(ObjectIdentifier(candidate)).inserted { return true }
            current = candidate.superentity
        }
        return false
    }
}
