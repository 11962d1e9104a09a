/// The type of value an attribute holds; raw values are Core Data's.
public enum NSAttributeType: UInt, Sendable, CaseIterable {
    /// No type yet: a model with such an attribute does not validate.
    case undefinedAttributeType = 0
    /// A 16-bit signed integer, stored as `Int16`.
    case integer16AttributeType = 100
    /// A 32-bit signed integer, stored as `Int32`.
    case integer32AttributeType = 200
    /// A 64-bit signed integer, stored as `Int64`.
    case integer64AttributeType = 300
    /// A base-10 decimal number, stored as `Decimal`.
    case decimalAttributeType = 400
    /// A double-precision float.
    case doubleAttributeType = 500
    /// A single-precision float.
    case floatAttributeType = 600
    /// A string.
    case stringAttributeType = 700
    /// A Boolean.
    case booleanAttributeType = 800
    /// A point in time, stored as seconds since the reference date (2001-01-01).
    case dateAttributeType = 900
    /// Arbitrary bytes, optionally kept outside the store file.
    case binaryDataAttributeType = 1000
    /// A UUID.
    case UUIDAttributeType = 1100
    /// A URL.
    case URIAttributeType = 1200
    /// Any value, turned into `Data` by a value transformer when stored.
    case transformableAttributeType = 1800
    /// A managed object ID, stored as its URI.
    case objectIDAttributeType = 2000
    /// A composite of other attributes: an ``NSCompositeAttributeDescription``, whose value is a dictionary.
    case compositeAttributeType = 2100

    /// A readable name, as Xcode's model editor shows it ("Integer 16", "Binary Data"),
    /// for error messages and for tools that print a model (`cdtool model`).
    public var displayName: String {
        switch self {
        case .undefinedAttributeType: "Undefined"
        case .integer16AttributeType: "Integer 16"
        case .integer32AttributeType: "Integer 32"
        case .integer64AttributeType: "Integer 64"
        case .decimalAttributeType: "Decimal"
        case .doubleAttributeType: "Double"
        case .floatAttributeType: "Float"
        case .stringAttributeType: "String"
        case .booleanAttributeType: "Boolean"
        case .dateAttributeType: "Date"
        case .binaryDataAttributeType: "Binary Data"
        case .UUIDAttributeType: "UUID"
        case .URIAttributeType: "URI"
        case .transformableAttributeType: "Transformable"
        case .objectIDAttributeType: "Object ID"
        case .compositeAttributeType: "Composite"
        }
    }

    /// True for the integer, float, decimal and Boolean types (Core Data boxes them in `NSNumber`).
    package var isNumeric: Bool {
        switch self {
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType,
            .decimalAttributeType, .doubleAttributeType, .floatAttributeType, .booleanAttributeType:
            true
        default:
            false
        }
    }
}
