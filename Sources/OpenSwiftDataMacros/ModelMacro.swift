import Foundation
import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxMacros

/// Implements `@Model`: a class becomes a `PersistentModel` and `Observable`.
///
/// SwiftData's own macro writes the same kind of members: a backing store (`_$backingData`),
/// an observation registrar, the `schemaMetadata` table that names every persisted
/// property with its key path, and `init(backingData:)` for objects a fetch makes. Each
/// stored `var` that is not `@Transient` gets `@_PersistedProperty`, which turns it into
/// accessors over the backing store.
public struct ModelMacro: MemberMacro, MemberAttributeMacro, ExtensionMacro {
    // MARK: Members

    public static func expansion(
        of node: AttributeSyntax,
        providingMembersOf declaration: some DeclGroupSyntax,
        conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard let type = declaration.as(ClassDeclSyntax.self) else {
            throw MacroError("@Model applies to classes")
        }
        let name = type.name.trimmedDescription
        let properties = try PersistedProperties(of: type)
        let metadata = properties.list.map { property in
            "OpenSwiftData.Schema.PropertyMetadata(name: \(literal(property.name)), keypath: \\\(name).\(property.identifier), defaultValue: \(property.defaultValueExpression), metadata: \(property.metadataExpression))"
        }
        let peers = properties.list.map { "_\($0.identifier) = OpenSwiftData._SwiftDataNoType()" }
        var members: [DeclSyntax] = [
            "private var _$backingData: OpenSwiftData._ModelBackingData<\(raw: name)> = OpenSwiftData._ModelBackingData<\(raw: name)>._make()",
            """
            public var persistentBackingData: any OpenSwiftData.BackingData<\(raw: name)> {
                get { _$backingData }
                set { _$backingData = OpenSwiftData._ModelBackingData<\(raw: name)>._adopting(newValue) }
            }
            """,
            """
            public static var schemaMetadata: [OpenSwiftData.Schema.PropertyMetadata] {
                [
                    \(raw: metadata.joined(separator: ",\n"))
                ]
            }
            """,
            """
            public required init(backingData: any OpenSwiftData.BackingData<\(raw: name)>) {
                _$backingData = OpenSwiftData._ModelBackingData<\(raw: name)>._adopting(backingData)
                \(raw: peers.joined(separator: "\n"))
                _$backingData._attach(to: self)
            }
            """,
            "private let _$observationRegistrar = Observation.ObservationRegistrar()",
            """
            public func _$access<Value>(_ keyPath: KeyPath<\(raw: name), Value>) {
                _$observationRegistrar.access(self, keyPath: keyPath)
            }
            """,
            """
            public func _$withMutation<Value, Result>(_ keyPath: KeyPath<\(raw: name), Value>, _ mutation: () throws -> Result) rethrows -> Result {
                try _$observationRegistrar.withMutation(of: self, keyPath: keyPath, mutation)
            }
            """,
        ]
        let unique = properties.freestanding(named: "Unique", root: name)
        if !unique.isEmpty {
            members.append(
                "public static var _$uniquenessConstraints: [[AnyKeyPath]] { [\(raw: unique.joined(separator: ", "))] }"
            )
        }
        let indices = properties.freestanding(named: "Index", root: name)
        if !indices.isEmpty {
            members.append("public static var _$indices: [[AnyKeyPath]] { [\(raw: indices.joined(separator: ", "))] }")
        }
        return members
    }

    // MARK: Member attributes

