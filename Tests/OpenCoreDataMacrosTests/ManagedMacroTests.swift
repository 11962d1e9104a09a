import OpenCoreDataMacros
import SwiftSyntaxMacros
import SwiftSyntaxMacrosTestSupport
import XCTest

final class ManagedMacroTests: XCTestCase {
    let macros: [String: Macro.Type] = ["Managed": ManagedMacro.self, "keyPathString": KeyPathStringMacro.self]

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

    /// Xcode's accessors for an ordered to-many `people` of `element`s, as the macro writes them.
    private func orderedPeopleAccessors(_ element: String) -> String {
        [
            "func addToPeople(_ value: \(element)) {\n        self._managedAdd(value, toRelationship: \"people\")",
            "func removeFromPeople(_ value: \(element)) {\n        self._managedRemove(value, fromRelationship: \"people\")",
            "func addToPeople(_ values: NSOrderedSet) {\n        self._managedAdd(values, toRelationship: \"people\")",
            "func removeFromPeople(_ values: NSOrderedSet) {\n        self._managedRemove(values, fromRelationship: \"people\")",
            "func insertIntoPeople(_ value: \(element), at idx: Int) {\n        self._managedInsert(value, at: idx, intoRelationship: \"people\")",
            "func removeFromPeople(at idx: Int) {\n        self._managedRemove(at: idx, fromRelationship: \"people\")",
            "func insertIntoPeople(_ values: [\(element)], at indexes: NSIndexSet) {\n        self._managedInsert(values, at: indexes, intoRelationship: \"people\")",
            "func removeFromPeople(at indexes: NSIndexSet) {\n        self._managedRemove(at: indexes, fromRelationship: \"people\")",
            "func replacePeople(at idx: Int, with value: \(element)) {\n        self._managedReplace(at: idx, with: value, inRelationship: \"people\")",
            "func replacePeople(at indexes: NSIndexSet, with values: [\(element)]) {\n        self._managedReplace(at: indexes, with: values, inRelationship: \"people\")",
        ].map { "    \($0)\n    }" }.joined(separator: "\n\n")
    }

    /// The property's accessors and the generated ones for an ordered to-many `people` of type `type`.
    private func orderedExpansion(_ type: String, element: String) -> String {
        """
        final class Family: NSManagedObject {
            var people: \(type) {
                get {
                    self._managedValue(forKey: "people")
                }
                set {
                    self._setManagedValue(newValue, forKey: "people")
                }
            }

        \(orderedPeopleAccessors(element))
        }
        """
    }

    func testOrderedToManyGetsIndexedXcodeAccessors() {
        let source = """
            final class Family: NSManagedObject {
                @Managed var people: NSOrderedSet?
            }
            """
        assertMacroExpansion(
            source, expandedSource: orderedExpansion("NSOrderedSet?", element: "NSManagedObject"), macros: macros)
    }

    /// A Swift array names the element class, so the generated accessors take it.
    func testArrayToManyUsesItsElementClass() {
        let source = """
            final class Family: NSManagedObject {
                @Managed var people: [Person]
            }
            """
        assertMacroExpansion(source, expandedSource: orderedExpansion("[Person]", element: "Person"), macros: macros)
    }

    func testFunctionsAreNotManaged() {
        assertMacroExpansion(
            """
            final class Family: NSManagedObject {
                @Managed func addToPeople(_ value: Person)
            }
            """,
            expandedSource: """
                final class Family: NSManagedObject {
                    func addToPeople(_ value: Person)
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message:
                        "@Managed applies to stored properties; 'addToPeople' is generated by the to-many property's @Managed, so delete this declaration",
                    line: 2, column: 5)
            ],
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
                DiagnosticSpec(
                    message: "@Managed properties take their default from the model; remove the initial value", line: 2,
                    column: 5)
            ],
            macros: macros
        )
    }

    func testPrimitivePropertyBecomesThePrimitiveAccessorsOfItsKey() {
        assertMacroExpansion(
            """
            final class Memo: NSManagedObject {
                @Managed var primitiveUpdatedAt: Date?
                @Managed var primitiveTags: NSSet?
                @Managed var primitives: Int16
            }
            """,
            expandedSource: """
                final class Memo: NSManagedObject {
                    var primitiveUpdatedAt: Date? {
                        get {
                            self._managedPrimitiveValue(forKey: "updatedAt")
                        }
                        set {
                            self._setManagedPrimitiveValue(newValue, forKey: "updatedAt")
                        }
                    }
                    var primitiveTags: NSSet? {
                        get {
                            self._managedPrimitiveValue(forKey: "tags")
                        }
                        set {
                            self._setManagedPrimitiveValue(newValue, forKey: "tags")
                        }
                    }
                    var primitives: Int16 {
                        get {
                            self._managedValue(forKey: "primitives")
                        }
                        set {
                            self._setManagedValue(newValue, forKey: "primitives")
                        }
                    }
                }
                """,
            macros: macros
        )
    }

    // MARK: #keyPathString

    func testKeyPathStringDropsTheRootAndUnwrapMarks() {
        assertMacroExpansion(
            #"let key = #keyPathString(\Person.family?.owner!.name)"#,
            expandedSource: #"let key = "family.owner.name""#,
            macros: macros
        )
    }

    func testKeyPathStringRejectsWhatIsNotAKeyPath() {
        assertMacroExpansion(
            #"let key = #keyPathString("name")"#,
            expandedSource: #"let key = #keyPathString("name")"#,
            diagnostics: [
                DiagnosticSpec(
                    message: #"#keyPathString takes one key path literal, as in #keyPathString(\Person.name)"#, line: 1,
                    column: 11)
            ],
            macros: macros
        )
        assertMacroExpansion(
            #"let key = #keyPathString(\Person.tags[0])"#,
            expandedSource: #"let key = #keyPathString(\Person.tags[0])"#,
            diagnostics: [
                DiagnosticSpec(
                    message: #"#keyPathString takes properties only (no subscripts or method calls): \Person.tags[0]"#,
                    line: 1, column: 11)
            ],
            macros: macros
        )
    }
}
