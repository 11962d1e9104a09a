/// Builds an ``/OpenCoreDataModel/NSManagedObjectModel`` from one model's `contents` XML file, as Xcode
/// writes it (Xcode 4 to 16).
///
/// The whole element tree is read first; the model is then built in passes (entities,
/// parents, properties, relationships and inverses, then constraints, indexes,
/// templates and configurations) so that any element may name one that comes later
/// in the file. Every problem throws a ``ModelLoadingError`` naming the line and
/// element; nothing in a file can make the loader trap.
package struct ModelFileLoader {
    package let source: ModelFileSource

    package init(contentsFile url: URL) {
        source = ModelFileSource(url: url)
    }

    /// Fills `model` (a new, empty one) from the file.
    package func load(into model: NSManagedObjectModel) throws {
        let data: Data
        do {
            data = try Data(contentsOf: source.url)
        } catch {
            throw ModelLoadingError(
                source: source, line: nil, element: nil, reason: "cannot be read (\(error.localizedDescription))")
        }
        try load(data, into: model)
    }

    /// Fills `model` from `data`, the file's bytes (messages still name the file).
    package func load(_ data: Data, into model: NSManagedObjectModel) throws {
        let root = try ModelXMLDocument.parse(data, source: source)
        try Builder(source: source, root: root).build(into: model)
    }

    /// The state of one build: what each pass found, and the elements behind it.
    private final class Builder {
        package let source: ModelFileSource
        package let root: ModelXMLElement
        package var entities: [(entity: NSEntityDescription, element: ModelXMLElement, name: String)] = []
        package var entitiesByName: [String: NSEntityDescription] = [:]
        package var composites: [String: ModelXMLElement] = [:]
        package var relationships: [(relationship: NSRelationshipDescription, values: ModelElementValues)] = []
        package var derivedAttributes: [(attribute: NSDerivedAttributeDescription, values: ModelElementValues)] = []

        package init(source: ModelFileSource, root: ModelXMLElement) {
            self.source = source
            self.root = root
        }

        package func values(_ element: ModelXMLElement, scope: String? = nil) -> ModelElementValues {
            ModelElementValues(element, source: source, scope: scope)
        }

        package func build(into model: NSManagedObjectModel) throws {
            let modelValues = values(root)
            guard root.name == "model" else {
                throw modelValues.error("is not a Core Data model (its root element must be <model>)")
            }
            try modelValues.checkChildren([
                "entity", "fetchRequest", "configuration", "composite", "elements", "userInfo",
            ])
            if let identifier = root["userDefinedModelVersionIdentifier"], !identifier.isEmpty {
                model.versionIdentifiers = [identifier]
            }
            for element in root.children(named: "composite") {
                let name = try values(element).identifier()
                guard composites[name] == nil else {
                    throw values(element).error("repeats the composite name '\(name)'")
                }
                try values(element).checkChildren(["attribute"])
                composites[name] = element
            }
            for element in root.children(named: "entity") { try declareEntity(element) }
            try linkParents()
            for entry in entities { try readProperties(entry.entity, entry.element, entry.name) }
            try checkInheritedNames()
            for entry in relationships { try link(entry.relationship, entry.values) }
            for entry in derivedAttributes { try checkDerivation(entry.attribute, entry.values) }
            for entry in entities { try readConstraintsAndIndexes(entry.entity, entry.element, entry.name) }
            model.entities = entities.map(\.entity)
            try readTemplates(into: model)
            try readConfigurations(into: model)
        }

        // MARK: Entities and inheritance

        package func declareEntity(_ element: ModelXMLElement) throws {
            let entityValues = values(element)
            let name = try entityValues.identifier()
            guard entitiesByName[name] == nil else {
                let first = entities.first { $0.name == name }?.element.line ?? 0
                throw entityValues.error("repeats the entity name '\(name)' (first declared on line \(first))")
            }
            try entityValues.checkChildren([
                "attribute", "relationship", "fetchedProperty", "userInfo",
                "uniquenessConstraints", "fetchIndex", "compoundIndexes",
            ])
            let entity = NSEntityDescription()
            entity.name = name
            entity.managedObjectClassName =
                element["representedClassName"].flatMap { $0.isEmpty ? nil : $0 } ?? "NSManagedObject"
            entity.isAbstract = try entityValues.flag("isAbstract")
            entity.versionHashModifier = element["versionHashModifier"]
            entity.renamingIdentifier = element["renamingIdentifier"] ?? element["elementID"]
            entity.codeGenerationType = element["codeGenerationType"]
            entity.userInfo = try entityValues.userInfo()
            entities.append((entity, element, name))
            entitiesByName[name] = entity
        }

        package func linkParents() throws {
            for (entity, element, _) in entities {
                guard let parentName = element["parentEntity"], !parentName.isEmpty else { continue }
                guard let parent = entitiesByName[parentName] else {
                    throw values(element).error("names parent entity '\(parentName)' that the model does not have")
                }
                parent.subentities.append(entity)
            }
            for (entity, element, name) in entities where entity.inheritsFromItself {
                throw values(element).error("inherits from itself (entity \(name) is among its own parent entities)")
            }
        }

        // MARK: Properties

        package func readProperties(_ entity: NSEntityDescription, _ element: ModelXMLElement, _ name: String) throws {
            var properties: [NSPropertyDescription] = []
            var lines: [String: Int] = [:]
            for child in element.children {
                let childValues = values(child, scope: "in entity \(name)")
                let property: NSPropertyDescription
                switch child.name {
                case "attribute":
                    let attribute = try ModelAttributeReader.attribute(childValues, composites: composites)
                    if let derived = attribute as? NSDerivedAttributeDescription {
                        derivedAttributes.append((derived, childValues))
                    }
                    property = attribute
                case "relationship":
                    let relationship = try ModelPropertyReader.relationship(childValues)
                    relationships.append((relationship, childValues))
                    property = relationship
                case "fetchedProperty":
                    property = try ModelPropertyReader.fetchedProperty(childValues, entitiesByName: entitiesByName)
                default:
                    continue
                }
                if let first = lines[property.name] {
                    throw childValues.error(
                        "repeats the property name '\(property.name)' (first declared on line \(first))")
                }
                if NSPropertyDescription.reservedNames.contains(property.name) {
                    throw childValues.error("uses the name '\(property.name)', which NSManagedObject reserves")
                }
                lines[property.name] = child.line
                properties.append(property)
            }
            entity.properties = properties
        }

        /// A subentity may not declare a property its ancestors already have.
        package func checkInheritedNames() throws {
            for (entity, element, name) in entities {
                guard let parent = entity.superentity else { continue }
                let inherited = parent.propertiesByName
                for property in entity.ownProperties {
                    guard let ancestorProperty = inherited[property.name] else { continue }
                    let line =
                        element.children.first { $0["name"] == property.name && $0.name != "userInfo" } ?? element
                    throw values(line, scope: "in entity \(name)").error(
                        "repeats the property '\(property.name)' that it inherits from entity \(ancestorProperty.entity?.name ?? "?")"
                    )
                }
            }
        }

        /// Sets a relationship's destination and inverse, which may be declared anywhere in the file.
        package func link(_ relationship: NSRelationshipDescription, _ values: ModelElementValues) throws {
            let destinationName = try values.required("destinationEntity")
            guard let destination = entitiesByName[destinationName] else {
                throw values.error("names destination entity '\(destinationName)' that the model does not have")
            }
            relationship.destinationEntity = destination
            guard let inverseName = values["inverseName"], !inverseName.isEmpty else { return }
            let inverseEntityName = values["inverseEntity"] ?? destinationName
            guard let inverseEntity = entitiesByName[inverseEntityName] else {
                throw values.error("names inverse entity '\(inverseEntityName)' that the model does not have")
            }
            guard let inverseProperty = inverseEntity.propertiesByName[inverseName] else {
                throw values.error("names inverse '\(inverseName)' that entity \(inverseEntityName) does not have")
            }
            guard let inverse = inverseProperty as? NSRelationshipDescription else {
                throw values.error(
                    "names inverse '\(inverseName)', which is not a relationship of entity \(inverseEntityName)")
            }
            relationship.inverseRelationship = inverse
        }

        /// A derivation may only read keys its entity has (reading another traps, as `value(forKey:)` does).
        package func checkDerivation(_ attribute: NSDerivedAttributeDescription, _ values: ModelElementValues) throws {
            guard let expression = attribute.derivationExpression, let entity = attribute.entity else { return }
            let known = entity.propertiesByName
            for key in DerivationKeys.rootKeys(of: expression) where known[key] == nil {
                throw values.error("derives its value from '\(key)', which entity \(entity.name ?? "?") does not have")
            }
        }

        // MARK: Constraints and indexes

        package func readConstraintsAndIndexes(
            _ entity: NSEntityDescription, _ element: ModelXMLElement, _ name: String
        ) throws {
            let scope = "in entity \(name)"
            let known = entity.propertiesByName
            func property(_ values: ModelElementValues, key: String) throws -> NSPropertyDescription {
                let propertyName = try values.required(key)
                guard let property = known[propertyName] else {
                    throw values.error("names property '\(propertyName)' that entity \(name) does not have")
                }
                return property
            }
            var constraints: [[Any]] = []
            for block in element.children(named: "uniquenessConstraints") {
                try values(block, scope: scope).checkChildren(["uniquenessConstraint"])
                for constraint in block.children {
                    try values(constraint, scope: scope).checkChildren(["constraint"])
                    let names = try constraint.children.map {
                        try property(values($0, scope: scope), key: "value").name
                    }
                    if !names.isEmpty { constraints.append(names) }
                }
            }
            entity.uniquenessConstraints = constraints

            var indexes: [NSFetchIndexDescription] = []
            func add(_ index: NSFetchIndexDescription, _ values: ModelElementValues) throws {
                guard !indexes.contains(where: { $0.name == index.name }) else {
                    throw values.error("repeats the index name '\(index.name)'")
                }
                indexes.append(index)
            }
            for indexElement in element.children(named: "fetchIndex") {
                let indexValues = values(indexElement, scope: scope)
                try indexValues.checkChildren(["fetchIndexElement"])
                let index = NSFetchIndexDescription(name: try indexValues.identifier(), elements: [])
                index.partialIndexPredicate = try indexValues.predicate("partialIndexPredicate")
                index.elements = try indexElement.children.map {
                    try fetchIndexElement(values($0, scope: scope), property: property)
                }
                try add(index, indexValues)
            }
            for block in element.children(named: "compoundIndexes") {
                try values(block, scope: scope).checkChildren(["compoundIndex"])
                for compound in block.children {
                    let compoundValues = values(compound, scope: scope)
                    try compoundValues.checkChildren(["index"])
                    let elements = try compound.children.map {
                        NSFetchIndexElementDescription(
                            property: try property(values($0, scope: scope), key: "value"), collationType: .binary)
                    }
                    try add(
                        NSFetchIndexDescription(name: "\(name)_compoundIndex_\(indexes.count + 1)", elements: elements),
                        compoundValues)
                }
            }
            entity.indexes = indexes
        }

        package func fetchIndexElement(
            _ values: ModelElementValues, property: (ModelElementValues, String) throws -> NSPropertyDescription
        ) throws -> NSFetchIndexElementDescription {
            let indexed: NSPropertyDescription
            if values["property"] == nil, let expression = try values.expression("expression") {
                let description = NSExpressionDescription()
                description.name = values["expression"] ?? ""
                description.expression = expression
                indexed = description
            } else {
                indexed = try property(values, "property")
            }
            let typeName = values["type"] ?? "Binary"
            let type: NSFetchIndexElementType
            switch typeName.lowercased() {
            case "binary": type = .binary
            case "rtree": type = .rTree
            default: throw values.error("has type \"\(typeName)\", which is not Binary or RTree")
            }
            let element = NSFetchIndexElementDescription(property: indexed, collationType: type)
            switch (values["order"] ?? "ascending").lowercased() {
            case "ascending": element.isAscending = true
            case "descending": element.isAscending = false
            default: throw values.error("has order \"\(values["order"] ?? "")\", which is not ascending or descending")
            }
            return element
        }

        // MARK: Model-level elements

        /// The model-level elements named `tag`, with their names, refusing a name used twice.
        package func uniquelyNamed(_ tag: String, _ kind: String) throws -> [(name: String, values: ModelElementValues)]
        {
            var seen = Set<String>()
            return try root.children(named: tag).map { element in
                let elementValues = values(element)
                let name = try elementValues.required("name")
                guard seen.insert(name).inserted else {
                    throw elementValues.error("repeats the \(kind) name '\(name)'")
                }
                return (name, elementValues)
            }
        }

        package func readTemplates(into model: NSManagedObjectModel) throws {
            for (name, templateValues) in try uniquelyNamed("fetchRequest", "fetch request template") {
                model.setFetchRequestTemplate(
                    try ModelFetchRequestReader.request(templateValues, entitiesByName: entitiesByName), forName: name)
            }
        }

        package func readConfigurations(into model: NSManagedObjectModel) throws {
            for (name, configurationValues) in try uniquelyNamed("configuration", "configuration") {
                try configurationValues.checkChildren(["memberEntity"])
                let element = configurationValues.element
                let members = try element.children.map { member -> NSEntityDescription in
                    let memberValues = values(member, scope: "in configuration \(name)")
                    let entityName = try memberValues.required("name")
                    guard let entity = entitiesByName[entityName] else {
                        throw memberValues.error("names entity '\(entityName)' that the model does not have")
                    }
                    return entity
                }
                model.setEntities(members, forConfigurationName: name)
            }
        }
    }
}
