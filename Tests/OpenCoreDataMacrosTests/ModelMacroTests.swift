import OpenSwiftDataMacros
import SwiftSyntaxMacros
import SwiftSyntaxMacrosTestSupport
import XCTest

final class ModelMacroTests: XCTestCase {
    let macros: [String: Macro.Type] = ["Model": ModelMacro.self, "_PersistedProperty": PersistedPropertyMacro.self]

    func testPersistedPropertiesBecomeAccessorsOverTheBackingStoreByIndex() {
        assertMacroExpansion(
            """
            final class Trip {
                @_PersistedProperty(index: 1) var name: String
            }
            """,
            expandedSource: """
                final class Trip {
                    var name: String {
                        @storageRestrictions(accesses: _$backingData, initializes: _name)
                        init(initialValue) {
                            _$backingData._initialize(initialValue, at: 1)
                            _name = OpenSwiftData._SwiftDataNoType()
                        }
                        get {
                            _$access(\\.name)
                            return _$backingData._value(at: 1)
                        }
                        set {
                            _$withMutation(\\.name) {
                                _$backingData._setValue(newValue, at: 1)
                            }
                        }
                    }

                    private var _name: OpenSwiftData._SwiftDataNoType
                }
                """,
            macros: macros
        )
    }

    func testModelAppliesToClassesOnly() {
        assertMacroExpansion(
            """
            @Model struct Trip {
                var name: String
            }
            """,
            expandedSource: """
                struct Trip {
                    var name: String
                }
                """,
            diagnostics: [DiagnosticSpec(message: "@Model applies to classes", line: 1, column: 1)],
            macros: macros
        )
    }

    func testObserversOnPersistedPropertiesAreRefused() {
        assertMacroExpansion(
            """
            @Model final class Trip {
                var name: String { didSet { print(name) } }
            }
            """,
            expandedSource: """
                final class Trip {
                    var name: String { didSet { print(name) } }
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message:
                        "@Model does not support willSet/didSet on persisted property 'name'; mark it @Transient or observe the model instead",
                    line: 1, column: 1)
            ],
            macros: macros
        )
    }
}
