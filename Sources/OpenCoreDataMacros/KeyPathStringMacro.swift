import SwiftSyntax
import SwiftSyntaxMacros

/// Implements `#keyPathString(\Person.address?.city)`, OpenCoreData's stand-in for `#keyPath`.
///
/// Swift's `#keyPath` is a compiler builtin that needs the Objective-C runtime, and a
/// macro cannot take its name. This one takes a Swift key path literal, which the
/// compiler has already checked against the declared types, and expands to the string
/// `#keyPath` would give (`"address.city"`): optional chaining and force-unwrapping
/// marks are not part of a key.
public struct KeyPathStringMacro: ExpressionMacro {
    public static func expansion(
        of node: some FreestandingMacroExpansionSyntax,
        in context: some MacroExpansionContext
    ) throws -> ExprSyntax {
        guard node.arguments.count == 1, let argument = node.arguments.first, argument.label == nil,
            let keyPath = argument.expression.as(KeyPathExprSyntax.self)
        else {
            throw MacroError("#keyPathString takes one key path literal, as in #keyPathString(\\Person.name)")
        }
        var names: [String] = []
        for component in keyPath.components {
            switch component.component {
            case .property(let property):
                guard property.declName.argumentNames == nil else { fallthrough }
                names.append(property.declName.baseName.text.filter { $0 != "`" })
            case .optional:
                continue  // `?` and `!` unwrap; they add no key
            default:
                throw MacroError(
                    "#keyPathString takes properties only (no subscripts or method calls): \(keyPath.trimmedDescription)"
                )
            }
        }
        guard !names.isEmpty else {
            throw MacroError("#keyPathString(\(keyPath.trimmedDescription)) names no property")
        }
        return "\(literal: names.joined(separator: "."))"
    }
}
