import SwiftCompilerPlugin
import SwiftSyntaxMacros

/// The compiler plugin that exposes OpenSwiftData's macros.
@main
struct OpenSwiftDataMacrosPlugin: CompilerPlugin {
    let providingMacros: [any Macro.Type] = [
        ModelMacro.self, PersistedPropertyMacro.self, SchemaMarkerMacro.self, ModelActorMacro.self,
    ]
}
