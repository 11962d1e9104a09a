import OpenCoreData

/// An object's property value as `cdtool dump` writes it: JSON-ready values and CSV text.
///
/// Relationships become object-ID URIs (`x-coredata://<store UUID>/<Entity>/p<pk>`, as
/// `NSManagedObjectID.uriRepresentation()`), so a dump can be joined back together
/// without nesting objects; dates are ISO 8601, binary data base64, UUIDs and URLs strings.
package enum DumpValue {
    /// The property `property` of `object`: `nil`, a string, a number, a Boolean or an
    /// array of URI strings (to-many relationships).
    package static func value(of property: NSPropertyDescription, in object: NSManagedObject) -> Any? {
        if let relationship = property as? NSRelationshipDescription {
            let uris = object.objectIDs(forRelationshipNamed: relationship.name).map {
                $0.uriRepresentation().absoluteString
            }
            guard relationship.isToMany else { return uris.first }
            return relationship.isOrdered ? uris : uris.sorted(by: Self.uriOrder)
        }
        guard let value = object.value(forKey: property.name) else { return nil }
        // Numbers arrive boxed; their attribute type says how to read them (an
        // `NSNumber` would pass for a Boolean when it holds 0 or 1).
        if let number = value as? NSNumber, let attribute = property as? NSAttributeDescription {
            switch attribute.attributeType {
            case .booleanAttributeType: return number.boolValue
            case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType: return number.int64Value
            case .doubleAttributeType, .floatAttributeType: return number.doubleValue
            default: break
            }
        }
        return plain(value)
    }

    /// URIs ordered by entity, then by primary key as a number (`p9` before `p10`).
    package static func uriOrder(_ lhs: String, _ rhs: String) -> Bool {
        func parts(_ uri: String) -> (String, Int) {
            guard let slash = uri.lastIndex(of: "/") else { return (uri, 0) }
            return (String(uri[..<slash]), Int(uri[uri.index(after: slash)...].dropFirst()) ?? 0)
        }
        return parts(lhs) < parts(rhs)
    }

    /// A stored value as a JSON-compatible one.
    package static func plain(_ value: Any) -> Any {
        switch value {
        case let string as String: return string
        case let date as Date: return ValueFormatting.iso8601(date)
        case let data as Data: return data.base64EncodedString()
        case let uuid as UUID: return uuid.uuidString
        case let url as URL: return url.absoluteString
        case let id as NSManagedObjectID: return id.uriRepresentation().absoluteString
        case let decimal as NSDecimalNumber: return decimal.stringValue
        case let decimal as Decimal: return "\(decimal)"
        case let number as Int64: return number
        case let number as Double: return number
        case let number as NSNumber: return number
        case let array as [Any]: return array.map(plain)
        case let dictionary as [String: Any]: return dictionary.mapValues(plain)
        default:
            if JSONSerialization.isValidJSONObject([value]) { return value }
            return String(describing: value)
        }
    }

    /// A plain value as one CSV field's text (before quoting): empty for `nil`, URIs of
    /// a to-many separated by spaces, nested values as JSON.
    package static func text(_ value: Any?) -> String {
        switch value {
        case nil: return ""
        case let string as String: return string
        case let number as Int64: return String(number)
        case let number as Double: return String(number)
        case let bool as Bool: return bool ? "true" : "false"
        case let number as NSNumber: return number.stringValue
        case let strings as [String]: return strings.joined(separator: " ")
        case let value?:
            if JSONSerialization.isValidJSONObject(value),
                let data = try? JSONSerialization.data(
                    withJSONObject: value, options: [.sortedKeys, .withoutEscapingSlashes])
            {
                return String(decoding: data, as: UTF8.self)
            }
            return String(describing: value)
        }
    }
}
