/// Turns the dictionaries or objects of an ``NSBatchInsertRequest`` into rows of
/// stored attribute values, checking them as a save would check the same values:
/// known keys only, values of the attribute's type, required attributes present.
/// Attributes a row leaves out take their default value.
struct BatchInsertRows {
    let entity: NSEntityDescription
    /// The stored attributes, in the order of each row's values.
    let attributes: [NSAttributeDescription]
    /// The rows so far.
    private(set) var values: [[Any?]] = []
    private let indexByName: [String: Int]
    /// Every attribute's default value in stored form (the entity's precomputed defaults).
    private let defaults: [Any?]

    init(entity: NSEntityDescription) {
        self.entity = entity
        attributes = entity.facts.slots.compactMap { $0 as? NSAttributeDescription }.filter(\.isStored)
        indexByName = Dictionary(uniqueKeysWithValues: attributes.enumerated().map { ($1.name, $0) })
        defaults = attributes.map { entity.facts.defaultStorage[$0.slot] }
    }

    /// Adds the row a dictionary (attribute name → value) describes.
    mutating func append(_ dictionary: [String: Any]) throws {
        var row = defaults
        for (key, value) in dictionary {
            let attribute = try self.attribute(named: key)
            guard let index = indexByName[attribute.name] else { continue }
            guard let value = CollectionValue.unwrapNull(value) else {
                row[index] = nil
                continue
            }
            guard let stored = AttributeValue.coerce(value, to: attribute) else {
                throw error(
                    NSManagedObjectValidationError, key: key, value: value,
                    "expected a \(attribute.attributeType.displayName) value, given \(type(of: value)) (\(value))")
            }
            row[index] = stored
        }
        try finish(row)
    }

    /// Adds the row a dictionary handler filled.
    mutating func append(_ dictionary: NSMutableDictionary) throws {
        var converted: [String: Any] = [:]
        for (key, value) in dictionary {
            guard let name = key as? String else {
                throw CoreDataError.make(
                    NSManagedObjectValidationError,
                    "Batch insert into \(entity.name ?? "?"): dictionary keys must be attribute names, given \(type(of: key)) (\(key))"
                )
            }
            converted[name] = value
        }
        try append(converted)
    }

    /// Adds the row an object handler set up (the object is in no context).
    mutating func append(_ object: NSManagedObject) throws {
        if let (key, problem) = object.rejectedAssignments.sorted(by: { $0.key < $1.key }).first {
            throw error(NSManagedObjectValidationError, key: key, value: nil, problem)
        }
        for case let relationship as NSRelationshipDescription in entity.facts.slots {
            let stored = object.storage[relationship.slot]
            let isSet =
                relationship.isToMany ? !((stored as? ToManyRelationship)?.members.isEmpty ?? true) : stored != nil
            if isSet { throw relationshipError(relationship.name) }
        }
        try finish(attributes.map { object.storage[$0.slot] })
    }

    private func attribute(named key: String) throws -> NSAttributeDescription {
        switch entity.facts.propertiesByName[key] {
        case let attribute as NSAttributeDescription:
            return attribute
        case is NSRelationshipDescription:
            throw relationshipError(key)
        default:
            throw error(
                NSManagedObjectValidationError, key: key, value: nil, "the entity has no attribute named '\(key)'")
        }
    }

    private mutating func finish(_ row: [Any?]) throws {
        for (index, attribute) in attributes.enumerated() where row[index] == nil && !attribute.isOptional {
            throw error(
                NSValidationMissingMandatoryPropertyError, key: attribute.name, value: nil,
                "required attribute '\(attribute.name)' has no value and no default (row \(values.count))")
        }
        values.append(row)
    }

    private func relationshipError(_ key: String) -> NSError {
        error(
            NSManagedObjectValidationError, key: key, value: nil,
            "'\(key)' is a relationship; batch inserts set attributes only (insert, then relate objects in a context)")
    }

    private func error(_ code: Int, key: String, value: Any?, _ message: String) -> NSError {
        var info: [String: Any] = [NSValidationKeyErrorKey: key]
        if let value { info[NSValidationValueErrorKey] = value }
        return CoreDataError.make(code, "Batch insert into \(entity.name ?? "?").\(key): \(message)", info)
    }
}
