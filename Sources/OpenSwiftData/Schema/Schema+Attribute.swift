import OpenCoreData

extension Schema {
    /// An attribute of an entity: a persisted property holding a value.
    ///
    /// Written as `@Attribute(.unique, originalName: "title")` on a model's property; the
    /// name, type and default come from the property itself.
    public final class Attribute: SchemaProperty, @unchecked Sendable {
        public internal(set) var name: String = ""
        private let declaredOriginalName: String?
        public var originalName: String { declaredOriginalName ?? name }
        /// The attribute's options.
        public let options: [Option]
        public internal(set) var valueType: Any.Type = Any.self
        /// The initial value of the property's declaration, if any.
        public internal(set) var defaultValue: Any?
        public let hashModifier: String?
        public internal(set) var isOptional: Bool = false
        public var isUnique: Bool { options.contains(.unique) }
        public var isAttribute: Bool { true }
        public var isRelationship: Bool { false }
        public var isTransient: Bool { options.contains(.ephemeral) }
        /// Whether the value is kept in a file beside the store when large.
        public var isExternal: Bool { options.contains(.externalStorage) }
        /// The name of the value transformer of a `.transformable(by:)` attribute.
        public var valueTransformerName: String? {
            options.lazy.compactMap { if case .transformable(let name) = $0.kind { name } else { nil } }.first
        }

        /// An attribute with `options`, its former name and its version hash modifier.
        public init(_ options: Option..., originalName: String? = nil, hashModifier: String? = nil) {
            self.options = options
            self.declaredOriginalName = originalName
            self.hashModifier = hashModifier
        }

        init(options: [Option], originalName: String?, hashModifier: String?) {
            self.options = options
            self.declaredOriginalName = originalName
            self.hashModifier = hashModifier
        }

        public var debugDescription: String {
            "Attribute(name: \(name), options: \(options), valueType: \(valueType), defaultValue: \(defaultValue.map { "\($0)" } ?? "nil"), hashModifier: \(hashModifier ?? "nil"))"
        }

        /// How an attribute is stored.
        public struct Option: Hashable, Sendable, CustomStringConvertible {
            enum Kind: Hashable, Sendable {
                case unique, externalStorage, allowsCloudEncryption, preserveValueOnDeletion, ephemeral, spotlight
                case transformable(String)
            }

            let kind: Kind

            /// No two models may share the value; a save of a second one updates the first.
            public static let unique = Option(kind: .unique)
            /// Large values live in files beside the store.
            public static let externalStorage = Option(kind: .externalStorage)
            /// Encrypted in CloudKit (accepted; OpenSwiftData has no CloudKit).
            public static let allowsCloudEncryption = Option(kind: .allowsCloudEncryption)
            /// The value stays readable in the history of the model's deletion.
            public static let preserveValueOnDeletion = Option(kind: .preserveValueOnDeletion)
            /// Tracked for changes but never saved.
            public static let ephemeral = Option(kind: .ephemeral)
            /// Indexed by Spotlight (accepted; there is no Spotlight off Apple platforms).
            public static let spotlight = Option(kind: .spotlight)

            /// Stored through the value transformer class `transformerType`.
            public static func transformable(by transformerType: OpenCoreData.ValueTransformer.Type) -> Option {
                Option(kind: .transformable(String(describing: transformerType)))
            }

            /// Stored through the value transformer registered under `transformerName`.
            public static func transformable(by transformerName: String) -> Option {
                Option(kind: .transformable(transformerName))
            }

            public var description: String {
                switch kind {
                case .unique: "unique"
                case .externalStorage: "externalStorage"
                case .allowsCloudEncryption: "allowsCloudEncryption"
                case .preserveValueOnDeletion: "preserveValueOnDeletion"
                case .ephemeral: "ephemeral"
                case .spotlight: "spotlight"
                case .transformable(let name): "transformable(by: \(name))"
                }
            }
        }
    }
}
