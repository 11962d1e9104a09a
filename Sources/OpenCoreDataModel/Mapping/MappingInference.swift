/// Infers the mapping lightweight migration uses: Core Data's rules for matching a
/// destination model's entities and properties with a source model's.
///
/// Elements match when their renaming identifiers are equal (an element without one is
/// identified by its name), so a property renamed in the model editor with the old name as
/// its renaming identifier keeps its values.
package struct MappingInference {
    package let source: [NSEntityDescription]
    package let destination: [NSEntityDescription]

    package init(source: [NSEntityDescription], destination: [NSEntityDescription]) {
        self.source = source
        self.destination = destination
    }

    package func mappingModel() throws -> NSMappingModel {
        let model = NSMappingModel()
        model.isInferred = true
        var matchedSources = Set<ObjectIdentifier>()
        var sourceRoots: [ObjectIdentifier: (destination: NSEntityDescription, source: NSEntityDescription)] = [:]
        for entity in destination.sorted(by: { ($0.name ?? "") < ($1.name ?? "") }) {
            let match = Self.match(entity, in: source)
            if let match {
                matchedSources.insert(ObjectIdentifier(match))
                try checkOneSourceHierarchy(entity, from: match, &sourceRoots)
            }
            model.entityMappings.append(try mapping(from: match, to: entity))
        }
        for entity in source where !matchedSources.contains(ObjectIdentifier(entity)) {
            let removal = NSEntityMapping()
            removal.name = "Remove\(entity.name ?? "")"
            removal.mappingType = .removeEntityMappingType
            removal.sourceEntityName = entity.name
            removal.sourceEntityVersionHash = entity.versionHash
            model.entityMappings.append(removal)
        }
        return model
    }

    /// Rows keep their primary keys, which are unique only within one hierarchy's table,
    /// so, as Core Data, lightweight migration refuses to merge two source hierarchies
    /// into one (entities that shared no root entity cannot come to share one).
    private func checkOneSourceHierarchy(
        _ entity: NSEntityDescription, from match: NSEntityDescription,
        _ sourceRoots: inout [ObjectIdentifier: (destination: NSEntityDescription, source: NSEntityDescription)]
    ) throws {
        let root = ObjectIdentifier(Self.root(of: entity))
        guard let earlier = sourceRoots[root] else {
            sourceRoots[root] = (entity, match)
            return
        }
        guard Self.root(of: earlier.source) !== Self.root(of: match) else { return }
        throw CoreDataError.make(
            NSInferredMappingModelError,
            "Can't infer a mapping: entities '\(earlier.destination.name ?? "?")' and '\(entity.name ?? "?")' come from separate inheritance hierarchies and would share the hierarchy of '\(Self.root(of: entity).name ?? "?")', which lightweight migration cannot merge"
        )
    }

    private static func root(of entity: NSEntityDescription) -> NSEntityDescription {
        var root = entity
        while let parent = root.superentity { root = parent }
        return root
    }

    /// The element of `candidates` whose renaming identifier equals `element`'s.
    package static func match<Element: NSObject>(_ element: Element, in candidates: [Element]) -> Element? {
        let identifier = renamingIdentifier(of: element)
        return candidates.first { renamingIdentifier(of: $0) == identifier }
    }

    private static func renamingIdentifier(of element: NSObject) -> String? {
        if let entity = element as? NSEntityDescription { return entity.renamingIdentifier ?? entity.name }
        if let property = element as? NSPropertyDescription { return property.renamingIdentifier ?? property.name }
        return nil
    }

    private func mapping(
        from source: NSEntityDescription?, to destination: NSEntityDescription
    ) throws -> NSEntityMapping {
        let mapping = NSEntityMapping()
        mapping.destinationEntityName = destination.name
        mapping.destinationEntityVersionHash = destination.versionHash
        guard let source else {
            mapping.name = "Add\(destination.name ?? "")"
            mapping.mappingType = .addEntityMappingType
            return mapping
        }
        mapping.name = "\(source.name ?? "")To\(destination.name ?? "")"
        mapping.sourceEntityName = source.name
        mapping.sourceEntityVersionHash = source.versionHash
        mapping.mappingType =
            source.versionHash == destination.versionHash ? .copyEntityMappingType : .transformEntityMappingType
        // In name order, so that which of two properties sharing an identifier matches is
        // always the same one.
        let sourceAttributes = source.attributesByName.values.filter { !$0.isTransient }.sorted { $0.name < $1.name }
        let sourceRelationships = source.relationshipsByName.values.filter { !$0.isTransient }.sorted {
            $0.name < $1.name
        }
        mapping.attributeMappings = try destination.attributesByName.values.filter { !$0.isTransient }
            .sorted { $0.name < $1.name }
            .map { attribute in
                let property = NSPropertyMapping()
                property.name = attribute.name
                if let match = Self.match(attribute, in: sourceAttributes) {
                    try Self.checkConvertible(match, to: attribute, entity: destination)
                    property.sourcePropertyName = match.name
                    property.valueExpression = Self.sourceValue(match.name)
                }
                return property
            }
        mapping.relationshipMappings = destination.relationshipsByName.values.sorted { $0.name < $1.name }.map {
            relationship in
            let property = NSPropertyMapping()
            property.name = relationship.name
            if let match = Self.match(relationship, in: sourceRelationships) {
                property.sourcePropertyName = match.name
                property.valueExpression = NSExpression(
                    forFunction: NSExpression(forVariable: "manager"),
                    selectorName: "destinationInstancesForSourceRelationshipNamed:sourceInstances:",
                    arguments: [NSExpression(forConstantValue: match.name), Self.sourceValue(match.name)]
                )
            }
            return property
        }
        return mapping
    }

    /// `$source.<key>`: the key of the source object being migrated.
    private static func sourceValue(_ key: String) -> NSExpression {
        NSExpression(node: .keyPath(operand: NSExpression(forVariable: "source"), path: key))
    }

    /// Refuses a type change lightweight migration cannot convert (see
    /// ``/OpenCoreDataModel/NSAttributeType/convertsInLightweightMigration(to:)``).
    private static func checkConvertible(
        _ source: NSAttributeDescription, to destination: NSAttributeDescription, entity: NSEntityDescription
    ) throws {
        if source.attributeType.convertsInLightweightMigration(to: destination.attributeType) { return }
        throw CoreDataError.make(
            NSInferredMappingModelError,
            "Can't infer a mapping for attribute '\(destination.name)' of entity '\(entity.name ?? "?")': its type changed from \(source.attributeType.displayName) to \(destination.attributeType.displayName), which lightweight migration cannot convert"
        )
    }
}

extension NSAttributeType {
    /// Whether lightweight migration converts values of this type to `destination`: any type to
    /// itself, and numbers (integers, decimals, floating point, Booleans) to one another.
    package func convertsInLightweightMigration(to destination: NSAttributeType) -> Bool {
        let numbers: Set<NSAttributeType> = [
            .integer16AttributeType, .integer32AttributeType, .integer64AttributeType,
            .decimalAttributeType, .doubleAttributeType, .floatAttributeType, .booleanAttributeType,
        ]
        return self == destination || (numbers.contains(self) && numbers.contains(destination))
    }
}
