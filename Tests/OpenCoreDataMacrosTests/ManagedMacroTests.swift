import OpenCoreDataMacros
import SwiftSyntaxMacros
import SwiftSyntaxMacrosTestSupport
import XCTest

final class ManagedMacroTests: XCTestCase {
    let macros: [String: Macro.Type] = ["Managed": ManagedMacro.self]

    func testAttributeBecomesAccessors() {
        assertMacroExpansion(
            """
            final class Person: NSManagedObject {
                @Managed var name: String?
            }
            """,
            expandedSource: """
            final class Person: NSManagedObject {
                var name: String? {
                    get {
                        self._managedValue(forKey: "name")
                    }
                    set {
                        self._setManagedValue(newValue, forKey: "name")
                    }
                }
            }
            """,
            macros: macros
        )
    }

    func testToManyGetsXcodeAccessors() {
        assertMacroExpansion(
            """
            final class Family: NSManagedObject {
                @Managed public var people: Set<Person>?
            }
            """,
            expandedSource: """
            final class Family: NSManagedObject {
                public var people: Set<Person>? {
                    get {
                        self._managedValue(forKey: "people")
                    }
                    set {
                        self._setManagedValue(newValue, forKey: "people")
                    }
                }

                public func addToPeople(_ value: Person) {
                    self._managedAdd(value, toRelationship: "people")
                }

                public func removeFromPeople(_ value: Person) {
                    self._managedRemove(value, fromRelationship: "people")
                }

                public func addToPeople(_ values: NSSet) {
                    self._managedAdd(values, toRelationship: "people")
                }

                public func removeFromPeople(_ values: NSSet) {
                    self._managedRemove(values, fromRelationship: "people")
                }
            }
            """,
            macros: macros
        )
    }

    func testInitialValueIsRejected() {
        assertMacroExpansion(
            """
            final class Person: NSManagedObject {
                @Managed var age: Int64 = 3
            }
            """,
            expandedSource: """
            final class Person: NSManagedObject {
                var age: Int64 = 3
            }
            """,
            diagnostics: [
                DiagnosticSpec(message: "@Managed properties take their default from the model; remove the initial value", line: 2, column: 5),
            ],
            macros: macros
        )
    }
}
