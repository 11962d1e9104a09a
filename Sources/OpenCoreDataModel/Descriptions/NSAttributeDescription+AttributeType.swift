extension NSAttributeDescription {
    /// An attribute's type as the Swift API names it (`.string`, `.integer64`, …), the
    /// counterpart of ``NSAttributeType`` added with iOS 15.
    public struct AttributeType: Hashable, Sendable, RawRepresentable {
        /// The attribute type in its original form.
        public let rawValue: NSAttributeType
        /// The Swift name of `rawValue`.
        public init(rawValue: NSAttributeType) { self.rawValue = rawValue }
        /// The Swift name of `type`.
        public init(_ type: NSAttributeType) { self.rawValue = type }

        /// No type yet.
        public static let undefined = AttributeType(.undefinedAttributeType)
        /// A 16-bit signed integer.
        public static let integer16 = AttributeType(.integer16AttributeType)
        /// A 32-bit signed integer.
        public static let integer32 = AttributeType(.integer32AttributeType)
        /// A 64-bit signed integer.
        public static let integer64 = AttributeType(.integer64AttributeType)
        /// A base-10 decimal number.
        public static let decimal = AttributeType(.decimalAttributeType)
        /// A double-precision float.
        public static let double = AttributeType(.doubleAttributeType)
        /// A single-precision float.
        public static let float = AttributeType(.floatAttributeType)
        /// A string.
        public static let string = AttributeType(.stringAttributeType)
        /// A Boolean.
        public static let boolean = AttributeType(.booleanAttributeType)
        /// A point in time.
        public static let date = AttributeType(.dateAttributeType)
        /// Arbitrary bytes.
        public static let binaryData = AttributeType(.binaryDataAttributeType)
        /// A UUID.
        public static let uuid = AttributeType(.UUIDAttributeType)
        /// A URL.
        public static let uri = AttributeType(.URIAttributeType)
        /// Any value stored through a value transformer.
        public static let transformable = AttributeType(.transformableAttributeType)
        /// A managed object ID.
        public static let objectID = AttributeType(.objectIDAttributeType)
        /// A composite of other attributes.
        public static let composite = AttributeType(.compositeAttributeType)
    }

    /// The attribute's type in its Swift form; the same value as ``attributeType``.
    public var type: AttributeType {
        get { AttributeType(attributeType) }
        set { attributeType = newValue.rawValue }
    }
}
