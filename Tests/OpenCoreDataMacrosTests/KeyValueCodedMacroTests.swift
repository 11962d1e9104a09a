import OpenCoreDataMacros
import SwiftSyntaxMacros
import SwiftSyntaxMacrosTestSupport
import XCTest

final class KeyValueCodedMacroTests: XCTestCase {
    let macros: [String: Macro.Type] = ["KeyValueCoded": KeyValueCodedMacro.self]

    func testPropertyGetsANestedTypeHoldingItsKeyPath() {
        assertMacroExpansion(
            """
            final class Person: NSManagedObject {
                @KeyValueCoded var firstInitial: String { "A" }
            }
            """,
            expandedSource: """
                final class Person: NSManagedObject {
                    var firstInitial: String { "A" }

                    enum __KeyValueCoded_firstInitial: KeyValueCodedKeyPath {
                        static var keyPath: AnyKeyPath {
                            \\Person.firstInitial
                        }
                    }
                }
                """,
            macros: macros
        )
    }

    func testExtensionMembersNameTheExtendedType() {
        assertMacroExpansion(
            """
            extension Library.Book {
                @KeyValueCoded func summary() -> String { "" }
            }
            """,
            expandedSource: """
                extension Library.Book {
                    func summary() -> String { "" }

                    enum __KeyValueCoded_summary: KeyValueCodedProperty {
                        static func value(of object: Any) -> Any? {
                            (object as? Library.Book)?.summary()
                        }
                    }
                }
                """,
            macros: macros
        )
    }

    func testNonASCIIKeysGetAnASCIITypeName() {
        assertMacroExpansion(
            """
            struct Place {
                @KeyValueCoded var café: Int { 1 }
            }
            """,
            expandedSource: """
                struct Place {
                    var café: Int { 1 }

                    enum __KeyValueCoded_x63_61_66_c3_a9: KeyValueCodedKeyPath {
                        static var keyPath: AnyKeyPath {
                            \\Place.café
                        }
                    }
                }
                """,
            macros: macros
        )
    }

    func testRefusesWhatKeyValueCodingCannotReach() {
        assertMacroExpansion(
            """
            final class Person {
                @KeyValueCoded static var count: Int { 0 }
                @KeyValueCoded func greet(_ name: String) -> String { name }
            }
            """,
            expandedSource: """
                final class Person {
                    static var count: Int { 0 }
                    func greet(_ name: String) -> String { name }
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message:
                        "@KeyValueCoded applies to instance properties; key-value coding reads an object's own values",
                    line: 2, column: 5),
                DiagnosticSpec(
                    message:
                        "@KeyValueCoded applies to instance methods without parameters that return a value and neither throw nor are async",
                    line: 3, column: 5),
            ],
            macros: macros
        )
    }

    func testRefusesATopLevelDeclaration() {
        assertMacroExpansion(
            """
            @KeyValueCoded var loose: Int { 0 }
            """,
            expandedSource: """
                var loose: Int { 0 }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "@KeyValueCoded applies to members of a class, struct or extension", line: 1, column: 1)
            ],
            macros: macros
        )
    }
}
