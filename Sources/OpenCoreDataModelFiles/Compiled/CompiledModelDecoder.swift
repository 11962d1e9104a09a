/// Reads a compiled model: the keyed archive of `NSManagedObjectModel` that Xcode writes
/// as a `.mom` file and Core Data caches in a store's `Z_MODELCACHE`.
///
/// The archive is read as data (``KeyedArchive``), class by class and key by key, in
/// passes: entities, then inheritance, then properties, then what refers to entities
/// (relationship destinations and inverses, fetch requests, configurations). Anything
/// missing or of an unknown kind is a ``ModelLoadingError`` naming the entity and property.
///
/// An object is read as the nearest Core Data class in its recorded class chain, so the
/// same reader takes the archives of Xcode 3's `.xcdatamodel/elements` files, whose
/// objects are the editor's subclasses (the model's root is an `XDPMModel`).
package struct CompiledModelDecoder {
    package let source: ModelFileSource
    private let predicates = ArchivedPredicateDecoder()

    package init(source: ModelFileSource) {
        self.source = source
    }

    /// Fills `model` (a new, empty one) from the archive in `data`.
    package func decode(_ data: Data, into model: NSManagedObjectModel) throws {
        var state = State()
        do {
            let root = try KeyedArchive(data: data).topObject(forKey: "root")
            guard Self.kind(of: root) == "NSManagedObjectModel" else {
                throw failure(
                    nil,
                    "is not a Core Data model archive: its root object is \(Self.describeClass(of: root)), not a kind of NSManagedObjectModel"
                )
            }
            try declareEntities(root, &state)
            try linkSuperentities(&state)
            try readProperties(&state)
            try linkRelationships(&state)
            try assembleModel(root, into: model, &state)
        } catch let error as ModelLoadingError {
            throw error
        } catch {
            throw failure(state.context, "\(error)")
        }
    }

    /// What the passes share, by archive object index.
    private struct State {
        package var entities: [(archived: ArchivedValue, entity: NSEntityDescription)] = []
        package var entityByIndex: [Int: NSEntityDescription] = [:]
        package var entityByName: [String: NSEntityDescription] = [:]
        package var ownProperties: [ObjectIdentifier: [NSPropertyDescription]] = [:]
        package var pendingRelationships: [(NSRelationshipDescription, ArchivedValue, NSEntityDescription)] = []
        package var pendingFetchedProperties: [(NSFetchedPropertyDescription, ArchivedValue, NSEntityDescription)] = []
        package var pendingIndexes: [(NSEntityDescription, ArchivedValue)] = []
        /// The element being read, for messages about damage found below it.
        package var context: String?
    }

    // MARK: Passes

    private func declareEntities(_ root: ArchivedValue, _ state: inout State) throws {
        for (key, archived) in try root.field("NSEntities")?.entries() ?? [] {
            state.context = "entity '\(key)'"
            guard Self.kind(of: archived) == "NSEntityDescription", let index = archived.objectIndex else {
                throw failure(state.context, "is \(Self.describeClass(of: archived)), not an entity")
            }
            let entity = NSEntityDescription()
            let name = try archived.string("NSEntityName") ?? key
            guard state.entityByName[name] == nil else { throw failure(state.context, "is defined twice") }
            entity.name = name
            entity.managedObjectClassName = try archived.string("NSClassNameForEntity") ?? "NSManagedObject"
            entity.isAbstract = try archived.bool("NSIsAbstract") ?? false
            entity.userInfo = try userInfo(archived)
            entity.versionHashModifier = try archived.string("NSVersionHashModifier")
            entity.renamingIdentifier = try archived.string("NSRenamingIdentifier")
            entity.uniquenessConstraints = try (archived.field("NSUniqueTuples")?.members() ?? []).map { tuple in
                try tuple.members().map { member -> Any in
                    guard let name = try member.stringValue ?? member.string("NSPropertyName") else {
                        throw failure(state.context, "has a uniqueness constraint that names no property")
                    }
                    return name
                }
            }
            state.entities.append((archived, entity))
            state.entityByIndex[index] = entity
            state.entityByName[name] = entity
        }
        state.context = nil
    }

    private func linkSuperentities(_ state: inout State) throws {
        var children: [ObjectIdentifier: [NSEntityDescription]] = [:]
        for (archived, entity) in state.entities {
            guard let parent = try archived.field("NSSuperentity") else { continue }
            guard let index = parent.objectIndex, let superentity = state.entityByIndex[index] else {
                throw failure(
                    "entity '\(entity.name ?? "")'", "has a superentity that is not among the model's entities")
            }
            children[ObjectIdentifier(superentity), default: []].append(entity)
        }
        for (_, entity) in state.entities {
            if let subentities = children[ObjectIdentifier(entity)] {
                entity.subentities = subentities.sorted { ($0.name ?? "") < ($1.name ?? "") }
            }
        }
        // A cycle would make every later walk up the hierarchy endless.
        for (_, entity) in state.entities where entity.inheritsFromItself {
            throw failure("entity '\(entity.name ?? "")'", "inherits from itself")
        }
    }

    private func readProperties(_ state: inout State) throws {
        var listed: [ObjectIdentifier: Set<String>] = [:]
        for (archived, entity) in state.entities {
            listed[ObjectIdentifier(entity)] = Set(try archived.field("NSProperties")?.entries().map(\.key) ?? [])
        }
        for (archived, entity) in state.entities {
            var own: [NSPropertyDescription] = []
            // Inherited properties appear again in each subentity: wrapped in a proxy in
            // compiled models, as full copies in the models Core Data caches in stores.
            let inherited = entity.superentity.flatMap { listed[ObjectIdentifier($0)] } ?? []
            for (key, value) in try archived.field("NSProperties")?.entries() ?? [] where !inherited.contains(key) {
                state.context = "entity '\(entity.name ?? "")' property '\(key)'"
                if value.className == "_NSPropertyDescriptionProxy" { continue }
                let property = try makeProperty(value, entity: entity, &state)
                if property.name.isEmpty { property.name = key }
                own.append(property)
            }
            state.context = nil
            entity.properties = own.sorted { $0.name < $1.name }
            if let indexes = try archived.field("NSFetchIndexDescriptions") {
                state.pendingIndexes.append((entity, indexes))
            }
        }
    }

    private func makeProperty(
        _ value: ArchivedValue, entity: NSEntityDescription, _ state: inout State
    ) throws -> NSPropertyDescription {
        let property: NSPropertyDescription
        switch Self.kind(of: value) {
        case "NSAttributeDescription", "NSDerivedAttributeDescription", "NSCompositeAttributeDescription":
            property = try makeAttribute(value, depth: 0)
        case "NSRelationshipDescription":
            let relationship = NSRelationshipDescription()
            relationship.minCount = Int(try value.integer("NSMinCount") ?? 0)
            relationship.maxCount = Int(try value.integer("NSMaxCount") ?? 1)
            let rule = try value.integer("NSDeleteRule") ?? 1
            guard rule >= 0, let deleteRule = NSDeleteRule(rawValue: UInt(rule)) else {
                throw failure(state.context, "has unknown delete rule \(rule)")
            }
            relationship.deleteRule = deleteRule
            state.pendingRelationships.append((relationship, value, entity))
            property = relationship
        case "NSFetchedPropertyDescription":
            let fetched = NSFetchedPropertyDescription()
            state.pendingFetchedProperties.append((fetched, value, entity))
            property = fetched
        default:
            throw failure(state.context, "is \(Self.describeClass(of: value)), which is not a kind of property")
        }
        try readCommonFields(value, into: property)
        return property
    }

    private func makeAttribute(_ value: ArchivedValue, depth: Int) throws -> NSAttributeDescription {
        let attribute: NSAttributeDescription
        switch Self.kind(of: value) {
        case "NSDerivedAttributeDescription":
            let derived = NSDerivedAttributeDescription()
            derived.derivationExpression = try value.field("NSDerivationExpression").map {
                try predicates.expression($0, depth: 0)
            }
            attribute = derived
        case "NSCompositeAttributeDescription":
            guard depth < 8 else {
                throw BinaryPropertyListError(description: "composite attributes nested too deeply")
            }
            let composite = NSCompositeAttributeDescription()
            composite.elements = try (value.field("NSCompositeElements")?.members() ?? []).map { element in
                let member = try makeAttribute(element, depth: depth + 1)
                try readCommonFields(element, into: member)
                return member
            }
            attribute = composite
        default:
            attribute = NSAttributeDescription()
        }
        let code = try value.integer("NSAttributeType") ?? 0
        guard code >= 0, let type = NSAttributeType(rawValue: UInt(code)) else {
            throw BinaryPropertyListError(description: "unknown attribute type \(code)")
        }
        if !(attribute is NSCompositeAttributeDescription) { attribute.attributeType = type }
        if let className = try value.string("NSAttributeValueClassName") {
            attribute.attributeValueClassName = className
        }
        let transformer = try value.string("NSValueTransformerName")
        attribute.valueTransformerName =
            transformer == "NSSecureUnarchiveFromDataTransformerName" ? "NSSecureUnarchiveFromData" : transformer
        let flags = try value.integer("NSFlagsKey") ?? 0
        attribute.allowsExternalBinaryDataStorage = flags & 0x4 != 0
        attribute.preservesValueInHistoryOnDeletion = flags & 0x10 != 0
        attribute.isIndexed = try value.bool("NSIsIndexed") ?? false
        try readBounds(value, flags: flags, into: attribute)
        if let archived = try value.field("NSDefaultValue"), let constant = try predicates.constant(archived) {
            guard let stored = AttributeValue.coerce(constant, to: type) else {
                throw BinaryPropertyListError(
                    description: "default value \(constant) does not fit attribute type \(type.displayName)")
            }
            attribute.defaultValue = stored
        }
        return attribute
    }

    /// Minimum and maximum kept as numbers (`NSMinValueName`, `NSMaxValueName`, flagged in
    /// `NSFlagsKey`) instead of predicates, as some compilers write them: the same rules
    /// the model editor's fields make (length for strings, the value for numbers and dates).
    private func readBounds(_ value: ArchivedValue, flags: Int64, into attribute: NSAttributeDescription) throws {
        var rules: [NSPredicate] = []
        var warnings: [String] = []
        for (flag, key, lower) in [(Int64(0x2), "NSMinValueName", true), (Int64(0x1), "NSMaxValueName", false)]
        where flags & flag != 0 {
            let bound: Double
            switch try value.field(key)?.value {
            case let .integer(number)?: bound = Double(number)
            case let .real(number)?: bound = number
            default: throw BinaryPropertyListError(description: "\(key) is flagged but holds no number")
            }
            let operation: NSComparisonPredicate.Operator = lower ? .greaterThanOrEqualTo : .lessThanOrEqualTo
            let left: NSExpression
            let right: NSExpression
            let code: Int
            switch attribute.attributeType {
            case .stringAttributeType, .binaryDataAttributeType:
                (left, right) = (
                    NSExpression(forKeyPath: "length"), NSExpression(forConstantValue: NSNumber(value: bound))
                )
                code = lower ? NSValidationStringTooShortError : NSValidationStringTooLongError
            case .dateAttributeType:
                (left, right) = (
                    .expressionForEvaluatedObject(),
                    NSExpression(forConstantValue: Date(timeIntervalSinceReferenceDate: bound))
                )
                code = lower ? NSValidationDateTooSoonError : NSValidationDateTooLateError
            default:
                (left, right) = (
                    .expressionForEvaluatedObject(), NSExpression(forConstantValue: NSNumber(value: bound))
                )
                code = lower ? NSValidationNumberTooSmallError : NSValidationNumberTooLargeError
            }
            rules.append(
                NSComparisonPredicate(
                    leftExpression: left, rightExpression: right, modifier: .direct, type: operation, options: []))
            warnings.append(Self.warning(forCode: code))
        }
        if !rules.isEmpty { attribute.setValidationPredicates(rules, withValidationWarnings: warnings) }
    }

    /// Name, flags, user info, modifiers and validation rules, which every property archives alike.
    private func readCommonFields(_ value: ArchivedValue, into property: NSPropertyDescription) throws {
        property.name = try value.string("NSPropertyName") ?? ""
        // Newer archives pack the flags into `_P` (bit 0 marks it valid); older ones have one key per flag.
        let packed = try value.integer("_P") ?? 0
        if packed & 0x1 != 0 {
            property.isOptional = packed & 0x2 != 0
            property.isTransient = packed & 0x8 != 0
            property.isIndexedBySpotlight = packed & 0x100 != 0
            (property as? NSAttributeDescription)?.allowsCloudEncryption = packed & 0x800 != 0
            (property as? NSRelationshipDescription)?.isOrdered = packed & 0x400 != 0
        } else {
            property.isOptional = try value.bool("NSIsOptional") ?? false
            property.isTransient = try value.bool("NSIsTransient") ?? false
            property.isIndexedBySpotlight = try value.bool("NSIndexedBySpotlight") ?? false
            (property as? NSAttributeDescription)?.allowsCloudEncryption =
                try value.bool("NSAllowsCloudEncryption") ?? false
            (property as? NSRelationshipDescription)?.isOrdered = try value.bool("NSIsOrdered") ?? false
        }
        property.userInfo = try userInfo(value)
        property.versionHashModifier = try value.string("NSVersionHashModifier")
        property.renamingIdentifier = try value.string("NSRenamingIdentifier")
        let rules = try (value.field("NSValidationPredicates")?.members() ?? []).map { try predicates.predicate($0) }
        if !rules.isEmpty {
            let warnings = try (value.field("NSValidationWarnings")?.members() ?? []).map { warning -> String in
                if let text = warning.stringValue { return text }
                if case let .integer(code)? = warning.value { return Self.warning(forCode: Int(code)) }
                throw BinaryPropertyListError(
                    description: "a validation warning that is neither text nor an error code")
            }
            property.setValidationPredicates(
                property.validationPredicates + rules, withValidationWarnings: property.validationWarnings + warnings)
        }
    }

    /// The relationship `name` of `entity` or, failing that, of the first of its
    /// subentities (depth first) that has one.
    private static func relationship(
        named name: String, onOrBelow entity: NSEntityDescription
    )
        -> NSRelationshipDescription?
    {
        if let found = entity.relationshipsByName[name] { return found }
        for subentity in entity.subentities {
            if let found = relationship(named: name, onOrBelow: subentity) { return found }
        }
        return nil
    }

    private func linkRelationships(_ state: inout State) throws {
        for (relationship, archived, entity) in state.pendingRelationships {
            state.context = "entity '\(entity.name ?? "")' relationship '\(relationship.name)'"
            let destination: NSEntityDescription?
            if let index = try archived.field("NSDestinationEntity")?.objectIndex {
                destination = state.entityByIndex[index]
            } else {
                destination = try archived.string("_NSDestinationEntityName").flatMap { state.entityByName[$0] }
            }
            guard let destination else {
                throw failure(state.context, "has a destination that is not among the model's entities")
            }
            relationship.destinationEntity = destination
            let inverseName =
                try archived.string("_NSInverseRelationshipName")
                ?? archived.field("NSInverseRelationship")?.string("NSPropertyName")
            if let inverseName {
                // The inverse may be declared on a subentity of the destination (Core Data accepts
                // that): the archived inverse names its entity; older archives only its name.
                let inverseOwner = try archived.field("NSInverseRelationship")?.field("NSEntity")?.objectIndex
                    .flatMap { state.entityByIndex[$0] }
                guard
                    let inverse = inverseOwner?.relationshipsByName[inverseName]
                        ?? Self.relationship(named: inverseName, onOrBelow: destination)
                else {
                    throw failure(
                        state.context,
                        "names inverse '\(inverseName)', which entity '\(destination.name ?? "")' does not have")
                }
                relationship.inverseRelationship = inverse
            }
        }
        for (fetched, archived, entity) in state.pendingFetchedProperties {
            state.context = "entity '\(entity.name ?? "")' fetched property '\(fetched.name)'"
            if let request = try archived.field("NSFetchRequest") {
                fetched.fetchRequest = try fetchRequest(
                    request, fallbackEntityName: try archived.string("_NSFetchRequestEntityName"), state)
            }
        }
        for (entity, archived) in state.pendingIndexes {
            state.context = "entity '\(entity.name ?? "")' fetch index"
            entity.indexes = try archived.members().map { try fetchIndex($0, entity: entity) }
        }
        state.context = nil
    }

    private func assembleModel(_ root: ArchivedValue, into model: NSManagedObjectModel, _ state: inout State) throws {
        model.entities = state.entities.map(\.entity).sorted { ($0.name ?? "") < ($1.name ?? "") }
        for (name, members) in try root.field("NSConfigurations")?.entries() ?? [] {
            state.context = "configuration '\(name)'"
            let entities = try members.members().map { member -> NSEntityDescription in
                guard let index = member.objectIndex, let entity = state.entityByIndex[index] else {
                    throw failure(state.context, "lists an entity that is not among the model's entities")
                }
                return entity
            }
            model.setEntities(entities.sorted { ($0.name ?? "") < ($1.name ?? "") }, forConfigurationName: name)
        }
        for (name, archived) in try root.field("NSFetchRequestTemplates")?.entries() ?? [] {
            state.context = "fetch request template '\(name)'"
            model.setFetchRequestTemplate(try fetchRequest(archived, fallbackEntityName: nil, state), forName: name)
        }
        state.context = nil
        let identifiers = try (root.field("NSVersionIdentifiers")?.members() ?? []).compactMap { $0.stringValue }
        model.versionIdentifiers = Set(identifiers.map { AnyHashable($0) })
    }

    // MARK: Pieces

    private func fetchRequest(
        _ archived: ArchivedValue, fallbackEntityName: String?, _ state: State
    ) throws -> NSFetchRequest<NSFetchRequestResult> {
        let entity: NSEntityDescription?
        if let reference = try archived.field("NSEntity") {
            entity =
                reference.objectIndex.flatMap { state.entityByIndex[$0] }
                ?? reference.stringValue.flatMap { state.entityByName[$0] }
        } else {
            entity = fallbackEntityName.flatMap { state.entityByName[$0] }
        }
        guard let entity, let name = entity.name else {
            throw failure(state.context, "fetches an entity that is not among the model's entities")
        }
        let request = NSFetchRequest<NSFetchRequestResult>(entityName: name)
        request.entity = entity
        request.predicate = try archived.field("NSPredicate").map { try predicates.predicate($0) }
        request.fetchLimit = try count(archived, "NSFetchLimit")
        request.fetchOffset = try count(archived, "NSFetchOffset")
        request.fetchBatchSize = try count(archived, "NSBatchSize")
        let resultType = try archived.integer("NSResultType") ?? 0
        guard [0, 1, 2, 4].contains(resultType) else {
            throw failure(state.context, "has unknown result type \(resultType)")
        }
        request.resultType = NSFetchRequestResultType(rawValue: UInt(resultType))
        request.sortDescriptors = try archived.field("NSSortDescriptors")?.members().map { descriptor in
            guard Self.kind(of: descriptor) == "NSSortDescriptor", let key = try descriptor.string("NSKey") else {
                throw failure(
                    state.context,
                    "has a sort descriptor that is not a plain key sort (it is \(Self.describeClass(of: descriptor)))")
            }
            return NSSortDescriptor(key: key, ascending: try descriptor.bool("NSAscending") ?? true)
        }
        // Dictionary-shaped requests are not read; refusing them beats dropping their shape.
        for key in ["NSValuesToFetch", "NSValuesToGroupBy", "NSHavingPredicate"] where try archived.field(key) != nil {
            throw failure(state.context, "uses \(key), which compiled-model reading does not support")
        }
        if try archived.bool("NSHasFetchRequestFlags") == true {
            let flags = try archived.integer("NSFetchRequestFlags") ?? 0
            request.returnsDistinctResults = flags & 0x01 != 0
            request.includesSubentities = flags & 0x02 != 0
            request.includesPropertyValues = flags & 0x04 != 0
            request.returnsObjectsAsFaults = flags & 0x08 != 0
            request.includesPendingChanges = flags & 0x10 != 0
            request.shouldRefreshRefetchedObjects = flags & 0x20 != 0
        }
        if let prefetching = try archived.field("NSRelationshipKeyPathsForPrefetching") {
            request.relationshipKeyPathsForPrefetching = try prefetching.members().compactMap(\.stringValue)
        }
        return request
    }

    /// A count field of a fetch request: absent is 0, negative is damage.
    private func count(_ archived: ArchivedValue, _ key: String) throws -> Int {
        let value = try archived.integer(key) ?? 0
        guard value >= 0 else { throw BinaryPropertyListError(description: "\(key) is negative (\(value))") }
        return Int(value)
    }

    private func fetchIndex(_ archived: ArchivedValue, entity: NSEntityDescription) throws -> NSFetchIndexDescription {
        let elements = try (archived.field("NSIndexElements")?.members() ?? []).map {
            element -> NSFetchIndexElementDescription in
            guard let name = try element.string("NSPropertyName"), let property = entity.propertiesByName[name] else {
                throw BinaryPropertyListError(description: "an index element names no property of the entity")
            }
            let kind = try element.integer("NSFetchIndexElementType") ?? 0
            let description = NSFetchIndexElementDescription(
                property: property, collationType: kind == 1 ? .rTree : .binary)
            description.isAscending = try element.bool("NSAscending") ?? true
            return description
        }
        let index = NSFetchIndexDescription(name: try archived.string("NSIndexName") ?? "", elements: elements)
        index.partialIndexPredicate = try archived.field("NSPartialIndexPredicate").map { try predicates.predicate($0) }
        return index
    }

    private func userInfo(_ archived: ArchivedValue) throws -> [AnyHashable: Any]? {
        try predicates.userInfo(archived.field("NSUserInfo"))
    }

    /// Core Data archives the warnings of the rules its model editor writes as error
    /// codes; validation messages need text.
    package static func warning(forCode code: Int) -> String {
        switch code {
        case NSValidationNumberTooLargeError: "value is too large"
        case NSValidationNumberTooSmallError: "value is too small"
        case NSValidationDateTooLateError: "date is too late"
        case NSValidationDateTooSoonError: "date is too soon"
        case NSValidationStringTooLongError: "string is too long"
        case NSValidationStringTooShortError: "string is too short"
        case NSValidationStringPatternMatchingError: "string does not match the pattern"
        default: "validation rule \(code) failed"
        }
    }

    /// The classes a model archive is made of, by which its objects are read.
    private static let modelClasses: Set<String> = [
        "NSManagedObjectModel", "NSEntityDescription", "NSAttributeDescription", "NSDerivedAttributeDescription",
        "NSCompositeAttributeDescription", "NSRelationshipDescription", "NSFetchedPropertyDescription",
        "NSSortDescriptor",
    ]

    /// The Core Data class `value` is read as: its own, or the nearest ancestor in its
    /// class chain (an editor's subclass such as Xcode 3's `XDPMEntity`).
    private static func kind(of value: ArchivedValue) -> String? {
        value.nearestClass(in: modelClasses)
    }

    /// An object's class for messages: `of class Foo`, with its ancestors when it has
    /// some (`of class XDPMModel (XDPMModel → NSObject)`), or `a plain value`.
    private static func describeClass(of value: ArchivedValue) -> String {
        let chain = value.classChain
        guard let name = chain.first else { return "a plain value" }
        return chain.count > 1 ? "of class \(name) (\(chain.joined(separator: " → ")))" : "of class \(name)"
    }

    private func failure(_ context: String?, _ reason: String) -> ModelLoadingError {
        ModelLoadingError(source: source, line: nil, element: context, reason: reason)
    }
}
