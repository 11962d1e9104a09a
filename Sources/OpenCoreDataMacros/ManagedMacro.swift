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
public struct ManagedMacro: AccessorMacro, PeerMacro {
    // MARK: Properties

    /// Turns a stored `@Managed` property into accessors over the object's storage.
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

    /// For a to-many property (`NSSet`, `NSOrderedSet`, `Set<T>`, `[T]`), writes the
    /// accessors Xcode generates: `addTo<Key>` / `removeFrom<Key>` for one object and for
    /// a set, plus the indexed variants for ordered ones.
    public static func expansion(
        of node: AttributeSyntax,
        providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard let variable = declaration.as(VariableDeclSyntax.self),
              let binding = variable.bindings.first,
              let identifier = binding.pattern.as(IdentifierPatternSyntax.self),
              let type = binding.typeAnnotation?.type
        else { return [] }
        let key = identifier.identifier.trimmedDescription.filter { $0 != "`" }
        guard let kind = ToManyType(type) else { return [] }
        let suffix = key.prefix(1).uppercased() + key.dropFirst()
        let access = variable.modifiers.contains { $0.name.tokenKind == .keyword(.public) } ? "public " : ""
        let element = kind.element ?? "NSManagedObject"
        var decls: [DeclSyntax] = [
            "\(raw: access)func addTo\(raw: suffix)(_ value: \(raw: element)) { self._managedAdd(value, toRelationship: \(literal: key)) }",
            "\(raw: access)func removeFrom\(raw: suffix)(_ value: \(raw: element)) { self._managedRemove(value, fromRelationship: \(literal: key)) }",
            "\(raw: access)func addTo\(raw: suffix)(_ values: \(raw: kind.ordered ? "NSOrderedSet" : "NSSet")) { self._managedAdd(values, toRelationship: \(literal: key)) }",
            "\(raw: access)func removeFrom\(raw: suffix)(_ values: \(raw: kind.ordered ? "NSOrderedSet" : "NSSet")) { self._managedRemove(values, fromRelationship: \(literal: key)) }",
        ]
        if kind.ordered {
            decls += [
                "\(raw: access)func insertInto\(raw: suffix)(_ value: \(raw: element), at idx: Int) { self._managedInsert(value, at: idx, intoRelationship: \(literal: key)) }",
                "\(raw: access)func removeFrom\(raw: suffix)(at idx: Int) { self._managedRemove(at: idx, fromRelationship: \(literal: key)) }",
                "\(raw: access)func replace\(raw: suffix)(at idx: Int, with value: \(raw: element)) { self._managedReplace(at: idx, with: value, inRelationship: \(literal: key)) }",
            ]
        }
        return decls
    }
}

/// Recognizes the declared types of to-many properties.
struct ToManyType {
    let ordered: Bool
    /// The element class when the type names it (`Set<Person>`), else `nil`.
    let element: String?

    init?(_ type: TypeSyntax) {
        var text = type.trimmedDescription
        if text.hasSuffix("?") || text.hasSuffix("!") { text.removeLast() }
        if text == "NSSet" { (ordered, element) = (false, nil); return }
        if text == "NSOrderedSet" { (ordered, element) = (true, nil); return }
        if text.hasPrefix("Set<"), text.hasSuffix(">") { (ordered, element) = (false, String(text.dropFirst(4).dropLast())); return }
        if text.hasPrefix("["), text.hasSuffix("]"), !text.contains(":") { (ordered, element) = (true, String(text.dropFirst().dropLast())); return }
        return nil
    }
}

/// An error reported at the macro's use site.
struct MacroError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
