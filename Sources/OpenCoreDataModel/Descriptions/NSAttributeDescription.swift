/// Describes one attribute of an entity: its type, default and validation.
open class NSAttributeDescription: NSPropertyDescription, @unchecked Sendable {
    /// The value type. Default `.undefinedAttributeType`, which does not validate.
    open var attributeType: NSAttributeType = .undefinedAttributeType { willSet { assertMutable() } }
    /// The Objective-C class name Core Data reports for the value type (informational).
    open var attributeValueClassName: String? {
        get { explicitValueClassName ?? Self.defaultValueClassName(for: attributeType) }
        set { explicitValueClassName = newValue }
    }
    /// The class name the model set, `nil` when it is the type's default.
    package private(set) var explicitValueClassName: String?
    /// Storage of ``usesScalarValueType`` (an OpenCoreData code-generation hint).
    package final var scalarValueTypeHint = false
    /// The value a new object starts with. `nil` means no default.
    open var defaultValue: Any? { willSet { assertMutable() } }
    /// The name of the value transformer for a transformable attribute.
    ///
    /// `nil` selects the secure default (``/OpenCoreDataFoundation/NSSecureUnarchiveFromDataTransformer``), which
    /// stores property-list values (strings, numbers, dates, data, URLs, UUIDs, and arrays,
    /// sets and dictionaries of them). Swift `Codable` values need a registered
    /// ``/OpenCoreDataFoundation/CodableValueTransformer`` named here; other values fail the save with an error.
    open var valueTransformerName: String? { willSet { assertMutable() } }
    /// Whether large binary values may be kept in a file beside the store.
    open var allowsExternalBinaryDataStorage: Bool = false { willSet { assertMutable() } }
    /// Whether persistent history keeps the value when the object is deleted.
    open var preservesValueInHistoryOnDeletion: Bool = false
    /// Kept for API compatibility; CloudKit does not exist off Apple platforms.
    open var allowsCloudEncryption: Bool = false

    /// Creates an attribute description with an undefined type.
    public override init() { super.init() }

    package static func defaultValueClassName(for type: NSAttributeType) -> String? {
        switch type {
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType,
            .doubleAttributeType, .floatAttributeType, .booleanAttributeType:
            "NSNumber"
        case .decimalAttributeType: "NSDecimalNumber"
        case .stringAttributeType: "NSString"
        case .dateAttributeType: "NSDate"
        case .binaryDataAttributeType: "NSData"
        case .UUIDAttributeType: "NSUUID"
        case .URIAttributeType: "NSURL"
        case .objectIDAttributeType: "NSManagedObjectID"
        case .transformableAttributeType, .undefinedAttributeType, .compositeAttributeType: nil
        }
    }
}
