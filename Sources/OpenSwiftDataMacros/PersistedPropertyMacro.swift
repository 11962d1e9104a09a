import SwiftSyntax
import SwiftSyntaxMacros

/// Implements `@_PersistedProperty(index:)`, which `@Model` puts on each persisted property.
///
/// The property becomes accessors over the model's backing store: an init accessor (so a
/// designated initializer's `self.name = name` stores the value before the model is in any
/// context), and a getter and setter that report access and mutation to the observation
/// registrar. The index is the property's place in `schemaMetadata`, so the backing store
/// finds the property without a lookup by name. A peer `_name` of an empty type is what the
/// init accessor initializes, as Swift's definite initialization needs a stored property.
public struct PersistedPropertyMacro: AccessorMacro, PeerMacro {
    public static func expansion(
        of node: AttributeSyntax,
        providingAccessorsOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [AccessorDeclSyntax] {
        guard let (identifier, index) = property(node, declaration) else { return [] }
        return [
            """
            @storageRestrictions(accesses: _$backingData, initializes: _\(raw: identifier))
            init(initialValue) {
                _$backingData._initialize(initialValue, at: \(raw: index))
                _\(raw: identifier) = OpenSwiftData._SwiftDataNoType()
            }
            """,
            """
            get {
                _$access(\\.\(raw: identifier))
                return _$backingData._value(at: \(raw: index))
            }
            """,
            """
            set {
                _$withMutation(\\.\(raw: identifier)) {
                    _$backingData._setValue(newValue, at: \(raw: index))
                }
            }
            """,
        ]
    }

    public static func expansion(
        of node: AttributeSyntax,
        providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard let (identifier, _) = property(node, declaration) else { return [] }
        return ["private var _\(raw: identifier): OpenSwiftData._SwiftDataNoType"]
    }

    private static func property(_ node: AttributeSyntax, _ declaration: some DeclSyntaxProtocol) -> (String, String)? {
        guard let variable = declaration.as(VariableDeclSyntax.self),
            let binding = variable.bindings.first,
            let identifier = binding.pattern.as(IdentifierPatternSyntax.self),
            case .argumentList(let arguments) = node.arguments,
            let index = arguments.first?.expression.trimmedDescription
        else { return nil }
        return (identifier.identifier.trimmedDescription, index)
    }
}

/// Implements the markers `@Attribute`, `@Relationship` and `@Transient`, and the
/// declarations `#Unique` and `#Index`: they expand to nothing. `@Model` reads them from
/// the class's syntax when it writes `schemaMetadata`, as SwiftData's macro does.
public struct SchemaMarkerMacro: PeerMacro, DeclarationMacro {
    public static func expansion(
        of node: AttributeSyntax,
        providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] { [] }

    public static func expansion(
        of node: some FreestandingMacroExpansionSyntax,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] { [] }
}
