import ArgumentParser
import ExampleSupport
import OpenCoreData

/// Family: the people of a family tree and their families, kept by Core Data (the seed's
/// series 002). Every command saves what it changed; everything survives a restart.
@main
struct FamilyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "Family",
        abstract: "Keep a list of people and their families in a Core Data store.",
        discussion:
            "The store is Family/Family.sqlite in the XDG data directory ($XDG_DATA_HOME, else ~/.local/share) unless --data names a folder. A new store holds Ted.",
        subcommands: [List.self, Add.self, Rename.self, Join.self, Delete.self, Search.self, Families.self],
        defaultSubcommand: List.self
    )

    /// Failures are one sentence each (ExampleSupport), never an error's dump.
    static func main() { mainPresentingFailures() }
}

/// The option every command takes.
struct StoreOptions: ParsableArguments {
    @Option(name: .long, help: "The folder of the store (default: the XDG data directory's Family folder).")
    var data: String?

    func open() throws -> FamilyStore { try FamilyStore(folder: data) }
}

func show(_ people: [Person]) {
    for person in people {
        let details = [
            person.gender, person.age > 0 ? "\(person.age)" : nil, person.family?.name.map { "family \($0)" },
        ].compactMap { $0 }
        print("- \(person.name ?? "?")\(details.isEmpty ? "" : " (\(details.joined(separator: ", ")))")")
    }
}

extension FamilyCommand {
    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List everyone, by name.")
        @OptionGroup var store: StoreOptions

        func run() throws {
            let store = try store.open()
            show(try store.people())
        }
    }

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add a person.")
        @OptionGroup var store: StoreOptions
        @Argument(help: "The person's name.") var name: String
        @Option(help: "Their gender.") var gender: String?
        @Option(help: "Their age in years.") var age: Int64?
        @Option(help: "Their family's name (made when new).") var family: String?

        func validate() throws {
            if let age, age < 0 { throw ValidationError("an age is 0 or more, not \(age)") }
        }

        func run() throws {
            let store = try store.open()
            let person = Person(context: store.context)
            person.name = name
            person.gender = gender
            person.age = age ?? 0
            if let family { person.family = try store.family(named: family) }
            try store.save()
            print("Added \(name).")
        }
    }

    struct Rename: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Rename a person.")
        @OptionGroup var store: StoreOptions
        @Argument(help: "Their name now.") var name: String
        @Argument(help: "Their new name.") var newName: String

        func run() throws {
            let store = try store.open()
            try store.person(named: name).name = newName
            try store.save()
            print("Renamed \(name) to \(newName).")
        }
    }

    struct Join: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Move a person into a family (made when new).")
        @OptionGroup var store: StoreOptions
        @Argument(help: "Their name.") var name: String
        @Argument(help: "The family's name.") var family: String

        func run() throws {
            let store = try store.open()
            let person = try store.person(named: name)
            // From the family's side: the generated accessor also sets `person.family` and
            // takes them out of their old family's `people`.
            try store.family(named: family).addToPeople(person)
            try store.save()
            print("\(name) joined family \(family).")
        }
    }

    struct Delete: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete a person.")
        @OptionGroup var store: StoreOptions
        @Argument(help: "Their name.") var name: String

        func run() throws {
            let store = try store.open()
            store.context.delete(try store.person(named: name))
            try store.save()
            print("Deleted \(name).")
        }
    }

    struct Search: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the people whose name contains some text.")
        @OptionGroup var store: StoreOptions
        @Argument(help: "The text (case-sensitive, as `name CONTAINS %@`).") var text: String

        func run() throws {
            let store = try store.open()
            show(try store.people(containing: text))
        }
    }

    struct Families: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the families and their people.")
        @OptionGroup var store: StoreOptions

        func run() throws {
            let store = try store.open()
            for family in try store.families() {
                // `people` is the inverse of each person's `family`: no fetch needed.
                let names = (family.people as? Set<Person> ?? []).compactMap(\.name).sorted()
                print("\(family.name ?? "?"): \(names.joined(separator: ", "))")
            }
        }
    }
}
