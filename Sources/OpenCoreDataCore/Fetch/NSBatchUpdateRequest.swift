/// What executing an ``NSBatchUpdateRequest`` returns; raw values are Core Data's.
public enum NSBatchUpdateRequestResultType: UInt, Sendable {
    /// `true` when the update succeeded.
    case statusOnlyResultType = 0
    /// The `[NSManagedObjectID]` of the rows updated.
    case updatedObjectIDsResultType = 1
    /// The number of rows updated.
    case updatedObjectsCountResultType = 2
}

/// Changes attributes of every object matching a predicate in one SQL `UPDATE`,
/// without loading the objects.
///
/// `propertiesToUpdate` maps attribute names (or ``/OpenCoreDataModel/NSAttributeDescription``s) to new
/// values: constants, or ``/OpenCoreDataPredicate/NSExpression``s evaluated per row in the store
/// (`NSExpression(format: "pages + 1")`, key paths through to-one relationships).
/// Validation rules do not run. Objects already in contexts keep their old values
/// until refreshed or merged with
/// ``NSManagedObjectContext/mergeChanges(fromRemoteContextSave:into:)``.
open class NSBatchUpdateRequest: NSPersistentStoreRequest, @unchecked Sendable {
    /// The name of the entity to update.
    public let entityName: String
    /// The entity to update, when the request was made with one.
    public let entity: NSEntityDescription?
    /// Which objects to update; `nil` updates all.
    open var predicate: NSPredicate?
    /// Whether objects of subentities are updated too. Default `true`.
    open var includesSubentities = true
    /// What the result holds. Default `.statusOnlyResultType`.
    open var resultType: NSBatchUpdateRequestResultType = .statusOnlyResultType
    /// Attribute (name or description) → new value (constant or `NSExpression`).
    open var propertiesToUpdate: [AnyHashable: Any]?

    /// A batch update.
    open override var requestType: NSPersistentStoreRequestType { .batchUpdateRequestType }

    /// Updates objects of the entity named `entityName`.
    public init(entityName: String) {
        self.entityName = entityName
        self.entity = nil
        super.init()
    }

    /// Updates objects of `entity`.
    public init(entity: NSEntityDescription) {
        self.entityName = entity.name ?? ""
        self.entity = entity
        super.init()
    }

    /// The request in the store's terms; unknown keys and values of the wrong type throw here.
    func storeRequest(in model: NSManagedObjectModel) throws -> StoreBatchUpdate {
        let target = try BatchRequestEntity.resolve(entity, name: entityName, in: model, request: "batch update")
        guard let propertiesToUpdate, !propertiesToUpdate.isEmpty else {
            throw CoreDataError.make(NSCoreDataError, "The batch update of \(entityName) has no propertiesToUpdate")
        }
        var assignments: [(attribute: NSAttributeDescription, value: StoreBatchUpdate.Value)] = []
        for (key, value) in propertiesToUpdate {
            let attribute = try self.attribute(for: key, in: target)
            assignments.append((attribute, try self.value(value, for: attribute)))
        }
        // A stable column order keeps the SQL text the same from one run to the next.
        assignments.sort { $0.attribute.name < $1.attribute.name }
        let fetch = StoreFetch(
            entity: target, predicate: predicate, sortDescriptors: [], limit: 0, offset: 0,
            includesSubentities: includesSubentities)
        return StoreBatchUpdate(
            fetch: fetch, assignments: assignments, wantsObjectIDs: resultType == .updatedObjectIDsResultType)
    }

    private func attribute(for key: AnyHashable, in entity: NSEntityDescription) throws -> NSAttributeDescription {
        let name = (key.base as? NSPropertyDescription)?.name ?? (key.base as? String)
        guard let name else {
            throw CoreDataError.make(
                NSCoreDataError,
                "propertiesToUpdate keys must be attribute names or NSAttributeDescriptions, given \(type(of: key.base)) (\(key.base))"
            )
        }
        switch entity.facts.propertiesByName[name] {
        case let attribute as NSAttributeDescription where attribute.isStored:
            return attribute
        case let attribute as NSAttributeDescription:
            throw error(attribute.name, "'\(attribute.name)' is transient; only stored attributes can be batch updated")
        case is NSRelationshipDescription:
            throw error(name, "'\(name)' is a relationship; batch updates change attributes only")
        default:
            throw error(name, "the entity has no attribute named '\(name)'")
        }
    }

    private func value(_ value: Any, for attribute: NSAttributeDescription) throws -> StoreBatchUpdate.Value {
        var constant: Any? = value
        if let expression = value as? NSExpression {
            guard expression.dependsOnConstantsOnly else { return .expression(expression) }
            constant = ExpressionEvaluator.value(of: expression, object: nil, bindings: [:])
        }
        guard let constant = CollectionValue.unwrapNull(constant) else { return .constant(nil) }
        guard let stored = AttributeValue.coerce(constant, to: attribute) else {
            throw error(
                attribute.name,
                "expected a \(attribute.attributeType.displayName) value, given \(type(of: constant)) (\(constant))",
                value: constant)
        }
        return .constant(stored)
    }

    private func error(_ key: String, _ message: String, value: Any? = nil) -> NSError {
        var info: [String: Any] = [NSValidationKeyErrorKey: key]
        if let value { info[NSValidationValueErrorKey] = value }
        return CoreDataError.make(
            NSManagedObjectValidationError, "Batch update of \(entityName).\(key): \(message)", info)
    }
}
