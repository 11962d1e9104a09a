import SwiftCompilerPlugin
import SwiftSyntaxMacros

/// The compiler plugin that exposes OpenCoreData's macros.
@main
struct OpenCoreDataMacrosPlugin: CompilerPlugin {
    let providingMacros: [any Macro.Type] = [ManagedMacro.self, KeyPathStringMacro.self, KeyValueCodedMacro.self]
}
