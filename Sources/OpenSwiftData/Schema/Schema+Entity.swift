import OpenCoreData

extension Schema {
    /// An entity of a schema: one model type, with its attributes and relationships.
    public final class Entity: Hashable, @unchecked Sendable, CustomDebugStringConvertible {
        /// The entity's name: the model's class name.
        public let name: String
        /// The persisted properties, in declaration order.
        public private(set) var properties: [any SchemaProperty] = []
        /// The attributes, in declaration order.
        public var attributes: [Attribute] { properties.compactMap { $0 as? Attribute } }
        /// The relationships, in declaration order.
        public var relationships: [Relationship] { properties.compactMap { $0 as? Relationship } }
        /// The properties that are saved (not ephemeral).
        public var storedProperties: [any SchemaProperty] { properties.filter { !$0.isTransient } }
        /// The properties by name.
        public var propertiesByName: [String: any SchemaProperty] {
            Dictionary(properties.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        }
        /// Combinations of property names no two models may share: each `.unique` attribute,
        /// then each `#Unique` constraint.
        public private(set) var uniquenessConstraints: [[String]] = []
        /// The `#Index` declarations, as property names.
        public private(set) var indices: [[String]] = []
        /// The entity this one inherits from (model inheritance is not supported yet: always `nil`).
        public var superentity: Entity? { nil }
        /// Entities inheriting from this one (always empty, as ``superentity``).
        public var subentities: Set<Entity> { [] }
        /// What the model type declares that SwiftData cannot store.
        private(set) var issues: [String] = []
        let type: any PersistentModel.Type

        init(type: any PersistentModel.Type) {
            self.type = type
            name = Schema.entityName(for: type)
            let table = ModelTable.of(type)
            var issues: [String] = []
            for property in table.properties {
                switch property.kind {
                case .attribute:
                    let declared = property.metadata as? Attribute
                    if property.metadata is Relationship {
                        issues.append("\(property.label) is marked @Relationship but holds no model")
                    }
                    let attribute = Attribute(
                        options: declared?.options ?? [],
                        originalName: declared.flatMap { $0.originalName.isEmpty ? nil : $0.originalName },
                        hashModifier: declared?.hashModifier)
                    attribute.name = property.name
                    attribute.valueType = property.valueType
                    attribute.isOptional = property.isOptional
                    attribute.defaultValue = property.defaultValue
                    properties.append(attribute)
                case .toOne(let destination), .toMany(let destination, _):
                    if property.metadata is Attribute {
                        issues.append("\(property.label) is marked @Attribute but holds models; use @Relationship")
                    }
                    let declared = property.metadata as? Relationship
                    let relationship = Relationship(
                        deleteRule: declared?.deleteRule ?? .nullify,
                        minimumModelCount: declared?.minimumModelCount ?? 0,
                        maximumModelCount: declared?.maximumModelCount ?? 0,
                        originalName: declared.flatMap { $0.originalName.isEmpty ? nil : $0.originalName },
                        inverse: declared?.inverseKeyPath, hashModifier: declared?.hashModifier)
                    relationship.name = property.name
                    relationship.valueType = property.valueType
                    relationship.destination = Schema.entityName(for: destination)
                    relationship.keypath = property.keyPath
                    relationship.isOptional = property.isOptional || !relationshipIsToOne(property)
                    relationship.isToOneRelationship = relationshipIsToOne(property)
                    properties.append(relationship)
                case .unsupported(let reason):
                    issues.append(reason)
                }
            }
            uniquenessConstraints = properties.compactMap { $0 as? Attribute }.filter(\.isUnique).map { [$0.name] }
            for constraint in type._$uniquenessConstraints {
                let names = constraint.map { table.property(at: $0)?.name }
                if names.contains(where: { $0 == nil }) {
                    issues.append("#Unique in \(name) names a property that is not persisted")
                } else if !uniquenessConstraints.contains(names.map { $0! }) {
                    uniquenessConstraints.append(names.map { $0! })
                }
            }
            for index in type._$indices {
                let names = index.map { table.property(at: $0)?.name }
                if names.contains(where: { $0 == nil }) {
                    issues.append("#Index in \(name) names a property that is not persisted")
                } else {
                    indices.append(names.map { $0! })
                }
            }
            self.issues = issues
        }

        /// Pairs each relationship with its inverse: the one declared (on either side) with
        /// `inverse:`, else the destination's only relationship back to this entity when this
        /// entity also has only one relationship to the destination (SwiftData's inference).
        func resolveInverses(in schema: Schema) {
            for relationship in relationships where relationship.inverseName == nil {
                guard let destination = schema.entities.first(where: { $0.name == relationship.destination }) else {
                    continue
                }
                if let inverse = relationship.inverseKeyPath {
                    guard let inverseName = ModelTable.of(destination.type).property(at: inverse)?.name,
                        let other = destination.relationships.first(where: { $0.name == inverseName })
                    else { continue }
                    pair(relationship, other)
                    continue
                }
                let table = ModelTable.of(type)
                if let other = destination.relationships.first(where: { candidate in
                    candidate.inverseKeyPath.flatMap { table.property(at: $0)?.name } == relationship.name
                }) {
                    pair(relationship, other)
                    continue
                }
                let mine = relationships.filter { $0.destination == destination.name && $0.inverseKeyPath == nil }
                let theirs = destination.relationships.filter {
                    $0.destination == name && $0.inverseKeyPath == nil && $0.inverseName == nil && $0 !== relationship
                }
                if mine.count == 1, theirs.count == 1 { pair(relationship, theirs[0]) }
            }
        }

        private func pair(_ relationship: Relationship, _ other: Relationship) {
            relationship.inverseName = other.name
            other.inverseName = relationship.name
        }

        public static func == (lhs: Entity, rhs: Entity) -> Bool { lhs === rhs }
        public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }

        public var debugDescription: String {
            "Entity(name: \(name), properties: \(properties.map(\.debugDescription)))"
        }
    }
}

private func relationshipIsToOne(_ property: ModelProperty) -> Bool {
    if case .toOne = property.kind { return true }
    return false
}
