import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxMacros

/// Implements `@Managed`, OpenCoreData's stand-in for `@NSManaged`.
///
/// On a stored property it becomes accessors that read and write the managed object's
/// storage by key. On a body-less function named like Xcode's generated to-many
/// accessors (`addToPeople(_:)`, `removeFromPeople(at:)`, …) it supplies the body.
/// Core Data generates these at run time through the Objective-C runtime; a macro
/// does the same work at compile time on every platform.
public struct ManagedMacro: AccessorMacro, BodyMacro {
    // MARK: Properties

    public static func expansion(
        of node: AttributeSyntax,
        providingAccessorsOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [AccessorDeclSyntax] {
        guard let variable = declaration.as(VariableDeclSyntax.self),
              variable.bindings.count == 1,
              let binding = variable.bindings.first,
              let identifier = binding.pattern.as(IdentifierPatternSyntax.self)
        else {
            throw MacroError("@Managed applies to a single stored 'var' property")
        }
        guard variable.bindingSpecifier.tokenKind == .keyword(.var) else {
            throw MacroError("@Managed properties must be declared with 'var'")
        }
        if binding.accessorBlock != nil {
            throw MacroError("@Managed properties are stored by the managed object; remove the accessors")
        }
        if binding.initializer != nil {
            throw MacroError("@Managed properties take their default from the model; remove the initial value")
        }
        let key = identifier.identifier.trimmedDescription.filter { $0 != "`" }
        return [
            "get { self._managedValue(forKey: \(literal: key)) }",
            "set { self._setManagedValue(newValue, forKey: \(literal: key)) }",
        ]
    }

    // MARK: Generated to-many accessors

    public static func expansion(
        of node: AttributeSyntax,
        providingBodyFor declaration: some DeclSyntaxProtocol & WithOptionalCodeBlockSyntax,
        in context: some MacroExpansionContext
    ) throws -> [CodeBlockItemSyntax] {
        guard let function = declaration.as(FunctionDeclSyntax.self) else {
            throw MacroError("@Managed applies to properties and to generated relationship accessors")
        }
        let name = function.name.text
        let parameters = function.signature.parameterClause.parameters.map { parameter in
            (label: parameter.firstName.text, name: (parameter.secondName ?? parameter.firstName).text)
        }
        guard let accessor = ToManyAccessor(functionName: name, labels: parameters.map(\.label)) else {
            throw MacroError(
                "'\(name)' is not a relationship accessor @Managed can implement; expected addTo<Key>, removeFrom<Key>, insertInto<Key> or replace<Key>"
            )
        }
        let args = parameters.map(\.name)
        let key = accessor.key
        let call: String
        switch accessor.kind {
        case .add:
            call = "self._managedAdd(\(args[0]), toRelationship: \"\(key)\")"
        case .remove:
            call = "self._managedRemove(\(args[0]), fromRelationship: \"\(key)\")"
        case .removeAt:
            call = "self._managedRemove(at: \(args[0]), fromRelationship: \"\(key)\")"
        case .insertAt:
            call = "self._managedInsert(\(args[0]), at: \(args[1]), intoRelationship: \"\(key)\")"
        case .replaceAt:
            call = "self._managedReplace(at: \(args[0]), with: \(args[1]), inRelationship: \"\(key)\")"
        }
        return ["\(raw: call)"]
    }
}

/// The shape of one generated to-many accessor, parsed from its name and labels.
struct ToManyAccessor {
    enum Kind { case add, remove, removeAt, insertAt, replaceAt }
    let kind: Kind
    /// The relationship name as written after the prefix (`People` in `addToPeople`).
    let key: String

    init?(functionName name: String, labels: [String]) {
        func suffix(after prefix: String) -> String? {
            guard name.hasPrefix(prefix), name.count > prefix.count else { return nil }
            return String(name.dropFirst(prefix.count))
        }
        if let key = suffix(after: "addTo"), labels == ["_"] {
            (self.kind, self.key) = (.add, key)
        } else if let key = suffix(after: "removeFrom"), labels == ["_"] {
            (self.kind, self.key) = (.remove, key)
        } else if let key = suffix(after: "removeFrom"), labels == ["at"] {
            (self.kind, self.key) = (.removeAt, key)
        } else if let key = suffix(after: "insertInto"), labels == ["_", "at"] {
            (self.kind, self.key) = (.insertAt, key)
        } else if let key = suffix(after: "replace"), labels == ["at", "with"] {
            (self.kind, self.key) = (.replaceAt, key)
        } else {
            return nil
        }
    }
}

/// An error reported at the macro's use site.
struct MacroError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
