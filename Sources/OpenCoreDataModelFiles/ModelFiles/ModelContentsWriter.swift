/// Writes a model as Xcode's `contents` XML (the `.xcdatamodel` format of Xcode 4 and
/// later), the inverse of ``ModelFileLoader``.
///
/// `cdtool model --upgrade` uses it to give an Xcode 3 model folder, which holds only the
/// `elements` archive, the file today's Xcode and every tool read. What the XML can say is
/// written; what it cannot (a validation predicate other than Xcode's minimum, maximum
/// and pattern fields, a fetch request's sort descriptors, a default value without a text
/// form) throws a ``CompiledModelEncodingError``, and so does any other difference the
/// read-back finds, so nothing is dropped quietly. The diagram's positions (`<elements>`)
/// are left out: Xcode lays the entities out again.
package enum ModelContentsWriter {
    /// The `contents` XML of `model`, checked to read back as the same model (the same
    /// entity version hashes and ``ModelFingerprint`` lines): a model the XML cannot hold
    /// faithfully throws instead of giving a file that would not load or would differ.
    package static func contents(of model: NSManagedObjectModel) throws -> String {
        let text = try unverifiedContents(of: model)
        let back = NSManagedObjectModel()
        do {
            try ModelFileLoader(contentsFile: URL(fileURLWithPath: "/contents")).load(Data(text.utf8), into: back)
        } catch let error as ModelLoadingError {
            let place = error.line.map { " (line \($0) of the XML)" } ?? ""
            throw CompiledModelEncodingError(
                element: error.element, reason: "would not read back as XML\(place): it \(error.reason)")
        }
        let changed = model.entityVersionHashesByName.filter { back.entityVersionHashesByName[$0.key] != $0.value }
        guard changed.isEmpty, back.entities.count == model.entities.count else {
            throw CompiledModelEncodingError(
                element: nil,
                reason:
                    "would read back as XML with other version hashes (entities \(changed.keys.sorted().joined(separator: ", ")))"
            )
        }
        let (before, after) = (ModelFingerprint.lines(of: model), ModelFingerprint.lines(of: back))
        if before != after {
            let index =
                zip(before, after).enumerated().first { $0.element.0 != $0.element.1 }?.offset
                ?? min(before.count, after.count)
            let was = index < before.count ? before[index].trimmingCharacters(in: .whitespaces) : "nothing"
            let now = index < after.count ? after[index].trimmingCharacters(in: .whitespaces) : "nothing"
            throw CompiledModelEncodingError(
                element: nil, reason: "would read back as XML differently: \"\(was)\" would become \"\(now)\"")
        }
        return text
    }

    /// The XML of `model`, written as it stands.
    private static func unverifiedContents(of model: NSManagedObjectModel) throws -> String {
        var writer = Writer()
        writer.line(#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>"#)
        let identifier = model.versionIdentifiers.compactMap { $0 as? String }.sorted().first ?? ""
        writer.open(
            "model",
            [
                ("type", "com.apple.IDECoreDataModeler.DataModel"), ("documentVersion", "1.0"),
                ("minimumToolsVersion", "Automatic"), ("userDefinedModelVersionIdentifier", identifier),
            ])
        var composites = CompositeNames()
        for entity in model.entities {
            try entityElement(entity, &writer, &composites)
        }
        for (name, request) in model.fetchRequestTemplatesByName.sorted(by: { $0.key < $1.key }) {
            try fetchRequestElement(request, name: name, context: "fetch request template '\(name)'", &writer)
        }
        for name in model.configurations {
            let members = model.entities(forConfigurationName: name) ?? []
            writer.open("configuration", [("name", name)], empty: members.isEmpty)
            guard !members.isEmpty else { continue }
            for member in members { writer.empty("memberEntity", [("name", member.name ?? "")]) }
            writer.close("configuration")
        }
        // A composite's elements may name further composites, which join the list as they
        // are met.
        var written = 0
        while written < composites.definitions.count {
            let (name, composite) = composites.definitions[written]
            writer.open("composite", [("name", name)])
            for element in composite.elements {
                try attributeElement(element, context: "composite '\(name)'", &writer, &composites)
            }
            writer.close("composite")
            written += 1
        }
        writer.close("model")
        return writer.text
    }

    // MARK: Entities

    private static func entityElement(
        _ entity: NSEntityDescription, _ writer: inout Writer, _ composites: inout CompositeNames
    ) throws {
        let name = entity.name ?? ""
        var fields: [(String, String)] = [("name", name)]
        if let className = entity.managedObjectClassName, className != "NSManagedObject" {
            fields.append(("representedClassName", className))
        }
        if let parent = entity.superentity?.name { fields.append(("parentEntity", parent)) }
        if entity.isAbstract { fields.append(("isAbstract", "YES")) }
        fields += optional(
            ("versionHashModifier", entity.versionHashModifier), ("elementID", entity.renamingIdentifier))
        if let generation = entity.codeGenerationType { fields.append(("codeGenerationType", generation)) }
        writer.open("entity", fields)
        let context = "entity '\(name)'"
        for property in entity.ownProperties {
            let scope = "\(context) property '\(property.name)'"
            switch property {
            case let attribute as NSAttributeDescription:
                try attributeElement(attribute, context: scope, &writer, &composites)
            case let relationship as NSRelationshipDescription:
                relationshipElement(relationship, &writer)
            case let fetched as NSFetchedPropertyDescription:
                // Fetched properties are transient by nature; Xcode does not say so.
                writer.open("fetchedProperty", commonFields(fetched).filter { $0.0 != "transient" })
                if let request = fetched.fetchRequest {
                    try fetchRequestElement(request, name: "fetchedPropertyFetchRequest", context: scope, &writer)
                }
                userInfoElement(fetched.userInfo, &writer)
                writer.close("fetchedProperty")
            default:
                throw CompiledModelEncodingError(element: scope, reason: "is a kind of property the XML cannot hold")
            }
        }
        try constraintsAndIndexes(entity, context: context, &writer)
        userInfoElement(entity.userInfo, &writer)
        writer.close("entity")
    }

    private static func constraintsAndIndexes(
        _ entity: NSEntityDescription, context: String, _ writer: inout Writer
    ) throws {
        let constraints = entity.uniquenessConstraints.map { tuple in
            tuple.compactMap { ($0 as? String) ?? ($0 as? NSPropertyDescription)?.name }
        }.filter { !$0.isEmpty }
        if !constraints.isEmpty {
            writer.open("uniquenessConstraints", [])
            for names in constraints {
                writer.open("uniquenessConstraint", [])
                for name in names { writer.empty("constraint", [("value", name)]) }
                writer.close("uniquenessConstraint")
            }
            writer.close("uniquenessConstraints")
        }
        for index in entity.indexes {
            var fields = [("name", index.name)]
            if let partial = index.partialIndexPredicate {
                fields.append(("partialIndexPredicate", partial.predicateFormat))
            }
            writer.open("fetchIndex", fields, empty: index.elements.isEmpty)
            guard !index.elements.isEmpty else { continue }
            for element in index.elements {
                var elementFields: [(String, String)]
                if let expression = (element.property as? NSExpressionDescription)?.expression {
                    elementFields = [("expression", expression.description)]
                } else if let name = element.property?.name ?? element.propertyName {
                    elementFields = [("property", name)]
                } else {
                    throw CompiledModelEncodingError(
                        element: "\(context) index '\(index.name)'", reason: "has an element without a property")
                }
                elementFields.append(("type", element.collationType == .rTree ? "RTree" : "Binary"))
                elementFields.append(("order", element.isAscending ? "ascending" : "descending"))
                writer.empty("fetchIndexElement", elementFields)
            }
            writer.close("fetchIndex")
        }
    }

    // MARK: Properties

    /// What every property element says: its name and flags.
    private static func commonFields(_ property: NSPropertyDescription) -> [(String, String)] {
        var fields: [(String, String)] = [("name", property.name)]
        if property.isOptional { fields.append(("optional", "YES")) }
        if property.isTransient { fields.append(("transient", "YES")) }
        if property.isIndexed { fields.append(("indexed", "YES")) }
        if property.isIndexedBySpotlight { fields.append(("spotlightIndexingEnabled", "YES")) }
        fields += optional(
            ("versionHashModifier", property.versionHashModifier), ("elementID", property.renamingIdentifier))
        return fields
    }

    private static func attributeElement(
        _ attribute: NSAttributeDescription, context: String, _ writer: inout Writer,
        _ composites: inout CompositeNames
    ) throws {
        var fields = commonFields(attribute)
        let typeName =
            ModelAttributeReader.typesByName.first { $0.value == attribute.attributeType }?.key ?? "Undefined"
        fields.append(("attributeType", typeName))
        if let composite = attribute as? NSCompositeAttributeDescription {
            fields.append(("composite", composites.name(for: composite, attribute: attribute.name)))
        }
        if let derived = attribute as? NSDerivedAttributeDescription {
            fields.append(("derived", "YES"))
            if let expression = derived.derivationExpression {
                fields.append(("derivationExpression", expression.description))
            }
        }
        if attribute.allowsExternalBinaryDataStorage { fields.append(("allowsExternalBinaryDataStorage", "YES")) }
        fields += optional(
            ("valueTransformerName", attribute.valueTransformerName),
            ("customClassName", attribute.customClassNameToWrite))
        if attribute.usesScalarValueType { fields.append(("usesScalarValueType", "YES")) }
        if attribute.preservesValueInHistoryOnDeletion { fields.append(("preserveAfterDeletion", "YES")) }
        if attribute.allowsCloudEncryption { fields.append(("allowsCloudEncryption", "YES")) }
        if let value = attribute.defaultValue {
            fields.append(try defaultValueField(value, type: attribute.attributeType, context: context))
        }
        fields += try validationFields(attribute, context: context)
        writer.open("attribute", fields, empty: attribute.userInfo?.isEmpty ?? true)
        if !(attribute.userInfo?.isEmpty ?? true) {
            userInfoElement(attribute.userInfo, &writer)
            writer.close("attribute")
        }
    }

    private static func relationshipElement(_ relationship: NSRelationshipDescription, _ writer: inout Writer) {
        var fields = commonFields(relationship)
        if relationship.minCount != 0 { fields.append(("minCount", String(relationship.minCount))) }
        if relationship.isToMany {
            fields.append(("toMany", "YES"))
            if relationship.maxCount != 0 { fields.append(("maxCount", String(relationship.maxCount))) }
        } else {
            fields.append(("maxCount", "1"))
        }
        let rule = ModelPropertyReader.deleteRulesByName.first { $0.value == relationship.deleteRule }?.key ?? "Nullify"
        fields.append(("deletionRule", rule))
        if relationship.isOrdered { fields.append(("ordered", "YES")) }
        fields.append(("destinationEntity", relationship.destinationEntity?.name ?? ""))
        if let inverse = relationship.inverseRelationship {
            fields.append(("inverseName", inverse.name))
            fields.append(("inverseEntity", inverse.entity?.name ?? ""))
        }
        writer.open("relationship", fields, empty: relationship.userInfo?.isEmpty ?? true)
        if !(relationship.userInfo?.isEmpty ?? true) {
            userInfoElement(relationship.userInfo, &writer)
            writer.close("relationship")
        }
    }

    // MARK: Values

    /// `defaultValueString` (or a date's `defaultDateTimeInterval`) for `value`.
    private static func defaultValueField(
        _ value: Any, type: NSAttributeType, context: String
    ) throws -> (String, String) {
        switch value {
        case let date as Date:
            return ("defaultDateTimeInterval", number(date.timeIntervalSinceReferenceDate))
        case let flag as Bool where type == .booleanAttributeType:
            return ("defaultValueString", flag ? "YES" : "NO")
        case let text as String:
            return ("defaultValueString", text)
        case let uuid as UUID:
            return ("defaultValueString", uuid.uuidString)
        case let url as URL:
            return ("defaultValueString", url.absoluteString)
        case let decimal as Decimal:
            return ("defaultValueString", decimal.description)
        case let double as Double:
            return ("defaultValueString", number(double))
        case let float as Float:
            return ("defaultValueString", number(Double(float)))
        case let integer as any BinaryInteger:
            return ("defaultValueString", String(describing: integer))
        case let number as NSNumber:
            return (
                "defaultValueString",
                type == .booleanAttributeType ? (number.boolValue ? "YES" : "NO") : number.stringValue
            )
        default:
            throw CompiledModelEncodingError(
                element: context, reason: "has a default value (\(value)) that the XML has no text form for")
        }
    }

    /// Xcode's Min/Max/Reg. Ex. fields for the attribute's validation predicates, which
    /// are the only rules the XML can state.
    private static func validationFields(
        _ attribute: NSAttributeDescription, context: String
    ) throws -> [(String, String)] {
        var fields: [(String, String)] = []
        for predicate in attribute.validationPredicates {
            guard let comparison = predicate as? NSComparisonPredicate,
                let field = validationField(comparison, type: attribute.attributeType)
            else {
                throw CompiledModelEncodingError(
                    element: context,
                    reason:
                        "has the validation predicate '\(predicate.predicateFormat)', which Xcode's minimum, maximum and pattern fields cannot state"
                )
            }
            fields.append(field)
        }
        return fields
    }

    private static func validationField(
        _ comparison: NSComparisonPredicate, type: NSAttributeType
    ) -> (String, String)? {
        let left = comparison.leftExpression
        // Xcode's fields state plain comparisons only: no `[cd]` options, no ANY/ALL.
        guard comparison.options.isEmpty, comparison.comparisonPredicateModifier == .direct,
            comparison.rightExpression.expressionType == .constantValue,
            let bound = comparison.rightExpression.constantValue
        else { return nil }
        let onLength = left.expressionType == .keyPath && left.keyPath == "length"
        let onSelf = left.expressionType == .evaluatedObject
        switch comparison.predicateOperatorType {
        case .matches where onSelf && type == .stringAttributeType:
            return (bound as? String).map { ("regularExpressionString", $0) }
        case .greaterThanOrEqualTo, .lessThanOrEqualTo:
            let isMinimum = comparison.predicateOperatorType == .greaterThanOrEqualTo
            if type == .dateAttributeType, onSelf, let date = bound as? Date {
                return (
                    isMinimum ? "minDateTimeInterval" : "maxDateTimeInterval",
                    number(date.timeIntervalSinceReferenceDate)
                )
            }
            let lengthTyped = type == .stringAttributeType || type == .binaryDataAttributeType
            let numeric = type.isNumeric && type != .booleanAttributeType
            guard lengthTyped ? onLength : (onSelf && numeric), let value = (bound as? NSNumber)?.doubleValue
            else { return nil }
            return (isMinimum ? "minValueString" : "maxValueString", number(value))
        default:
            return nil
        }
    }

    /// A number as Xcode writes it: whole numbers without a fraction.
    private static func number(_ value: Double) -> String {
        value.rounded() == value && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }

    // MARK: Fetch requests and user info

    private static func fetchRequestElement(
        _ request: NSFetchRequest<NSFetchRequestResult>, name: String, context: String, _ writer: inout Writer
    ) throws {
        guard let entityName = request.entity?.name ?? request.entityName else {
            throw CompiledModelEncodingError(element: context, reason: "has a fetch request without an entity")
        }
        if !(request.sortDescriptors ?? []).isEmpty || !(request.relationshipKeyPathsForPrefetching ?? []).isEmpty {
            throw CompiledModelEncodingError(
                element: context,
                reason: "has a fetch request with sort descriptors or prefetching, which Xcode's XML cannot state")
        }
        var fields = [("name", name), ("entity", entityName)]
        if let predicate = request.predicate { fields.append(("predicateString", predicate.predicateFormat)) }
        if request.fetchLimit != 0 { fields.append(("fetchLimit", String(request.fetchLimit))) }
        if request.fetchOffset != 0 { fields.append(("fetchOffset", String(request.fetchOffset))) }
        if request.fetchBatchSize != 0 { fields.append(("fetchBatchSize", String(request.fetchBatchSize))) }
        if request.resultType != .managedObjectResultType {
            let typeName =
                ModelFetchRequestReader.resultTypesByName.first {
                    $0.value == request.resultType && Int($0.key) == nil
                }?.key ?? "ManagedObject"
            fields.append(("resultType", typeName))
        }
        if !request.includesSubentities { fields.append(("includesSubentities", "NO")) }
        if !request.includesPropertyValues { fields.append(("includesPropertyValues", "NO")) }
        if !request.includesPendingChanges { fields.append(("includesPendingChanges", "NO")) }
        if !request.returnsObjectsAsFaults { fields.append(("returnObjectsAsFaults", "NO")) }
        if request.returnsDistinctResults { fields.append(("returnDistinctResults", "YES")) }
        writer.empty("fetchRequest", fields)
    }

    private static func userInfoElement(_ info: [AnyHashable: Any]?, _ writer: inout Writer) {
        guard let info, !info.isEmpty else { return }
        writer.open("userInfo", [])
        for (key, value) in info.map({ ("\($0.key)", "\($0.value)") }).sorted(by: { $0.0 < $1.0 }) {
            writer.empty("entry", [("key", key), ("value", value)])
        }
        writer.close("userInfo")
    }

    private static func optional(_ pairs: (String, String?)...) -> [(String, String)] {
        pairs.compactMap { key, value in value.map { (key, $0) } }
    }

    // MARK: Output

    /// The model-level `<composite>` definitions the composite attributes refer to, named
    /// after the first attribute of each (Core Data keeps no name for them).
    private struct CompositeNames {
        var definitions: [(name: String, composite: NSCompositeAttributeDescription)] = []

        mutating func name(for composite: NSCompositeAttributeDescription, attribute: String) -> String {
            if let known = definitions.first(where: { $0.composite === composite }) { return known.name }
            let base = attribute.prefix(1).uppercased() + attribute.dropFirst()
            var name = base
            var suffix = 2
            while definitions.contains(where: { $0.name == name }) {
                name = "\(base)\(suffix)"
                suffix += 1
            }
            definitions.append((name, composite))
            return name
        }
    }

    /// Indented XML, four spaces a level as Xcode writes it.
    private struct Writer {
        var text = ""
        var depth = 0

        mutating func line(_ content: String) {
            text += String(repeating: "    ", count: depth) + content + "\n"
        }

        mutating func open(_ tag: String, _ fields: [(String, String)], empty: Bool = false) {
            let attributes = fields.map { " \($0.0)=\"\(Self.escape($0.1))\"" }.joined()
            line("<\(tag)\(attributes)\(empty ? "/" : "")>")
            if !empty { depth += 1 }
        }

        mutating func empty(_ tag: String, _ fields: [(String, String)]) { open(tag, fields, empty: true) }

        mutating func close(_ tag: String) {
            depth -= 1
            line("</\(tag)>")
        }

        static func escape(_ value: String) -> String {
            var escaped = ""
            for scalar in value.unicodeScalars {
                switch scalar {
                case "&": escaped += "&amp;"
                case "<": escaped += "&lt;"
                case ">": escaped += "&gt;"
                case "\"": escaped += "&quot;"
                case _ where scalar.value < 0x20: escaped += "&#\(scalar.value);"
                default: escaped.unicodeScalars.append(scalar)
                }
            }
            return escaped
        }
    }
}

extension NSAttributeDescription {
    /// The `customClassName` to write: the value class the model set, unless it is the
    /// one the type implies anyway (compiled models name `NSString` for every string).
    fileprivate var customClassNameToWrite: String? {
        guard let name = explicitValueClassName, name != Self.defaultValueClassName(for: attributeType) else {
            return nil
        }
        return name
    }
}
