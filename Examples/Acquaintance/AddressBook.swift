import ExampleSupport
import Foundation

/// What both versions of the app do with their list of people.
protocol AddressBook {
    /// The file the list lives in, named when it is printed.
    var fileName: String { get }
    /// Everyone, sorted by name as Finder sorts.
    func people() throws -> [PersonRecord]
    func add(_ person: PersonRecord) throws
    /// Sets `field` of the person named `name` (any case); throws when nobody is.
    func update(_ name: String, _ field: Field, to value: String) throws
    /// Deletes the person named `name` (any case); throws when nobody is.
    func delete(_ name: String) throws
    /// Writes what changed.
    func save() throws
}

extension AddressBook {
    func printList() throws {
        let people = try people()
        print("Acquaintances in \(fileName):")
        for person in people { print(person.summary) }
    }
}

extension Array where Element == PersonRecord {
    /// Sorted by name the way the list shows them.
    func sortedByName() -> [PersonRecord] {
        sorted { $0.name.localizedStandardCompare($1.name) == .orderedAscending }
    }
}

/// A name the user typed that matches nobody.
func nobody(named name: String) -> ExampleFailure { ExampleFailure("nobody is named \(name)") }
