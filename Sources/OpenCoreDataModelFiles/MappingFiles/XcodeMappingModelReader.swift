/// Reads Xcode's source form of a mapping model: the `xcmapping.xml` inside an
/// `.xcmappingmodel` folder.
///
/// The file is a Core Data XML store of Xcode's editing objects: one `XDDEVMAPPINGMODEL`
/// naming the two model versions by path (`sourcemodelpath`, `destinationmodelpath`),
/// an `XDDEVENTITYMAPPING` per entity mapping (`sourcename`, `destinationname`,
/// `mappingtypename`, `mappingnumber`, a filter predicate or an archived source
/// expression, a policy class name), and an `XDDEVATTRIBUTEMAPPING` or
/// `XDDEVRELATIONSHIPMAPPING` per property (`name`, an archived value expression unless
/// `autogenerateexpression` is set). It is read as the XML it is, not opened as a store.
///
/// What Xcode's compiler (`mapc`) fills in, this fills in the same way: the default
/// source fetch of each entity mapping, `$source.<name>` for an attribute the source
/// entity also has, and `destinationInstancesForEntityMappingNamed:sourceInstances:`
/// through the (first) mapping of the entity a source relationship leads to. The version
/// hashes come from the two models, so the models must be found: passed in, or at the
/// recorded paths (tried beside the mapping model and in the folders above it).
package struct XcodeMappingModelReader {
    package let source: ModelFileSource

    /// One object of the file: its kind, its attribute values by lowercased name, and the
    /// ids its relationships name.
    private struct StoredObject {
        package let kind: String
        package let line: Int
        package var attributes: [String: String] = [:]
        package var relationships: [String: [String]] = [:]

        package func flag(_ name: String) -> Bool {
            ["1", "yes", "true"].contains(attributes[name]?.lowercased() ?? "")
        }
    }

    /// The paths the file records for its source and destination models.
    package struct RecordedModels {
        package var sourcePath: String?
        package var destinationPath: String?
    }

    package func read(
        _ data: Data, sourceModel: NSManagedObjectModel?, destinationModel: NSManagedObjectModel?
    ) throws -> NSMappingModel {
        let root = try ModelXMLDocument.parse(data, source: source, allowsExternalDoctype: true)
        guard root.name == "database" else {
            throw failure(
                root.line, nil, "is not an Xcode mapping model (its root element is <\(root.name)>, not <database>)")
        }
        let objects = try storedObjects(root)
        guard let model = objects.values.first(where: { $0.kind == "XDDEVMAPPINGMODEL" }) else {
            throw failure(nil, nil, "holds no mapping model (no XDDEVMAPPINGMODEL object)")
        }
        let recorded = RecordedModels(
            sourcePath: model.attributes["sourcemodelpath"], destinationPath: model.attributes["destinationmodelpath"])
        guard let sourceModel = sourceModel ?? resolve(recorded.sourcePath),
            let destinationModel = destinationModel ?? resolve(recorded.destinationPath)
        else {
            throw failure(
                model.line, "<object type=\"XDDEVMAPPINGMODEL\">",
                "names models that cannot be found (source '\(recorded.sourcePath ?? "none")', destination '\(recorded.destinationPath ?? "none")'); pass the models in"
            )
        }
        let stored = try (model.relationships["entitymappings"] ?? []).map { id in
            guard let object = objects[id], object.kind == "XDDEVENTITYMAPPING" else {
                throw failure(
                    model.line, "<object type=\"XDDEVMAPPINGMODEL\">",
                    "names entity mapping '\(id)', which is not in the file")
            }
            return object
        }
        let ordered = stored.enumerated().sorted { a, b in
            (Int(a.element.attributes["mappingnumber"] ?? "") ?? .max, a.offset) < (
                Int(b.element.attributes["mappingnumber"] ?? "") ?? .max, b.offset
            )
        }.map(\.element)
        let names = ordered.map(Self.mappingName)
        // A relationship is filled with what the mapping of its related source entity made.
        var mappingBySource: [String: String] = [:]
        for (object, name) in zip(ordered, names) {
            if let source = object.attributes["sourcename"], mappingBySource[source] == nil {
                mappingBySource[source] = name
            }
        }
        let mapping = NSMappingModel()
        mapping.entityMappings = try zip(ordered, names).map { object, name in
            try entityMapping(
                object, name: name, objects: objects, models: (sourceModel, destinationModel),
                mappingBySource: mappingBySource)
        }
        return mapping
    }

    /// Xcode names an entity mapping `SourceToDestination` unless its author renamed it.
    private static func mappingName(_ object: StoredObject) -> String {
        if let name = object.attributes["name"] ?? object.attributes["mappingname"], !name.isEmpty { return name }
        switch (object.attributes["sourcename"], object.attributes["destinationname"]) {
        case let (source?, destination?): return "\(source)To\(destination)"
        case let (source, destination): return destination ?? source ?? ""
        }
    }

    private func entityMapping(
        _ object: StoredObject, name: String, objects: [String: StoredObject],
        models: (source: NSManagedObjectModel, destination: NSManagedObjectModel),
        mappingBySource: [String: String]
    ) throws -> NSEntityMapping {
        let element = "entity mapping '\(name)'"
        let mapping = NSEntityMapping()
        mapping.name = name
        mapping.sourceEntityName = object.attributes["sourcename"].flatMap { $0.isEmpty ? nil : $0 }
        mapping.destinationEntityName = object.attributes["destinationname"].flatMap { $0.isEmpty ? nil : $0 }
        let sourceEntity = try mapping.sourceEntityName.map { entityName in
            guard let entity = models.source.entitiesByName[entityName] else {
                throw failure(
                    object.line, element, "maps from entity '\(entityName)', which the source model does not have")
            }
            return entity
        }
        let destinationEntity = try mapping.destinationEntityName.map { entityName in
            guard let entity = models.destination.entitiesByName[entityName] else {
                throw failure(
                    object.line, element, "maps to entity '\(entityName)', which the destination model does not have")
            }
            return entity
        }
        mapping.sourceEntityVersionHash = sourceEntity?.versionHash
        mapping.destinationEntityVersionHash = destinationEntity?.versionHash
        mapping.mappingType = try mappingType(
            object.attributes["mappingtypename"], source: sourceEntity, destination: destinationEntity,
            line: object.line, element: element)
        if let policy = object.attributes["migrationpolicyclassname"], !policy.isEmpty {
            mapping.entityMigrationPolicyClassName = policy
        }
        mapping.userInfo = try userInfo(object, element: element)
        if let written = try writtenExpression(object, archived: "sourceexpressiondata", element: element) {
            mapping.sourceExpression = written
        } else if let sourceName = mapping.sourceEntityName {
            let filter =
                object.attributes["sourcefilterpredicatestring"].flatMap { $0.isEmpty ? nil : $0 } ?? "TRUEPREDICATE"
            mapping.sourceExpression = Self.defaultSourceExpression(entityName: sourceName, predicate: filter)
        }
        var attributes: [NSPropertyMapping] = []
        var relationships: [NSPropertyMapping] = []
        for (key, kind) in [
            ("attributemappings", "XDDEVATTRIBUTEMAPPING"), ("relationshipmappings", "XDDEVRELATIONSHIPMAPPING"),
        ] {
            for id in object.relationships[key] ?? [] {
                guard let property = objects[id], property.kind == kind else {
                    throw failure(object.line, element, "names property mapping '\(id)', which is not in the file")
                }
                let built = try propertyMapping(
                    property, of: mapping, sourceEntity: sourceEntity, element: element,
                    mappingBySource: mappingBySource)
                if kind == "XDDEVATTRIBUTEMAPPING" { attributes.append(built) } else { relationships.append(built) }
            }
        }
        mapping.attributeMappings = attributes
        mapping.relationshipMappings = relationships
        return mapping
    }

    private func propertyMapping(
        _ object: StoredObject, of mapping: NSEntityMapping, sourceEntity: NSEntityDescription?, element: String,
        mappingBySource: [String: String]
    ) throws -> NSPropertyMapping {
        guard let name = object.attributes["name"], !name.isEmpty else {
            throw failure(object.line, element, "has a property mapping without a name")
        }
        let property = NSPropertyMapping()
        property.name = name
        property.userInfo = try userInfo(object, element: "\(element), property '\(name)'")
        if let written = try writtenExpression(
            object, archived: "valueexpressiondata", element: "\(element), property '\(name)'")
        {
            property.valueExpression = written
        } else if let attribute = sourceEntity?.attributesByName[name] {
            property.valueExpression = NSExpression(format: "$source.%K", attribute.name)
        } else if let relationship = sourceEntity?.relationshipsByName[name],
            let target = relationship.destinationEntity?.name,
            let through = mappingBySource[target]
        {
            property.valueExpression = NSExpression(
                forFunction: NSExpression(forVariable: "manager"),
                selectorName: "destinationInstancesForEntityMappingNamed:sourceInstances:",
                arguments: [NSExpression(forConstantValue: through), NSExpression(format: "$source.%K", name)])
        }
        return property
    }

    /// What Xcode's compiler writes as an entity mapping's source expression: a fetch of
    /// the source entity's objects matching `predicate`, run in the source context.
    package static func defaultSourceExpression(entityName: String, predicate: String) -> NSExpression {
        let request = NSExpression(
            forFunction: NSExpression(forVariable: "manager"),
            selectorName: "fetchRequestForSourceEntityNamed:predicateString:",
            arguments: [NSExpression(forConstantValue: entityName), NSExpression(forConstantValue: predicate)])
        return NSFetchRequestExpression.expressionForFetch(
            request, context: NSExpression(format: "$manager.sourceContext"), countOnly: false)
    }

    private func mappingType(
        _ typeName: String?, source: NSEntityDescription?, destination: NSEntityDescription?, line: Int, element: String
    ) throws -> NSEntityMappingType {
        switch typeName?.lowercased() ?? "undefined" {
        case "custom": return .customEntityMappingType
        case "add": return .addEntityMappingType
        case "remove": return .removeEntityMappingType
        case "copy": return .copyEntityMappingType
        case "transform": return .transformEntityMappingType
        case "undefined", "":
            guard let source else { return .addEntityMappingType }
            guard let destination else { return .removeEntityMappingType }
            return source.versionHash == destination.versionHash ? .copyEntityMappingType : .transformEntityMappingType
        default:
            throw failure(line, element, "has an unknown mapping type '\(typeName ?? "")'")
        }
    }

    /// The expression the author wrote, archived (base64 in the file, as Xcode stores
    /// binary attributes); `nil` when the expression is Xcode's default.
    private func writtenExpression(_ object: StoredObject, archived: String, element: String) throws -> NSExpression? {
        guard !object.flag("autogenerateexpression") else { return nil }
        return try archivedRoot(object, archived, element: element, what: "an archived expression") { decoder, root in
            try decoder.expression(root, depth: 0)
        }
    }

    private func userInfo(_ object: StoredObject, element: String) throws -> [AnyHashable: Any]? {
        try archivedRoot(object, "userinfodata", element: element, what: "user info") { decoder, root in
            try decoder.userInfo(root)
        } ?? nil
    }

    /// The root object of the keyed archive that the binary attribute `name` holds as
    /// base64, read by `read`; `nil` when the attribute is absent or empty.
    private func archivedRoot<T>(
        _ object: StoredObject, _ name: String, element: String, what: String,
        _ read: (ArchivedPredicateDecoder, ArchivedValue) throws -> T
    ) throws -> T? {
        guard let encoded = object.attributes[name], !encoded.isEmpty else { return nil }
        guard let data = Data(base64Encoded: encoded, options: .ignoreUnknownCharacters) else {
            throw failure(object.line, element, "has \(what) that is not base64")
        }
        do {
            return try read(ArchivedPredicateDecoder(), KeyedArchive(data: data).topObject(forKey: "root"))
        } catch {
            throw failure(object.line, element, "has \(what) that cannot be read (\(error))")
        }
    }

    /// The file's objects by id; attribute and relationship names are lowercased, as
    /// Core Data's XML store writes them.
    private func storedObjects(_ root: ModelXMLElement) throws -> [String: StoredObject] {
        var objects: [String: StoredObject] = [:]
        for element in root.children(named: "object") {
            guard let id = element["id"], let kind = element["type"] else {
                throw failure(element.line, element.label, "is an object without an id and a type")
            }
            var object = StoredObject(kind: kind.uppercased(), line: element.line)
            for attribute in element.children(named: "attribute") {
                guard let name = attribute["name"] else { continue }
                object.attributes[name.lowercased()] = attribute.text.trimmingCharacters(in: .whitespacesAndNewlines)
            }
            for relationship in element.children(named: "relationship") {
                guard let name = relationship["name"] else { continue }
                object.relationships[name.lowercased()] = (relationship["idrefs"] ?? "").split(separator: " ").map(
                    String.init)
            }
            guard objects.updateValue(object, forKey: id) == nil else {
                throw failure(element.line, element.label, "reuses the id '\(id)'")
            }
        }
        return objects
    }

    /// The model at a path the file records: as written when absolute, else looked for in
    /// the folder of the mapping model and the folders above it (a project keeps its models
    /// there; a package copies both into one resource folder).
    private func resolve(_ recorded: String?) -> NSManagedObjectModel? {
        guard let recorded, !recorded.isEmpty else { return nil }
        let components = recorded.split(separator: "/").map(String.init)
        var candidates: [URL] = recorded.hasPrefix("/") ? [URL(fileURLWithPath: recorded)] : []
        var folder = source.url.deletingLastPathComponent().deletingLastPathComponent()
        for _ in 0..<6 {
            candidates.append(folder.appendingPathComponent(recorded))
            if components.count > 2 {
                candidates.append(folder.appendingPathComponent(components.suffix(2).joined(separator: "/")))
            }
            if let last = components.last { candidates.append(folder.appendingPathComponent(last)) }
            guard folder.path != "/" else { break }
            folder = folder.deletingLastPathComponent()
        }
        for candidate in candidates where FileManager.default.fileExists(atPath: candidate.path) {
            if let model = NSManagedObjectModel(contentsOf: candidate) { return model }
        }
        return nil
    }

    private func failure(_ line: Int?, _ element: String?, _ reason: String) -> ModelLoadingError {
        ModelLoadingError(source: source, line: line, element: element, reason: reason)
    }
}
