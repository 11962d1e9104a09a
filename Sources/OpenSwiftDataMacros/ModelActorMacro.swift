import SwiftSyntax
import SwiftSyntaxMacros

/// Implements `@ModelActor`: an actor that owns a `ModelContext` and runs on its executor.
///
/// As SwiftData's macro does, it adds the container, a serial executor over a new context,
/// an `init(modelContainer:)`, and the `ModelActor` conformance (which supplies
/// `modelContext` and the actor's `unownedExecutor`).
public struct ModelActorMacro: MemberMacro, ExtensionMacro {
    public static func expansion(
        of node: AttributeSyntax,
        providingMembersOf declaration: some DeclGroupSyntax,
        conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard declaration.is(ActorDeclSyntax.self) else {
            throw MacroError("@ModelActor applies to actors")
        }
        return [
            "public nonisolated let modelExecutor: any OpenSwiftData.ModelExecutor",
            "public nonisolated let modelContainer: OpenSwiftData.ModelContainer",
            """
            public init(modelContainer: OpenSwiftData.ModelContainer) {
                let modelContext = OpenSwiftData.ModelContext(modelContainer)
                self.modelExecutor = OpenSwiftData.DefaultSerialModelExecutor(modelContext: modelContext)
                self.modelContainer = modelContainer
            }
            """,
        ]
    }

    public static func expansion(
        of node: AttributeSyntax,
        attachedTo declaration: some DeclGroupSyntax,
        providingExtensionsOf type: some TypeSyntaxProtocol,
        conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [ExtensionDeclSyntax] {
        guard declaration.is(ActorDeclSyntax.self), !protocols.isEmpty else { return [] }
        return [try ExtensionDeclSyntax("extension \(type.trimmed): OpenSwiftData.ModelActor {}")]
    }
}
