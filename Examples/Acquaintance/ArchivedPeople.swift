import ExampleSupport
import Foundation

// Version 1 of the tutorial's app: the whole list as NSCoding objects, archived with
// NSKeyedArchiver to acqList.plist in the Documents folder, read and written all at once.

/// A person as version 1 archives it.
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

    /// The line `list` prints.
    var summary: String {
        let details = [phone, email, notes].compactMap { $0 }.joined(separator: ", ")
        return "- \(name)\(details.isEmpty ? "" : " (\(details))")"
    }
}

/// acqList.plist in the Documents folder.
enum AcquaintanceArchive {
    static func url() throws -> URL { try ExampleData.documentsDirectory().appendingPathComponent("acqList.plist") }

    static func load() throws -> [PersonRecord] {
        let url = try url()
        guard FileManager.default.fileExists(atPath: url.path) else { return [] }
        guard let people = try NSKeyedUnarchiver.unarchivedObject(ofClasses: [NSArray.self, PersonRecord.self], from: Data(contentsOf: url)) as? [PersonRecord] else {
            throw ExampleFailure("\(url.path) is not a list of people")
        }
        return people
    }

    static func save(_ people: [PersonRecord]) throws {
        try NSKeyedArchiver.archivedData(withRootObject: people as NSArray, requiringSecureCoding: true).write(to: try url(), options: .atomic)
    }

    /// Version 1's commands (`--archive` before them): the same as version 2's, on the archive.
    static func run(_ arguments: [String]) throws {
        var people = try load()
        let command = arguments.first ?? "list"
        let rest = Array(arguments.dropFirst())
        func index(of name: String) throws -> Int {
            guard let index = people.firstIndex(where: { $0.name.caseInsensitiveCompare(name) == .orderedSame }) else { throw ExampleFailure("nobody is named \(name)") }
            return index
        }
        switch command {
        case "list":
            break
        case "add":
            guard let name = rest.first else { throw ExampleFailure("usage: --archive add NAME [PHONE] [EMAIL] [NOTES]") }
            people.append(PersonRecord(name: name, phone: rest.count > 1 ? rest[1] : nil, email: rest.count > 2 ? rest[2] : nil, notes: rest.count > 3 ? rest[3] : nil))
        case "update":
            guard rest.count == 3 else { throw ExampleFailure("usage: --archive update NAME FIELD VALUE") }
            let person = people[try index(of: rest[0])]
            switch rest[1] {
            case "name": person.name = rest[2]
            case "phone": person.phone = rest[2]
            case "email": person.email = rest[2]
            case "notes": person.notes = rest[2]
            default: throw ExampleFailure("unknown field \(rest[1])")
            }
        case "delete":
            guard let name = rest.first else { throw ExampleFailure("usage: --archive delete NAME") }
            people.remove(at: try index(of: name))
        default:
            throw ExampleFailure("unknown command \(command); use list, add, update or delete (--help for more)")
        }
        // All or nothing: the whole list is written again.
        if command != "list" { try save(people) }
        print("Acquaintances in acqList.plist:")
        for person in people.sorted(by: { $0.name.localizedStandardCompare($1.name) == .orderedAscending }) { print(person.summary) }
    }
}
