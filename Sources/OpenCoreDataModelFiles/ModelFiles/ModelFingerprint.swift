/// Everything a model says, beyond its version hashes, as lines of text that two models
/// share exactly when they describe the same thing: how ``ModelContentsWriter`` checks
/// that its XML reads back as the model it was written from.
///
/// Version hashes leave out defaults, validation rules, user info, fetched properties,
/// fetch request templates, indexes and configurations; the lines hold those too. The
/// messages of validation rules are left out when they are the ones a rule's kind gets by
/// default (compiled models carry them, Xcode's XML does not); other messages are kept.
package enum ModelFingerprint {
    /// The model's lines, entities and properties in name order.
    package static func lines(of model: NSManagedObjectModel) -> [String] {
        var lines: [String] = []
        let identifiers = model.versionIdentifiers.map { tagged($0.base) }.sorted()
        lines.append("model identifiers \(identifiers)")
        for entity in model.entities.sorted(by: { ($0.name ?? "") < ($1.name ?? "") }) {
            lines += entityLines(entity)
        }
        for (name, request) in model.fetchRequestTemplatesByName.sorted(by: { $0.key < $1.key }) {
            lines.append("template \(name): \(describe(request))")
        }
        for name in model.configurations {
            let members = (model.entities(forConfigurationName: name) ?? []).map { $0.name ?? "" }.sorted()
            lines.append("configuration \(name): \(members)")
        }
        return lines
    }

    private static func entityLines(_ entity: NSEntityDescription) -> [String] {
        let name = entity.name ?? ""
        var lines = [
            "entity \(name) class \(entity.managedObjectClassName ?? "") abstract \(entity.isAbstract) parent \(entity.superentity?.name ?? "-") renamed \(entity.renamingIdentifier ?? "-") modifier \(entity.versionHashModifier ?? "-") codegen \(entity.codeGenerationType ?? "-") info \(describe(entity.userInfo))"
        ]
        let constraints = entity.uniquenessConstraints.map { tuple in
            tuple.map { ($0 as? String) ?? ($0 as? NSPropertyDescription)?.name ?? "?" }
        }
        lines.append("  constraints \(constraints)")
        for index in entity.indexes {
            let elements = index.elements.map { element -> String in
                let indexed =
                    (element.property as? NSExpressionDescription)?.expression.map { "expression \($0)" }
                    ?? element.property?.name ?? element.propertyName ?? "?"
                return
                    "\(indexed) \(element.collationType == .rTree ? "rtree" : "binary") \(element.isAscending ? "asc" : "desc")"
            }
            lines.append(
                "  index \(index.name) \(elements) where \(index.partialIndexPredicate?.predicateFormat ?? "-")")
        }
        for property in entity.ownProperties.sorted(by: { $0.name < $1.name }) {
            lines.append("  " + propertyFacts(property).joined(separator: " | "))
        }
        return lines
    }

    private static func propertyFacts(_ property: NSPropertyDescription) -> [String] {
        let warnings = property.validationWarnings.filter { !defaultWarnings.contains($0) }
        var facts = [
            "\(type(of: property)) \(property.name)", "optional \(property.isOptional)",
            "transient \(property.isTransient)", "indexed \(property.isIndexed)",
            "spotlight \(property.isIndexedBySpotlight)", "renamed \(property.renamingIdentifier ?? "-")",
            "modifier \(property.versionHashModifier ?? "-")", "info \(describe(property.userInfo))",
            "rules \(property.validationPredicates.map(\.predicateFormat))", "messages \(warnings)",
        ]
        switch property {
        case let attribute as NSAttributeDescription:
            facts += attributeFacts(attribute)
        case let relationship as NSRelationshipDescription:
            facts += [
                "to \(relationship.destinationEntity?.name ?? "-")",
                "inverse \(relationship.inverseRelationship.map { "\($0.entity?.name ?? "?").\($0.name)" } ?? "-")",
                "count \(relationship.minCount)…\(relationship.maxCount)", "rule \(relationship.deleteRule.rawValue)",
                "ordered \(relationship.isOrdered)",
            ]
        case let fetched as NSFetchedPropertyDescription:
            facts.append("request \(fetched.fetchRequest.map(describe) ?? "-")")
        default:
            break
        }
        return facts
    }

    private static func attributeFacts(_ attribute: NSAttributeDescription) -> [String] {
        var facts = [
            "type \(attribute.attributeType.rawValue)", "default \(attribute.defaultValue.map { "\($0)" } ?? "-")",
            "transformer \(attribute.valueTransformerName ?? "-")", "class \(attribute.attributeValueClassName ?? "-")",
            "scalar \(attribute.usesScalarValueType)", "external \(attribute.allowsExternalBinaryDataStorage)",
            "keep on delete \(attribute.preservesValueInHistoryOnDeletion)",
            "encrypted \(attribute.allowsCloudEncryption)",
        ]
        if let derived = attribute as? NSDerivedAttributeDescription {
            facts.append("derived \(derived.derivationExpression.map { "\($0)" } ?? "-")")
        }
        if let composite = attribute as? NSCompositeAttributeDescription {
            let elements = composite.elements.map { "(" + propertyFacts($0).joined(separator: " | ") + ")" }
            facts.append("elements \(elements.joined(separator: " "))")
        }
        return facts
    }

    private static func describe(_ request: NSFetchRequest<NSFetchRequestResult>) -> String {
        let sorts = (request.sortDescriptors ?? []).map { "\($0.key ?? "?") \($0.ascending ? "asc" : "desc")" }
        return [
            request.entity?.name ?? request.entityName ?? "-", request.predicate?.predicateFormat ?? "-",
            "limit \(request.fetchLimit)", "offset \(request.fetchOffset)", "batch \(request.fetchBatchSize)",
            "result \(request.resultType.rawValue)", "subentities \(request.includesSubentities)",
            "values \(request.includesPropertyValues)", "pending \(request.includesPendingChanges)",
            "faults \(request.returnsObjectsAsFaults)", "distinct \(request.returnsDistinctResults)",
            "refresh \(request.shouldRefreshRefetchedObjects)", "sorted \(sorts)",
            "prefetch \(request.relationshipKeyPathsForPrefetching ?? [])",
        ].joined(separator: " ")
    }

    private static func describe(_ info: [AnyHashable: Any]?) -> String {
        (info ?? [:]).map { "\(tagged($0.key.base))=\(tagged($0.value))" }.sorted().joined(separator: ",")
    }

    /// A value's text, marked when it is not a string (the XML holds only strings).
    private static func tagged(_ value: Any) -> String {
        value is String ? "\(value)" : "<\(type(of: value))>\(value)"
    }

    /// The messages Core Data gives each kind of validation rule when the model names none.
    private static let defaultWarnings = Set(
        [
            NSValidationNumberTooLargeError, NSValidationNumberTooSmallError, NSValidationDateTooLateError,
            NSValidationDateTooSoonError, NSValidationStringTooLongError, NSValidationStringTooShortError,
            NSValidationStringPatternMatchingError,
        ].map(CompiledModelDecoder.warning(forCode:)))
}
