import ExampleSupport
import Foundation

// Version 1 of the tutorial's app: the whole list as NSCoding objects, archived with
// NSKeyedArchiver to acqList.plist, read and written all at once.

/// A person as version 1 archives it, and as both versions list it.
final class PersonRecord: NSObject, NSSecureCoding {
    static var supportsSecureCoding: Bool { true }
    var name: String
    var phone: String?
    var email: String?
    var notes: String?
    var photo: Data?

    init(name: String, phone: String? = nil, email: String? = nil, notes: String? = nil) {
        self.name = name
        self.phone = phone
        self.email = email
        self.notes = notes
    }

    func encode(with coder: NSCoder) {
        coder.encode(name, forKey: "name")
        coder.encode(phone, forKey: "phone")
        coder.encode(email, forKey: "email")
        coder.encode(notes, forKey: "notes")
        coder.encode(photo, forKey: "photo")
    }

    init?(coder: NSCoder) {
        guard let name = coder.decodeObject(of: NSString.self, forKey: "name") as String? else { return nil }
        self.name = name
        phone = coder.decodeObject(of: NSString.self, forKey: "phone") as String?
        email = coder.decodeObject(of: NSString.self, forKey: "email") as String?
        notes = coder.decodeObject(of: NSString.self, forKey: "notes") as String?
        photo = coder.decodeObject(of: NSData.self, forKey: "photo") as Data?
    }

    /// The line the list shows.
    var summary: String {
        let details = [phone, email, notes].compactMap { $0 }.joined(separator: ", ")
        return "- \(name)\(details.isEmpty ? "" : " (\(details))")"
    }
}

/// Version 1: the list in an archive, loaded whole when opened and written whole on save.
final class ArchivedBook: AddressBook {
    let url: URL
    private var list: [PersonRecord]?
    private var changed = false

    init(url: URL) { self.url = url }

    var fileName: String { url.lastPathComponent }

    func people() throws -> [PersonRecord] {
        if let list { return list.sortedByName() }
        guard FileManager.default.fileExists(atPath: url.path) else {
            list = []
            return []
        }
        let data = try Data(contentsOf: url)
        // Bytes that do not decode, or decode as something else, are the same problem to the user.
        guard
            let people = try? NSKeyedUnarchiver.unarchivedObject(
                ofClasses: [NSArray.self, PersonRecord.self], from: data) as? [PersonRecord]
        else {
            throw ExampleFailure.damaged(url, isNot: "an address book archive")
        }
        list = people
        return people.sortedByName()
    }

    func add(_ person: PersonRecord) throws {
        list = try people() + [person]
        changed = true
    }

    func update(_ name: String, _ field: Field, to value: String) throws {
        let person = try self.person(named: name)
        switch field {
        case .name: person.name = value
        case .phone: person.phone = value
        case .email: person.email = value
        case .notes: person.notes = value
        }
        changed = true
    }

    func delete(_ name: String) throws {
        let person = try self.person(named: name)
        list = try people().filter { $0 !== person }
        changed = true
    }

    /// All or nothing: the whole list is written again.
    func save() throws {
        guard changed, let list else { return }
        try NSKeyedArchiver.archivedData(withRootObject: list as NSArray, requiringSecureCoding: true).write(
            to: url, options: .atomic)
        changed = false
    }

    private func person(named name: String) throws -> PersonRecord {
        guard let person = try people().first(where: { $0.name.caseInsensitiveCompare(name) == .orderedSame }) else {
            throw nobody(named: name)
        }
        return person
    }
}
