import SwiftSyntax
import SwiftSyntaxMacros

/// Implements `@KeyValueCoded`, OpenCoreData's stand-in for marking a property `@objc`
/// so that key-value coding reaches it.
///
/// Key-value coding on Apple platforms finds any `@objc` property or method by name
/// through the Objective-C runtime. Without that runtime, the macro writes a nested type
/// next to the member, named after its key; OpenCoreData's key-value coding finds that
/// type by name through the Swift runtime's type lookup (see `KeyValueCodedProperty`).
/// A property's nested type holds its key path (so a settable property is also set by
/// key); a method without parameters is called.
public struct KeyValueCodedMacro: PeerMacro {
    /// Writes the nested type of a property or a method without parameters.
    public static func expansion(
        of node: AttributeSyntax,
        providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard let owner = enclosingTypeName(context) else {
            throw MacroError("@KeyValueCoded applies to members of a class, struct or extension")
        }
        if let variable = declaration.as(VariableDeclSyntax.self) {
            guard
                !variable.modifiers.contains(where: {
                    $0.name.tokenKind == .keyword(.static) || $0.name.tokenKind == .keyword(.class)
                })
            else {
                throw MacroError(
                    "@KeyValueCoded applies to instance properties; key-value coding reads an object's own values")
            }
            return try variable.bindings.map { binding in
                guard let identifier = binding.pattern.as(IdentifierPatternSyntax.self) else {
                    throw MacroError("@KeyValueCoded needs a property with a simple name")
                }
                let key = identifier.identifier.trimmedDescription.filter { $0 != "`" }
                return """
                    enum \(raw: typeName(forKey: key)): KeyValueCodedKeyPath {
                        static var keyPath: AnyKeyPath { \\\(raw: owner).\(identifier.identifier.trimmed) }
                    }
                    """
            }
        }
        if let function = declaration.as(FunctionDeclSyntax.self) {
            guard function.signature.parameterClause.parameters.isEmpty,
                function.signature.returnClause != nil,
                function.signature.effectSpecifiers == nil,
                function.genericParameterClause == nil,
                !function.modifiers.contains(where: {
                    $0.name.tokenKind == .keyword(.static) || $0.name.tokenKind == .keyword(.class)
                })
            else {
                throw MacroError(
                    "@KeyValueCoded applies to instance methods without parameters that return a value and neither throw nor are async"
                )
            }
            let key = function.name.trimmedDescription.filter { $0 != "`" }
            return [
                """
                enum \(raw: typeName(forKey: key)): KeyValueCodedProperty {
                    static func value(of object: Any) -> Any? { (object as? \(raw: owner))?.\(function.name.trimmed)() }
                }
                """
            ]
        }
        throw MacroError("@KeyValueCoded applies to properties and to methods without parameters")
    }

    /// The name of the type the member belongs to, as code inside it can spell it.
    private static func enclosingTypeName(_ context: some MacroExpansionContext) -> String? {
        guard let enclosing = context.lexicalContext.first else { return nil }
        if let type = enclosing.as(ClassDeclSyntax.self) { return type.name.trimmedDescription }
        if let type = enclosing.as(StructDeclSyntax.self) { return type.name.trimmedDescription }
        if let type = enclosing.as(ActorDeclSyntax.self) { return type.name.trimmedDescription }
        if let type = enclosing.as(EnumDeclSyntax.self) { return type.name.trimmedDescription }
        if let extended = enclosing.as(ExtensionDeclSyntax.self) { return extended.extendedType.trimmedDescription }
        return nil
    }

    /// The nested type's name for `key`; the runtime lookup spells it the same way.
    ///
    /// Keys outside ASCII letters, digits and underscores are written as their UTF-8 bytes
    /// in hex, so the name mangles without Swift's Punycode rule for identifiers.
    static func typeName(forKey key: String) -> String {
        let plain = key.unicodeScalars.allSatisfy {
            $0.isASCII && ($0 == "_" || $0.properties.isAlphabetic || ("0"..."9").contains($0))
        }
        return "__KeyValueCoded_" + (plain ? key : "x" + key.utf8.map { String($0, radix: 16) }.joined(separator: "_"))
    }
}
