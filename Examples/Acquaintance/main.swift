// Acquaintance: the seed tutorial's Person list as a command-line app, on Core Data's API.
//
//   swift run Acquaintance                    list (preloads sample people on first run)
//   swift run Acquaintance add NAME [PHONE] [EMAIL] [NOTES]
//   swift run Acquaintance update NAME FIELD VALUE     (FIELD: name, phone, email, notes)
//   swift run Acquaintance delete NAME
//
//   swift run Acquaintance --archive add NAME  version 1: the same commands on an NSKeyedArchiver archive
//
// The store is Acquaintance.sqlite in NSPersistentContainer.defaultDirectoryURL(); version 1's
// archive is acqList.plist in the Documents folder, and a new store takes in its people.
import ExampleSupport
import Foundation
import OpenCoreData

final class Person: NSManagedObject {
    @Managed var name: String?
    @Managed var photo: Data?
    @Managed var phone: String?
    @Managed var email: String?
    @Managed var notes: String?
}

/// Person: name required; photo Binary with external storage; phone, email, notes optional.
func makeModel() -> NSManagedObjectModel {
    let person = NSEntityDescription()
    person.name = "Person"
    person.managedObjectClassName = "Person"
    func attribute(_ name: String, _ type: NSAttributeType, optional: Bool = true) -> NSAttributeDescription {
        let attribute = NSAttributeDescription()
        attribute.name = name
        attribute.attributeType = type
        attribute.isOptional = optional
        return attribute
    }
    let photo = attribute("photo", .binaryDataAttributeType)
    photo.allowsExternalBinaryDataStorage = true
    person.properties = [
        attribute("name", .stringAttributeType, optional: false), photo,
        attribute("phone", .stringAttributeType), attribute("email", .stringAttributeType), attribute("notes", .stringAttributeType),
    ]
    let model = NSManagedObjectModel()
    model.entities = [person]
    return model
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("Acquaintance: \(message)\n".utf8))
    exit(1)
}

if let first = CommandLine.arguments.dropFirst().first, ["help", "--help", "-h"].contains(first) {
    print("""
        USAGE: Acquaintance [--archive] [list | add NAME [PHONE] [EMAIL] [NOTES] | update NAME FIELD VALUE | delete NAME]

        An address book in a Core Data store, Acquaintance.sqlite in the XDG data directory
        ($XDG_DATA_HOME, else ~/.local/share). FIELD is name, phone, email or notes.
        With --archive, version 1 of the app: the list in acqList.plist (NSKeyedArchiver) in the
        Documents folder ($XDG_DOCUMENTS_DIR, else ~/Documents). A new store takes in that list.
        """)
    exit(0)
}
if CommandLine.arguments.dropFirst().first == "--archive" {
    do { try AcquaintanceArchive.run(Array(CommandLine.arguments.dropFirst(2))) } catch { fail("\(error)") }
    exit(0)
}
let storeURL = NSPersistentContainer.defaultDirectoryURL().appendingPathComponent("Acquaintance.sqlite")
let isFirstRun = !FileManager.default.fileExists(atPath: storeURL.path)
let container = NSPersistentContainer(name: "Acquaintance", managedObjectModel: makeModel())
container.loadPersistentStores { _, error in
    if let error { fail("could not open \(storeURL.path): \(error.localizedDescription)") }
}
let context = container.viewContext

func saveContext() {
    guard context.hasChanges else { return }
    do { try context.save() } catch { fail("save failed: \(error.localizedDescription)") }
}

func people(named name: String? = nil) -> [Person] {
    let request = Person.fetchRequest()
    request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true, selector: .localizedStandardCompare)]
    if let name { request.predicate = NSPredicate(format: "name ==[c] %@", name) }
    do { return try context.fetch(request) } catch { fail("fetch failed: \(error.localizedDescription)") }
}

if isFirstRun, let archived = try? AcquaintanceArchive.load(), !archived.isEmpty {
    // Version 2's first run takes in what version 1 archived.
    for record in archived {
        let person = Person(context: context)
        person.name = record.name
        person.phone = record.phone
        person.email = record.email
        person.notes = record.notes
        person.photo = record.photo
    }
    saveContext()
    print("Created \(storeURL.path) with \(archived.count) people from acqList.plist.")
} else if isFirstRun {
    for (name, phone) in [("Ada Lovelace", "555-0100"), ("Alan Turing", "555-0101"), ("Grace Hopper", "555-0102")] {
        let person = Person(context: context)
        person.name = name
        person.phone = phone
    }
    saveContext()
    print("Created \(storeURL.path) with sample people.")
}

var arguments = Array(CommandLine.arguments.dropFirst())
let command = arguments.isEmpty ? "list" : arguments.removeFirst()
switch command {
case "list":
    break
case "add":
    guard let name = arguments.first else { fail("usage: add NAME [PHONE] [EMAIL] [NOTES]") }
    let person = Person(context: context)
    person.name = name
    person.phone = arguments.count > 1 ? arguments[1] : nil
    person.email = arguments.count > 2 ? arguments[2] : nil
    person.notes = arguments.count > 3 ? arguments[3] : nil
    saveContext()
    print("Added \(name).")
case "update":
    guard arguments.count == 3 else { fail("usage: update NAME FIELD VALUE") }
    guard let person = people(named: arguments[0]).first else { fail("nobody is named \(arguments[0])") }
    guard ["name", "phone", "email", "notes"].contains(arguments[1]) else { fail("unknown field \(arguments[1])") }
    person.setValue(arguments[2], forKey: arguments[1])
    saveContext()
    print("Updated \(arguments[0]).")
case "delete":
    guard let name = arguments.first else { fail("usage: delete NAME") }
    let matches = people(named: name)
    guard !matches.isEmpty else { fail("nobody is named \(name)") }
    for person in matches { context.delete(person) }
    saveContext()
    print("Deleted \(name).")
default:
    fail("unknown command \(command); use list, add, update or delete (--help for more)")
}

print("Acquaintances in \(storeURL.lastPathComponent):")
for person in people() {
    let details = [person.phone, person.email, person.notes].compactMap { $0 }.joined(separator: ", ")
    print("- \(person.name ?? "?")\(details.isEmpty ? "" : " (\(details))")")
}
