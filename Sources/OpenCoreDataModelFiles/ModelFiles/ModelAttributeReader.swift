/// Builds an ``/OpenCoreDataModel/NSAttributeDescription`` from an `<attribute>` element: its type, flags,
/// default value, and the min/max/pattern rules Core Data turns into validation
/// predicates (`SELF >= 1`, `length <= 40`, `SELF MATCHES "[A-Z]+"`).
package enum ModelAttributeReader {
    /// Xcode's names for attribute types, as written in `attributeType`.
    package static let typesByName: [String: NSAttributeType] = [
        "Undefined": .undefinedAttributeType,
        "Integer 16": .integer16AttributeType,
        "Integer 32": .integer32AttributeType,
        "Integer 64": .integer64AttributeType,
        "Decimal": .decimalAttributeType,
        "Double": .doubleAttributeType,
        "Float": .floatAttributeType,
        "String": .stringAttributeType,
        "Boolean": .booleanAttributeType,
        "Date": .dateAttributeType,
        "Binary": .binaryDataAttributeType,
        "UUID": .UUIDAttributeType,
        "URI": .URIAttributeType,
        "Transformable": .transformableAttributeType,
        "ObjectID": .objectIDAttributeType,
        "Composite": .compositeAttributeType,
    ]

    /// The attribute `values` describes. `composites` are the model's `<composite>`
    /// definitions by name; `enclosing` names the composites being read around it (an
    /// element may be a composite in turn, but not one that contains it).
    package static func attribute(
        _ values: ModelElementValues, composites: [String: ModelXMLElement], enclosing: [String] = []
    ) throws -> NSAttributeDescription {
        try values.checkChildren(["userInfo"])
        let typeName = values["attributeType"] ?? "Undefined"
        guard let type = typesByName[typeName] else {
            throw values.error(
                "has attributeType \"\(typeName)\", which is not a Core Data attribute type (\(typesByName.keys.sorted().joined(separator: ", ")))"
            )
        }
        let attribute: NSAttributeDescription
        if type == .compositeAttributeType {
            attribute = try composite(values, composites: composites, enclosing: enclosing)
        } else if try values.flag("derived") {
            let derived = NSDerivedAttributeDescription()
            derived.derivationExpression = try values.expression("derivationExpression")
            attribute = derived
        } else {
            attribute = NSAttributeDescription()
        }
        attribute.name = try values.identifier()
        attribute.attributeType = type
        try ModelPropertyReader.readCommon(values, into: attribute)
        attribute.allowsExternalBinaryDataStorage = try values.flag("allowsExternalBinaryDataStorage")
        attribute.valueTransformerName = values["valueTransformerName"]
        if let className = values["customClassName"] { attribute.attributeValueClassName = className }
        attribute.usesScalarValueType = try values.flag("usesScalarValueType")
        attribute.preservesValueInHistoryOnDeletion = try values.flag("preserveAfterDeletion")
        attribute.allowsCloudEncryption = try values.flag("allowsCloudEncryption")
        attribute.defaultValue = try defaultValue(values, type: type)
        let rules = try validationPredicates(values, type: type)
        if !rules.isEmpty { attribute.setValidationPredicates(rules, withValidationWarnings: nil) }
        return attribute
    }

    private static func composite(
        _ values: ModelElementValues, composites: [String: ModelXMLElement], enclosing: [String]
    ) throws -> NSCompositeAttributeDescription {
        let name = try values.required("composite")
        guard let definition = composites[name] else {
            throw values.error("names composite '\(name)' that the model does not define")
        }
        guard !enclosing.contains(name) else {
            throw values.error(
                "names composite '\(name)', which contains it (\((enclosing + [name]).joined(separator: " → ")))")
        }
        guard enclosing.count < CompositeValue.maximumDepth else {
            throw values.error("nests composites more than \(CompositeValue.maximumDepth) deep")
        }
        let composite = NSCompositeAttributeDescription()
        var seen = Set<String>()
        for element in definition.children(named: "attribute") {
            let elementValues = values.child(element, scope: "in composite \(name)")
            let member = try attribute(elementValues, composites: composites, enclosing: enclosing + [name])
            guard seen.insert(member.name).inserted else {
                throw elementValues.error("repeats the name '\(member.name)'")
            }
            composite.elements.append(member)
        }
        return composite
    }

    // MARK: Values

    private static func defaultValue(_ values: ModelElementValues, type: NSAttributeType) throws -> Any? {
        if type == .dateAttributeType, let seconds = try values.double("defaultDateTimeInterval") {
            return Date(timeIntervalSinceReferenceDate: seconds)
        }
        guard let text = values["defaultValueString"] else { return nil }
        guard let value = parse(text, as: type) else {
            throw values.error("has defaultValueString \"\(text)\", which is not a valid \(type.displayName) value")
        }
        return value
    }

    /// `text` as a value of `type`, in the form a model built in code would use.
    package static func parse(_ text: String, as type: NSAttributeType) -> Any? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        switch type {
        case .integer16AttributeType: return Int16(trimmed)
        case .integer32AttributeType: return Int32(trimmed)
        case .integer64AttributeType: return Int64(trimmed)
        case .doubleAttributeType: return Double(trimmed).flatMap { $0.isFinite ? $0 : nil }
        case .floatAttributeType: return Float(trimmed).flatMap { $0.isFinite ? $0 : nil }
        case .decimalAttributeType:
            guard Double(trimmed)?.isFinite == true else { return nil }
            return Decimal(string: trimmed, locale: Locale(identifier: "en_US_POSIX"))
        case .booleanAttributeType:
            switch trimmed.lowercased() {
            case "yes", "true", "1": return true
            case "no", "false", "0": return false
            default: return nil
            }
        case .stringAttributeType: return text
        case .UUIDAttributeType: return UUID(uuidString: trimmed)
        case .URIAttributeType: return URL(string: trimmed)
        case .dateAttributeType:
            return Double(trimmed).flatMap { $0.isFinite ? Date(timeIntervalSinceReferenceDate: $0) : nil }
        case .binaryDataAttributeType, .transformableAttributeType, .objectIDAttributeType,
            .undefinedAttributeType, .compositeAttributeType:
            return nil
        }
    }

    // MARK: Validation rules

    /// Core Data's predicates for Xcode's Min/Max/Reg. Ex. fields. Strings and binary
    /// data limit their length, numbers and dates their value; fields that do not
    /// apply to the type (kept by Xcode after a type change) are ignored.
    private static func validationPredicates(
        _ values: ModelElementValues, type: NSAttributeType
    ) throws -> [NSPredicate] {
        var rules: [NSPredicate] = []
        func add(_ format: String, _ bound: Any) {
            // Formats are fixed here and bounds are parsed values, so this cannot fail.
            if let predicate = try? NSPredicate.parse(format: format, argumentArray: [bound]) {
                rules.append(predicate)
            }
        }
        switch type {
        case .stringAttributeType, .binaryDataAttributeType:
            if let minimum = try values.integer("minValueString") { add("length >= %@", NSNumber(value: minimum)) }
            if let maximum = try values.integer("maxValueString") { add("length <= %@", NSNumber(value: maximum)) }
        case .dateAttributeType:
            if let minimum = try values.double("minDateTimeInterval") {
                add("SELF >= %@", Date(timeIntervalSinceReferenceDate: minimum))
            }
            if let maximum = try values.double("maxDateTimeInterval") {
                add("SELF <= %@", Date(timeIntervalSinceReferenceDate: maximum))
            }
        case _ where type.isNumeric && type != .booleanAttributeType:
            for (key, format) in [("minValueString", "SELF >= %@"), ("maxValueString", "SELF <= %@")] {
                guard let text = values[key] else { continue }
                guard let bound = Double(text.trimmingCharacters(in: .whitespaces)), bound.isFinite else {
                    throw values.error("has \(key)=\"\(text)\", which is not a number")
                }
                add(format, NSNumber(value: bound))
            }
        default:
            break
        }
        if type == .stringAttributeType, let pattern = values["regularExpressionString"], !pattern.isEmpty {
            do {
                _ = try NSRegularExpression(pattern: pattern)
            } catch {
                throw values.error(
                    "has regularExpressionString \"\(pattern)\", which is not a valid regular expression")
            }
            add("SELF MATCHES %@", pattern)
        }
        return rules
    }
}