    public static func expansion(
        of node: AttributeSyntax,
        attachedTo declaration: some DeclGroupSyntax,
        providingAttributesFor member: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [AttributeSyntax] {
        guard let type = declaration.as(ClassDeclSyntax.self),
            let variable = member.as(VariableDeclSyntax.self),
            let properties = try? PersistedProperties(of: type),
            let identifier = variable.bindings.first?.pattern.as(IdentifierPatternSyntax.self)?.identifier
                .trimmedDescription,
            let index = properties.list.firstIndex(where: { $0.identifier == identifier })
        else { return [] }
        return ["@_PersistedProperty(index: \(raw: index))"]
    }

    // MARK: Conformances

    public static func expansion(
        of node: AttributeSyntax,
        attachedTo declaration: some DeclGroupSyntax,
        providingExtensionsOf type: some TypeSyntaxProtocol,
        conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [ExtensionDeclSyntax] {
        guard declaration.is(ClassDeclSyntax.self) else { return [] }
        let missing = protocols.map(\.trimmedDescription)
        var extensions: [ExtensionDeclSyntax] = []
        if missing.contains(where: { $0.hasSuffix("PersistentModel") }) {
            extensions.append(try ExtensionDeclSyntax("extension \(type.trimmed): OpenSwiftData.PersistentModel {}"))
        }
        if missing.contains(where: { $0.hasSuffix("Observable") }) {
            extensions.append(try ExtensionDeclSyntax("extension \(type.trimmed): Observation.Observable {}"))
        }
        return extensions
    }

    static func literal(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}

/// The stored properties `@Model` persists, in declaration order (their index in
/// `schemaMetadata` is the one `@_PersistedProperty` is given), and the `#Unique`/`#Index`
/// declarations of the class body.
struct PersistedProperties {
    struct Property {
        let identifier: String
        let name: String
        let type: String?
        let initializer: String?
        let attribute: AttributeSyntax?

        /// `defaultValue:` of the property's metadata: its initial value, typed by its annotation.
        var defaultValueExpression: String {
            guard let initializer else { return "nil" }
            guard let type else { return "(\(initializer))" }
            return "((\(initializer)) as \(type))"
        }

        /// `metadata:` of the property's metadata, from its `@Attribute`/`@Relationship`.
        var metadataExpression: String {
            guard let attribute else { return "nil" }
            let kind = attribute.attributeName.trimmedDescription.split(separator: ".").last.map(String.init) ?? ""
            let arguments = attribute.arguments?.trimmedDescription ?? ""
            return "OpenSwiftData.Schema.\(kind)(\(arguments))"
        }
    }

    let list: [Property]
    private let members: MemberBlockItemListSyntax

    init(of type: ClassDeclSyntax) throws {
        members = type.memberBlock.members
        var list: [Property] = []
        for item in type.memberBlock.members {
            guard let variable = item.decl.as(VariableDeclSyntax.self),
                variable.bindingSpecifier.tokenKind == .keyword(.var),
                !variable.modifiers.contains(where: {
                    [.keyword(.static), .keyword(.class), .keyword(.lazy)].contains($0.name.tokenKind)
                }),
                !Self.has(variable, attribute: "Transient")
            else { continue }
            guard variable.bindings.count == 1, let binding = variable.bindings.first,
                let identifier = binding.pattern.as(IdentifierPatternSyntax.self)
            else { continue }
            if let accessors = binding.accessorBlock {
                // Computed properties are not stored; observers on a stored one are not supported.
                if case .accessors(let list) = accessors.accessors,
                    list.allSatisfy({
                        [.keyword(.willSet), .keyword(.didSet)].contains($0.accessorSpecifier.tokenKind)
                    })
                {
                    throw MacroError(
                        "@Model does not support willSet/didSet on persisted property '\(identifier.identifier.text)'; mark it @Transient or observe the model instead"
                    )
                }
                continue
            }
            let text = identifier.identifier.trimmedDescription
            let name = text.filter { $0 != "`" }
            let annotation = binding.typeAnnotation?.type.trimmedDescription
            let initializer = binding.initializer?.value.trimmedDescription
            if annotation == nil, initializer == nil {
                throw MacroError("@Model property '\(name)' needs a type annotation")
            }
            let attribute = variable.attributes.compactMap { $0.as(AttributeSyntax.self) }.first { attribute in
                let last = attribute.attributeName.trimmedDescription.split(separator: ".").last
                return last == "Attribute" || last == "Relationship"
            }
            list.append(
                Property(
                    identifier: text, name: name, type: annotation,
                    initializer: initializer, attribute: attribute))
        }
        self.list = list
    }

    /// The arguments of every `#name<T>(...)` declaration in the body, each an array literal
    /// of key paths, their implied roots (`\.name`) spelled out (`\Trip.name`).
    func freestanding(named name: String, root: String) -> [String] {
        members.compactMap { $0.decl.as(MacroExpansionDeclSyntax.self) }
            .filter { $0.macroName.text == name }
            .flatMap {
                $0.arguments.map {
                    $0.expression.trimmedDescription.replacingOccurrences(of: "\\.", with: "\\\(root).")
                }
            }
    }

    static func has(_ variable: VariableDeclSyntax, attribute name: String) -> Bool {
        variable.attributes.contains { element in
            guard let attribute = element.as(AttributeSyntax.self) else { return false }
            return attribute.attributeName.trimmedDescription.split(separator: ".").last.map(String.init) == name
        }
    }
}

struct MacroError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
