import OpenCoreData

extension Schema {
    /// The Core Data model of the schema: an entity per model type (named after the class),
    /// an attribute per attribute (Swift types mapped as `ValueCodec` says), a relationship
    /// per relationship, uniqueness constraints and fetch indexes, with the options
    /// `@Attribute` and `@Relationship` give.
    ///
    /// - Throws: ``SwiftDataError/loadIssueModelContainer`` naming each property whose type
    ///   SwiftData cannot store.
    func makeManagedObjectModel() throws -> NSManagedObjectModel {
        let issues = entities.flatMap(\.issues)
        guard issues.isEmpty else {
            throw SwiftDataError.loadIssueModelContainer.explained(issues.joined(separator: "; "))
        }
        let model = NSManagedObjectModel()
        var descriptions: [String: NSEntityDescription] = [:]
        for entity in entities {
            let description = NSEntityDescription()
            description.name = entity.name
            description.managedObjectClassName = SwiftDataManagedObject.entityClassName
            descriptions[entity.name] = description
        }
        for entity in entities {
            let description = descriptions[entity.name]!
            let table = ModelTable.of(entity.type)
            var properties: [NSPropertyDescription] = []
            for property in entity.properties {
                if let attribute = property as? Attribute,
                    let modelProperty = table.properties.first(where: { $0.name == attribute.name }),
                    case .attribute(let codec) = modelProperty.kind
                {
                    properties.append(attributeDescription(attribute, codec: codec))
                } else if let relationship = property as? Relationship {
                    properties.append(
                        relationshipDescription(relationship, destination: descriptions[relationship.destination]))
                }
            }
            description.properties = properties
            description.uniquenessConstraints = entity.uniquenessConstraints
            description.indexes = entity.indices.map { names in
                let elements = names.compactMap { name in
                    description.propertiesByName[name].map {
                        NSFetchIndexElementDescription(property: $0, collationType: .binary)
                    }
                }
                return NSFetchIndexDescription(
                    name: "\(entity.name)_\(names.joined(separator: "_"))_Index", elements: elements)
            }
        }
        // Inverses once every relationship exists.
        for entity in entities {
            for relationship in entity.relationships {
                guard let inverseName = relationship.inverseName,
                    let description = descriptions[entity.name]?.relationshipsByName[relationship.name],
                    let inverse = descriptions[relationship.destination]?.relationshipsByName[inverseName]
                else { continue }
                description.inverseRelationship = inverse
            }
        }
        model.entities = entities.map { descriptions[$0.name]! }
        model.versionIdentifiers = [version.description]
        return model
    }

    private func attributeDescription(_ attribute: Attribute, codec: ValueCodec) -> NSAttributeDescription {
        let description =
            codec.composite.map { $0.attributeDescription(named: attribute.name) } ?? NSAttributeDescription()
        description.name = attribute.name
        if codec.composite != nil {
            // The composite's type is set by its class.
        } else if let transformer = attribute.valueTransformerName {
            description.attributeType = .transformableAttributeType
            description.valueTransformerName = transformer
        } else {
            description.attributeType = codec.attributeType
        }
        description.isOptional = attribute.isOptional
        description.isTransient = attribute.isTransient
        if let value = attribute.defaultValue, attribute.valueTransformerName == nil {
            description.defaultValue = codec.encode(value)
        }
        description.allowsExternalBinaryDataStorage = attribute.isExternal
        description.preservesValueInHistoryOnDeletion = attribute.options.contains(.preserveValueOnDeletion)
        description.allowsCloudEncryption = attribute.options.contains(.allowsCloudEncryption)
        description.isIndexedBySpotlight = attribute.options.contains(.spotlight)
        description.renamingIdentifier = attribute.originalName == attribute.name ? nil : attribute.originalName
        description.versionHashModifier = attribute.hashModifier
        return description
    }

    private func relationshipDescription(
        _ relationship: Relationship, destination: NSEntityDescription?
    ) -> NSRelationshipDescription {
        let description = NSRelationshipDescription()
        description.name = relationship.name
        description.destinationEntity = destination
        description.deleteRule = relationship.deleteRule.coreData
        description.isOptional = relationship.isOptional
        if relationship.isToOneRelationship {
            description.minCount = relationship.isOptional ? 0 : 1
            description.maxCount = 1
        } else {
            description.minCount = relationship.minimumModelCount ?? 0
            description.maxCount = relationship.maximumModelCount ?? 0
        }
        description.renamingIdentifier =
            relationship.originalName == relationship.name ? nil : relationship.originalName
        description.versionHashModifier = relationship.hashModifier
        return description
    }
}
