import OpenCoreData

extension Schema {
    /// A relationship of an entity: a persisted property holding other models.
    ///
    /// Written as `@Relationship(deleteRule: .cascade, inverse: \Activity.trip)` on a model's
    /// property of a model type (to-one) or an array of one (to-many).
    public final class Relationship: SchemaProperty, @unchecked Sendable {
        public internal(set) var name: String = ""
        private let declaredOriginalName: String?
        public var originalName: String { declaredOriginalName ?? name }
        /// The relationship's options.
        public let options: [Option]
        /// What deleting the model does to the models this relationship holds.
        public let deleteRule: DeleteRule
        /// The fewest models a to-many relationship may hold (0: no minimum).
        public internal(set) var minimumModelCount: Int?
        /// The most models a to-many relationship may hold (0: no maximum).
        public internal(set) var maximumModelCount: Int?
        /// The declared inverse, as a key path from the destination type.
        public let inverseKeyPath: AnyKeyPath?
        public let hashModifier: String?
        public internal(set) var valueType: Any.Type = Any.self
        /// The entity name of the related model type.
        public internal(set) var destination: String = ""
        /// The name of the inverse relationship, declared or inferred.
        public internal(set) var inverseName: String?
        /// The relationship's key path from its model type.
        public internal(set) var keypath: AnyKeyPath?
        public internal(set) var isOptional: Bool = true
        /// Whether the relationship holds at most one model.
        public internal(set) var isToOneRelationship: Bool = true
        public var isUnique: Bool { options.contains(.unique) }
        public var isAttribute: Bool { false }
        public var isRelationship: Bool { true }
        public var isTransient: Bool { false }

        /// A relationship with `options`, its delete rule, counts, former name, inverse and
        /// version hash modifier.
        public init(
            _ options: Option..., deleteRule: DeleteRule = .nullify, minimumModelCount: Int? = 0,
            maximumModelCount: Int? = 0, originalName: String? = nil, inverse: AnyKeyPath? = nil,
            hashModifier: String? = nil
        ) {
            self.options = options
            self.deleteRule = deleteRule
            self.minimumModelCount = minimumModelCount
            self.maximumModelCount = maximumModelCount
            self.declaredOriginalName = originalName
            self.inverseKeyPath = inverse
            self.hashModifier = hashModifier
        }

        public var debugDescription: String {
            "Relationship(name: \(name), destination: \(destination), inverseName: \(inverseName ?? "nil"), deleteRule: \(deleteRule), toOne: \(isToOneRelationship))"
        }

        /// What deleting a model does to the models a relationship holds.
        public enum DeleteRule: String, Codable, Hashable, Sendable {
            /// The related models lose their reference to the deleted one.
            case nullify
            /// The related models are deleted too.
            case cascade
            /// The deletion fails while the relationship holds any model.
            case deny
            /// Nothing: the related models keep a reference to a deleted model.
            case noAction

            var coreData: NSDeleteRule {
                switch self {
                case .nullify: .nullifyDeleteRule
                case .cascade: .cascadeDeleteRule
                case .deny: .denyDeleteRule
                case .noAction: .noActionDeleteRule
                }
            }
        }

        /// How a relationship is stored.
        public struct Option: Hashable, Sendable {
            let raw: String
            /// No two models may hold the same related model.
            public static let unique = Option(raw: "unique")
        }
    }
}
