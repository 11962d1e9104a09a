/// Writes a model as a compiled model: the keyed archive of `NSManagedObjectModel` that
/// Xcode's model compiler writes as a `.mom` file and Core Data caches in a store's
/// `Z_MODELCACHE`. The inverse of ``CompiledModelDecoder``.
///
/// The archive mirrors the classes and keys of the archives Core Data writes (the caches
/// of real stores): entities in an `NSKnownKeysDictionary1` keyed by name, each entity's
/// properties in an `NSMutableDictionary` with inherited ones as
/// `_NSPropertyDescriptionProxy` objects pointing at the superentity's, the packed flag
/// word `_P` beside the older one-key-per-flag fields, relationships naming their
/// destination and inverse both by reference and by name, and predicates as Foundation
/// archives them. Version hashes are not stored: they follow from what is, as readers
/// compute them.
package struct CompiledModelEncoder {
    private let predicates = ArchivedPredicateEncoder()

    /// `_P` bits: the word is valid, then one bit per flag (as ``CompiledModelDecoder`` reads them).
    private enum PackedFlag {
        package static let valid: Int64 = 0x1
        package static let optional: Int64 = 0x2
        package static let readOnly: Int64 = 0x4
        package static let transient: Int64 = 0x8
        /// Set in every property Core Data archives; their meaning is not documented.
        package static let alwaysSet: Int64 = 0x70
        /// Set when the property has no version hash modifier, as in Core Data's archives.
        package static let noVersionHashModifier: Int64 = 0x80
        package static let indexedBySpotlight: Int64 = 0x100
        package static let ordered: Int64 = 0x400
        package static let allowsCloudEncryption: Int64 = 0x800
    }

    /// What the encoding of one model shares: the archive and the reference of each entity
    /// and property, reserved before any is written so that they can point at each other.
    private struct State {
        package var archive = KeyedArchiveWriter()
        package var entityReferences: [ObjectIdentifier: PropertyListValue] = [:]
        package var propertyReferences: [ObjectIdentifier: PropertyListValue] = [:]
        package var entitiesByName: [String: NSEntityDescription] = [:]
        package var modelReference = KeyedArchiveWriter.null
    }

    /// The archive of `model`.
    package func encode(_ model: NSManagedObjectModel) throws -> Data {
        var state = State()
        let entities = model.entities.sorted { ($0.name ?? "") < ($1.name ?? "") }
        for entity in entities {
            guard let name = entity.name, !name.isEmpty else { throw failure(nil, "an entity has no name") }
            guard state.entitiesByName[name] == nil else { throw failure("entity '\(name)'", "is defined twice") }
            state.entitiesByName[name] = entity
        }
        state.modelReference = state.archive.reserve()
        for entity in entities {
            state.entityReferences[ObjectIdentifier(entity)] = state.archive.reserve()
            for property in entity.ownProperties {
                state.propertyReferences[ObjectIdentifier(property)] = state.archive.reserve()
            }
        }
        for entity in entities { try encodeEntity(entity, &state) }

        var fields: [String: PropertyListValue] = [:]
        fields["NSEntities"] = knownKeysDictionary(
            entities.map { ($0.name ?? "", state.entityReferences[ObjectIdentifier($0)] ?? KeyedArchiveWriter.null) },
            &state.archive)
        let templates = model.fetchRequestTemplateStorage.sorted { $0.key < $1.key }
        if templates.isEmpty {
            fields["NSFetchRequestTemplates"] = KeyedArchiveWriter.null
        } else {
            var archived: [(String, PropertyListValue)] = []
            for (name, request) in templates {
                archived.append((name, try fetchRequest(request, context: "fetch request template '\(name)'", &state)))
            }
            fields["NSFetchRequestTemplates"] = knownKeysDictionary(archived, &state.archive)
        }
        var identifiers: [PropertyListValue] = []
        for identifier in model.versionIdentifiers.compactMap({ $0.base as? String }).sorted() {
            identifiers.append(state.archive.string(identifier))
        }
        fields["NSVersionIdentifiers"] = state.archive.object(
            classChain: ["NSSet", "NSObject"], fields: ["NS.objects": .array(identifiers)])
        let configurations = model.configurations.filter { $0 != NSManagedObjectModel.defaultConfigurationName }
        if !configurations.isEmpty {
            var archived: [(key: String, value: PropertyListValue)] = []
            for name in configurations {
                let members = (model.entities(forConfigurationName: name) ?? [])
                    .sorted { ($0.name ?? "") < ($1.name ?? "") }
                    .compactMap { state.entityReferences[ObjectIdentifier($0)] }
                archived.append((name, state.archive.array(members, className: "NSMutableArray")))
            }
            fields["NSConfigurations"] = state.archive.dictionary(archived, className: "NSMutableDictionary")
        }
        state.archive.fill(state.modelReference, classChain: ["NSManagedObjectModel", "NSObject"], fields: fields)
        return state.archive.data(root: state.modelReference)
    }

    // MARK: Entities

    private func encodeEntity(_ entity: NSEntityDescription, _ state: inout State) throws {
        let name = entity.name ?? ""
        let context = "entity '\(name)'"
        guard let reference = state.entityReferences[ObjectIdentifier(entity)] else { return }
        if let parent = entity.superentity, state.entityReferences[ObjectIdentifier(parent)] == nil {
            throw failure(context, "has superentity '\(parent.name ?? "")', which is not among the model's entities")
        }
        var fields: [String: PropertyListValue] = [:]
        fields["NSEntityName"] = state.archive.string(name)
        let className = entity.managedObjectClassName ?? "NSManagedObject"
        fields["NSClassNameForEntity"] =
            className == "NSManagedObject" ? KeyedArchiveWriter.null : state.archive.string(className)
        if entity.isAbstract { fields["NSIsAbstract"] = .bool(true) }
        fields["NSUserInfo"] = try wrap(context) { try predicates.userInfo(entity.userInfo, into: &state.archive) }
        fields["NSVersionHashModifier"] = state.archive.optionalString(entity.versionHashModifier)
        fields["NSRenamingIdentifier"] = state.archive.optionalString(entity.renamingIdentifier)
        fields["NSManagedObjectModel"] = state.modelReference
        fields["NSSuperentity"] =
            entity.superentity.flatMap { state.entityReferences[ObjectIdentifier($0)] } ?? KeyedArchiveWriter.null
        let subentities = entity.subentities.sorted { ($0.name ?? "") < ($1.name ?? "") }
            .compactMap { sub in state.entityReferences[ObjectIdentifier(sub)].map { (key: sub.name ?? "", value: $0) }
            }
        fields["NSSubentities"] = state.archive.dictionary(subentities, className: "NSMutableDictionary")

        var properties: [(key: String, value: PropertyListValue)] = []
        // Inherited properties, each a proxy of the superentity's own description.
        if let parent = entity.superentity {
            for (position, property) in parent.properties.enumerated() {
                guard let underlying = state.propertyReferences[ObjectIdentifier(property)] else { continue }
                let proxy = state.archive.object(
                    classChain: ["_NSPropertyDescriptionProxy", "NSObject"],
                    fields: [
                        "NSEntityDescription": reference, "NSUnderlyingProperty": underlying,
                        "NSReferenceID": .integer(Int64(position)),
                    ])
                properties.append((property.name, proxy))
            }
        }
        for property in entity.ownProperties.sorted(by: { $0.name < $1.name }) {
            guard !property.name.isEmpty else { throw failure(context, "has a property without a name") }
            try encodeProperty(property, of: entity, &state)
            properties.append(
                (property.name, state.propertyReferences[ObjectIdentifier(property)] ?? KeyedArchiveWriter.null))
        }
        fields["NSProperties"] = state.archive.dictionary(properties, className: "NSMutableDictionary")

        if !entity.uniquenessConstraints.isEmpty {
            var tuples: [PropertyListValue] = []
            for constraint in entity.uniquenessConstraints {
                var names: [PropertyListValue] = []
                for name in NSEntityDescription.propertyNames(inConstraint: constraint) {
                    names.append(state.archive.string(name))
                }
                tuples.append(state.archive.array(names, className: "NSMutableArray"))
            }
            fields["NSUniqueTuples"] = state.archive.array(tuples, className: "NSMutableArray")
        }
        if !entity.indexes.isEmpty {
            var archived: [PropertyListValue] = []
            for index in entity.indexes {
                archived.append(
                    try fetchIndex(index, entity: entity, entityReference: reference, context: context, &state))
            }
            fields["NSFetchIndexDescriptions"] = state.archive.array(archived, className: "NSMutableArray")
        }
        state.archive.fill(reference, classChain: ["NSEntityDescription", "NSObject"], fields: fields)
    }

    private func fetchIndex(
        _ index: NSFetchIndexDescription, entity: NSEntityDescription, entityReference: PropertyListValue,
        context: String, _ state: inout State
    ) throws -> PropertyListValue {
        let reference = state.archive.reserve()
        var elements: [PropertyListValue] = []
        for element in index.elements {
            guard let name = element.property?.name ?? element.propertyName else {
                throw failure(context, "has fetch index '\(index.name)' with an element that names no property")
            }
            let archivedName = state.archive.string(name)
            elements.append(
                state.archive.object(
                    classChain: ["NSFetchIndexElementDescription", "NSObject"],
                    fields: [
                        "NSPropertyName": archivedName,
                        "NSFetchIndexElementType": .integer(Int64(element.collationType.rawValue)),
                        "NSFetchIndexDescription": reference, "NSAscending": .bool(element.isAscending),
                    ]))
        }
        let partial =
            try index.partialIndexPredicate.map { predicate in
                try wrap("\(context) fetch index '\(index.name)'") {
                    try predicates.predicate(predicate, into: &state.archive)
                }
            } ?? KeyedArchiveWriter.null
        let list = state.archive.array(elements)
        let name = state.archive.string(index.name)
        state.archive.fill(
            reference, classChain: ["NSFetchIndexDescription", "NSObject"],
            fields: [
                "NSIndexName": name, "NSPartialIndexPredicate": partial, "NSIndexElements": list,
                "NSEntity": entityReference,
            ])
        return reference
    }

    // MARK: Properties

    private func encodeProperty(
        _ property: NSPropertyDescription, of entity: NSEntityDescription, _ state: inout State
    ) throws {
        let context = "entity '\(entity.name ?? "")' property '\(property.name)'"
        guard let reference = state.propertyReferences[ObjectIdentifier(property)] else { return }
        var fields = try commonFields(property, context: context, &state)
        fields["NSEntity"] = state.entityReferences[ObjectIdentifier(entity)] ?? KeyedArchiveWriter.null
        let className: String
        switch property {
        case let attribute as NSAttributeDescription:
            className = try attributeFields(attribute, context: context, into: &fields, &state)
        case let relationship as NSRelationshipDescription:
            className = "NSRelationshipDescription"
            guard let destination = relationship.destinationEntity, let destinationName = destination.name,
                let destinationReference = state.entityReferences[ObjectIdentifier(destination)]
            else {
                throw failure(context, "has no destination among the model's entities")
            }
            fields["NSDestinationEntity"] = destinationReference
            fields["_NSDestinationEntityName"] = state.archive.string(destinationName)
            if let inverse = relationship.inverseRelationship {
                fields["NSInverseRelationship"] =
                    state.propertyReferences[ObjectIdentifier(inverse)] ?? KeyedArchiveWriter.null
                fields["_NSInverseRelationshipName"] = state.archive.string(inverse.name)
            } else {
                fields["NSInverseRelationship"] = KeyedArchiveWriter.null
                fields["_NSInverseRelationshipName"] = KeyedArchiveWriter.null
            }
            fields["NSMinCount"] = .integer(Int64(relationship.minCount))
            fields["NSMaxCount"] = .integer(Int64(relationship.maxCount))
            fields["NSDeleteRule"] = .integer(Int64(relationship.deleteRule.rawValue))
            if relationship.isOrdered { fields["NSIsOrdered"] = .bool(true) }
        case let fetched as NSFetchedPropertyDescription:
            className = "NSFetchedPropertyDescription"
            if let request = fetched.fetchRequest {
                fields["NSFetchRequest"] = try fetchRequest(request, context: context, &state)
                fields["_NSFetchRequestEntityName"] = state.archive.optionalString(
                    request.entity?.name ?? request.entityName)
            }
        default:
            throw failure(context, "is a \(type(of: property)), which a compiled model cannot hold")
        }
        state.archive.fill(reference, classChain: [className] + Self.superclasses(of: className), fields: fields)
    }

    /// The superclasses `$classes` lists after each property class.
    private static func superclasses(of className: String) -> [String] {
        switch className {
        case "NSDerivedAttributeDescription", "NSCompositeAttributeDescription":
            ["NSAttributeDescription", "NSPropertyDescription", "NSObject"]
        default: ["NSPropertyDescription", "NSObject"]
        }
    }

    /// Name, flags, user info, modifiers and validation rules, which every property archives alike.
    private func commonFields(
        _ property: NSPropertyDescription, context: String, _ state: inout State
    ) throws -> [String: PropertyListValue] {
        var fields: [String: PropertyListValue] = [:]
        fields["NSPropertyName"] = state.archive.string(property.name)
        var packed = PackedFlag.valid | PackedFlag.alwaysSet
        if property.isOptional { packed |= PackedFlag.optional; fields["NSIsOptional"] = .bool(true) }
        if property.isTransient { packed |= PackedFlag.transient; fields["NSIsTransient"] = .bool(true) }
        if property is NSDerivedAttributeDescription { packed |= PackedFlag.readOnly }
        if property.versionHashModifier == nil { packed |= PackedFlag.noVersionHashModifier }
        if property.isIndexedBySpotlight {
            packed |= PackedFlag.indexedBySpotlight; fields["NSIndexedBySpotlight"] = .bool(true)
        }
        if let relationship = property as? NSRelationshipDescription, relationship.isOrdered {
            packed |= PackedFlag.ordered
        }
        if let attribute = property as? NSAttributeDescription, attribute.allowsCloudEncryption {
            packed |= PackedFlag.allowsCloudEncryption
            fields["NSAllowsCloudEncryption"] = .bool(true)
        }
        fields["_P"] = .integer(packed)
        if property.isIndexed { fields["NSIsIndexed"] = .bool(true) }
        if let info = property.userInfo, !info.isEmpty {
            fields["NSUserInfo"] = try wrap(context) { try predicates.userInfo(info, into: &state.archive) }
        }
        if let modifier = property.versionHashModifier {
            fields["NSVersionHashModifier"] = state.archive.string(modifier)
        }
        fields["NSRenamingIdentifier"] = state.archive.optionalString(property.renamingIdentifier)
        if !property.validationPredicates.isEmpty {
            var rules: [PropertyListValue] = []
            for rule in property.validationPredicates {
                rules.append(try wrap(context) { try predicates.predicate(rule, into: &state.archive) })
            }
            var warnings: [PropertyListValue] = []
            for warning in property.validationWarnings { warnings.append(state.archive.string(warning)) }
            fields["NSValidationPredicates"] = state.archive.array(rules)
            fields["NSValidationWarnings"] = state.archive.array(warnings)
        }
        return fields
    }

    /// The attribute's own fields; returns its class name.
    private func attributeFields(
        _ attribute: NSAttributeDescription, context: String, into fields: inout [String: PropertyListValue],
        _ state: inout State, depth: Int = 0
    ) throws -> String {
        let className: String
        switch attribute {
        case let derived as NSDerivedAttributeDescription:
            className = "NSDerivedAttributeDescription"
            if let expression = derived.derivationExpression {
                fields["NSDerivationExpression"] = try wrap(context) {
                    try predicates.expression(expression, into: &state.archive, depth: 0)
                }
            }
        case let composite as NSCompositeAttributeDescription:
            className = "NSCompositeAttributeDescription"
            guard depth < 8 else { throw failure(context, "has composite attributes nested too deeply") }
            var elements: [PropertyListValue] = []
            for element in composite.elements {
                var elementFields = try commonFields(element, context: "\(context) element '\(element.name)'", &state)
                let elementClass = try attributeFields(
                    element, context: "\(context) element '\(element.name)'", into: &elementFields, &state,
                    depth: depth + 1)
                elements.append(
                    state.archive.object(
                        classChain: [elementClass] + Self.superclasses(of: elementClass), fields: elementFields))
            }
            fields["NSCompositeElements"] = state.archive.array(elements)
        default:
            className = "NSAttributeDescription"
        }
        fields["NSAttributeType"] = .integer(Int64(attribute.attributeType.rawValue))
        fields["NSAttributeValueClassName"] = state.archive.optionalString(attribute.attributeValueClassName)
        fields["NSValueTransformerName"] = state.archive.optionalString(attribute.valueTransformerName)
        var flags: Int64 = 0
        if attribute.allowsExternalBinaryDataStorage { flags |= 0x4 }
        if attribute.preservesValueInHistoryOnDeletion { flags |= 0x10 }
        fields["NSFlagsKey"] = .integer(flags)
        fields["NSDefaultValue"] = try wrap("\(context) default value") {
            try predicates.constant(attribute.defaultValue, into: &state.archive)
        }
        return className
    }

    // MARK: Fetch requests

    private func fetchRequest(
        _ request: NSFetchRequest<NSFetchRequestResult>, context: String, _ state: inout State
    ) throws -> PropertyListValue {
        for (present, key) in [
            (request.propertiesToFetch != nil, "propertiesToFetch"),
            (request.propertiesToGroupBy != nil, "propertiesToGroupBy"),
            (request.havingPredicate != nil, "havingPredicate"),
        ] where present {
            throw failure(context, "sets \(key), which compiled models written here do not hold")
        }
        var fields: [String: PropertyListValue] = [:]
        let entityName = request.entity?.name ?? request.entityName
        if let entity = request.entity, let reference = state.entityReferences[ObjectIdentifier(entity)] {
            fields["NSEntity"] = reference
        } else if let entityName, let entity = state.entitiesByName[entityName],
            let reference = state.entityReferences[ObjectIdentifier(entity)]
        {
            fields["NSEntity"] = reference
        } else {
            throw failure(context, "fetches entity '\(entityName ?? "")', which is not among the model's entities")
        }
        fields["NSPredicate"] =
            try request.predicate.map { predicate in
                try wrap(context) { try predicates.predicate(predicate, into: &state.archive) }
            }
            ?? KeyedArchiveWriter.null
        fields["NSFetchLimit"] = .integer(Int64(request.fetchLimit))
        fields["NSFetchOffset"] = .integer(Int64(request.fetchOffset))
        fields["NSBatchSize"] = .integer(Int64(request.fetchBatchSize))
        fields["NSResultType"] = .integer(Int64(request.resultType.rawValue))
        if let descriptors = request.sortDescriptors {
            var archived: [PropertyListValue] = []
            for descriptor in descriptors {
                guard let key = descriptor.key else {
                    throw failure(context, "sorts by a comparator or key path, not a key")
                }
                let archivedKey = state.archive.string(key)
                let selector = state.archive.string(descriptor.selector?.name ?? "compare:")
                archived.append(
                    state.archive.object(
                        classChain: ["NSSortDescriptor", "NSObject"],
                        fields: [
                            "NSKey": archivedKey, "NSAscending": .bool(descriptor.ascending), "NSSelector": selector,
                        ]))
            }
            fields["NSSortDescriptors"] = state.archive.array(archived)
        } else {
            fields["NSSortDescriptors"] = KeyedArchiveWriter.null
        }
        var flags: Int64 = 0
        if request.returnsDistinctResults { flags |= 0x01 }
        if request.includesSubentities { flags |= 0x02 }
        if request.includesPropertyValues { flags |= 0x04 }
        if request.returnsObjectsAsFaults { flags |= 0x08 }
        if request.includesPendingChanges { flags |= 0x10 }
        if request.shouldRefreshRefetchedObjects { flags |= 0x20 }
        fields["NSHasFetchRequestFlags"] = .bool(true)
        fields["NSFetchRequestFlags"] = .integer(flags)
        if let paths = request.relationshipKeyPathsForPrefetching {
            var archived: [PropertyListValue] = []
            for path in paths { archived.append(state.archive.string(path)) }
            fields["NSRelationshipKeyPathsForPrefetching"] = state.archive.array(archived)
        } else {
            fields["NSRelationshipKeyPathsForPrefetching"] = KeyedArchiveWriter.null
        }
        for key in ["NSValuesToFetch", "NSValuesToGroupBy", "NSHavingPredicate"] {
            fields[key] = KeyedArchiveWriter.null
        }
        return state.archive.object(
            classChain: ["NSFetchRequest", "NSPersistentStoreRequest", "NSObject"], fields: fields)
    }

    // MARK: Pieces

    /// Core Data's dictionary of entities and templates: keys in a mapping strategy, values
    /// in an array of the same order.
    private func knownKeysDictionary(
        _ entries: [(String, PropertyListValue)], _ archive: inout KeyedArchiveWriter
    ) -> PropertyListValue {
        var names: [PropertyListValue] = []
        for entry in entries { names.append(archive.string(entry.0)) }
        let keys = archive.array(names)
        let mapping = archive.object(
            classChain: ["NSKnownKeysMappingStrategy1", "NSKnownKeysMappingStrategy", "NSObject"],
            fields: ["length": .integer(Int64(entries.count)), "keys": keys, "version": .integer(1)])
        let values = archive.array(entries.map(\.1))
        let emptyToken = archive.string("__empty_slot_token_4c24_98dc_ac1e_b773__")
        return archive.object(
            classChain: [
                "NSKnownKeysDictionary1", "NSKnownKeysDictionary", "NSMutableDictionary", "NSDictionary", "NSObject",
            ],
            fields: ["values": values, "searchMapping": mapping, "emptyToken": emptyToken, "version": .integer(1)])
    }

    /// Runs `body`, naming `context` in the error a value or predicate that cannot be archived throws.
    private func wrap<T>(_ context: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as CompiledModelEncodingError where error.element == nil {
            throw CompiledModelEncodingError(element: context, reason: error.reason)
        }
    }

    private func failure(_ context: String?, _ reason: String) -> CompiledModelEncodingError {
        CompiledModelEncodingError(element: context, reason: reason)
    }
}
