/// Reads a compiled mapping model: the keyed archive of `NSMappingModel` that Xcode
/// writes as a `.cdm` file.
///
/// The archive is read as data (``KeyedArchive``), key by key: the model's
/// `NSEntityMappings`; each entity mapping's name, type, entity names and version hashes,
/// source expression, policy class name, property mappings and user info; each property
/// mapping's `NSDestinationPropertyName`, `NSValueExpression` and user info. Expressions
/// are read as compiled models' predicates are. Anything missing or of an unknown kind is
/// a ``ModelLoadingError`` naming the mapping.
package struct CompiledMappingModelDecoder {
    package let source: ModelFileSource
    private let expressions = ArchivedPredicateDecoder()

    package init(source: ModelFileSource) {
        self.source = source
    }

    package func decode(_ data: Data) throws -> NSMappingModel {
        var context: String?
        do {
            let root = try KeyedArchive(data: data).topObject(forKey: "root")
            guard root.className == "NSMappingModel" else {
                throw failure(
                    nil, "is not a compiled mapping model (its root object is \(root.className ?? "not an object"))")
            }
            let model = NSMappingModel()
            model.entityMappings = try (root.field("NSEntityMappings")?.members() ?? []).enumerated().map {
                index, archived in
                context = "entity mapping #\(index + 1)"
                let mapping = try entityMapping(archived)
                context = "entity mapping '\(mapping.name ?? "")'"
                return mapping
            }
            return model
        } catch let error as ModelLoadingError {
            throw error
        } catch {
            throw failure(context, "\(error)")
        }
    }

    private func entityMapping(_ archived: ArchivedValue) throws -> NSEntityMapping {
        guard archived.className == "NSEntityMapping" else {
            throw failure(nil, "holds a \(archived.className ?? "plain value") where an entity mapping belongs")
        }
        let mapping = NSEntityMapping()
        mapping.name = try archived.string("NSMappingName")
        let typeCode = try archived.integer("NSMappingType") ?? 0
        guard let type = NSEntityMappingType(rawValue: UInt(clamping: max(typeCode, 0))) else {
            throw failure("entity mapping '\(mapping.name ?? "")'", "has an unknown mapping type \(typeCode)")
        }
        mapping.mappingType = type
        mapping.sourceEntityName = try archived.string("NSSourceEntityName")
        mapping.destinationEntityName = try archived.string("NSDestinationEntityName")
        mapping.sourceEntityVersionHash = try data(archived.field("NSSourceEntityVersionHash"))
        mapping.destinationEntityVersionHash = try data(archived.field("NSDestinationEntityVersionHash"))
        mapping.sourceExpression = try archived.field("NSSourceExpression").map {
            try expressions.expression($0, depth: 0)
        }
        mapping.entityMigrationPolicyClassName = try archived.string("NSEntityMigrationPolicyClassName")
        mapping.userInfo = try userInfo(archived)
        mapping.attributeMappings = try propertyMappings(archived.field("NSAttributeMappings"))
        mapping.relationshipMappings = try propertyMappings(archived.field("NSRelationshipMappings"))
        return mapping
    }

    private func propertyMappings(_ archived: ArchivedValue?) throws -> [NSPropertyMapping] {
        try (archived?.members() ?? []).map { item in
            guard item.className == "NSPropertyMapping" else {
                throw failure(nil, "holds a \(item.className ?? "plain value") where a property mapping belongs")
            }
            let mapping = NSPropertyMapping()
            mapping.name = try item.string("NSDestinationPropertyName")
            mapping.valueExpression = try item.field("NSValueExpression").map {
                try expressions.expression($0, depth: 0)
            }
            mapping.userInfo = try userInfo(item)
            return mapping
        }
    }

    private func data(_ archived: ArchivedValue?) throws -> Data? {
        guard let archived else { return nil }
        return try expressions.constant(archived) as? Data
    }

    private func userInfo(_ archived: ArchivedValue) throws -> [AnyHashable: Any]? {
        try expressions.userInfo(archived.field("NSUserInfo"))
    }

    private func failure(_ context: String?, _ reason: String) -> ModelLoadingError {
        ModelLoadingError(source: source, line: nil, element: context, reason: reason)
    }
}
