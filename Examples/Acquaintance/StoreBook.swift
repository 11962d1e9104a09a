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

/// Version 2: the list in Acquaintance.sqlite, a Core Data store. A new store takes in version
/// 1's archive, or three sample people when there is none.
struct StoreBook: AddressBook {
    /// Keeps the store open while its objects are read.
    let container: NSPersistentContainer
    var context: NSManagedObjectContext { container.viewContext }
    let fileName = "Acquaintance.sqlite"

    /// Person: name required; photo Binary with external storage; phone, email, notes optional.
    static func model() -> NSManagedObjectModel { AcquaintanceModel.make(personClass: Person.self) }

    init(folder: String?, importing archive: ArchivedBook) throws {
        let url = try ExampleData.directory(for: "Acquaintance", in: folder).appendingPathComponent(fileName)
        if folder == nil { try Self.moveEarlierStore(to: url) }
        var created: String?
        // The people taken in and the store's mark that they were are one save: a first
        // launch killed or failing before it leaves the next launch to take them in.
        container = try ExampleData.container("Acquaintance", model: Self.model(), storeURL: url) { context in
            let archived = try archive.people()
            let first =
                archived.isEmpty
                ? [
                    PersonRecord(name: "Ada Lovelace", phone: "555-0100"),
                    PersonRecord(name: "Alan Turing", phone: "555-0101"),
                    PersonRecord(name: "Grace Hopper", phone: "555-0102"),
                ] : archived
            for person in first { Self.insert(person, into: context) }
            created =
                "Created \(url.path) with \(archived.isEmpty ? "sample people" : "\(archived.count) people from \(archive.fileName)")."
        }
        if let created { print(created) }
    }

    func people() throws -> [PersonRecord] {
        try fetch().map { PersonRecord(name: $0.name ?? "?", phone: $0.phone, email: $0.email, notes: $0.notes) }
    }

    func add(_ record: PersonRecord) throws {
        Self.insert(record, into: context)
    }

    private static func insert(_ record: PersonRecord, into context: NSManagedObjectContext) {
        let person = Person(context: context)
        person.name = record.name
        person.phone = record.phone
        person.email = record.email
        person.notes = record.notes
        person.photo = record.photo
    }

    func update(_ name: String, _ field: Field, to value: String) throws {
        guard let person = try fetch(named: name).first else { throw nobody(named: name) }
        person.setValue(value, forKey: field.rawValue)
    }

    func delete(_ name: String) throws {
        let matches = try fetch(named: name)
        guard !matches.isEmpty else { throw nobody(named: name) }
        for person in matches { context.delete(person) }
    }

    func save() throws {
        guard context.hasChanges else { return }
        try context.save()
    }

    /// Earlier versions kept the store directly in the XDG data directory; a store found
    /// there (and none in the app's folder) moves into the folder, files and external data.
    private static func moveEarlierStore(to url: URL) throws {
        let earlier = NSPersistentContainer.defaultDirectoryURL().appendingPathComponent(url.lastPathComponent)
        let manager = FileManager.default
        guard manager.fileExists(atPath: earlier.path), !manager.fileExists(atPath: url.path) else { return }
        let support = { (store: URL) in
            store.deletingLastPathComponent().appendingPathComponent(".Acquaintance_SUPPORT")
        }
        var moves = ["", "-wal", "-shm"].map {
            (URL(fileURLWithPath: earlier.path + $0), URL(fileURLWithPath: url.path + $0))
        }
        moves.append((support(earlier), support(url)))
        for (from, to) in moves where manager.fileExists(atPath: from.path) {
            try manager.moveItem(at: from, to: to)
        }
        print("Moved \(earlier.path) to \(url.path).")
    }

    /// The people named `name` (any case), or everyone, sorted as Finder sorts names.
    private func fetch(named name: String? = nil) throws -> [Person] {
        let request = Person.fetchRequest()
        request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true, selector: .localizedStandardCompare)]
        if let name { request.predicate = NSPredicate(format: "name ==[c] %@", name) }
        return try context.fetch(request)
    }
}
