import ArgumentParser
import ExampleSupport
import Foundation

/// Acquaintance: the seed tutorial's address book. Version 2 keeps it in a Core Data store;
/// version 1 (`--archive`) in an NSKeyedArchiver archive, which version 2's first run takes in.
@main
struct AcquaintanceCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "Acquaintance",
        abstract: "Keep an address book in a Core Data store (or, with --archive, in version 1's archive).",
        discussion: """
            The store is Acquaintance/Acquaintance.sqlite in the XDG data directory ($XDG_DATA_HOME, else \
            ~/.local/share) unless --data names a folder. A new store takes in version 1's people, else three \
            sample people. Version 1's archive is acqList.plist in the Documents folder ($XDG_DOCUMENTS_DIR, \
            else ~/Documents), or in the --data folder.
            """,
        subcommands: [List.self, Add.self, Update.self, Delete.self],
        defaultSubcommand: List.self
    )

    /// Failures are one sentence each (ExampleSupport), never an error's dump.
    static func main() { mainPresentingFailures() }
}

/// The options every command takes.
struct BookOptions: ParsableArguments {
    @Option(
        name: .long,
        help: "The folder of the store and the archive (default: the XDG data directory's Acquaintance folder).")
    var data: String?

    @Flag(name: .long, help: "Version 1: use the NSKeyedArchiver archive acqList.plist instead of the store.")
    var archive = false

    func open() throws -> any AddressBook {
        let archiveURL =
            try data.map { try ExampleData.directory(for: "Acquaintance", in: $0) } ?? ExampleData.documentsDirectory()
        let archive = ArchivedBook(url: archiveURL.appendingPathComponent("acqList.plist"))
        return self.archive ? archive : try StoreBook(folder: data, importing: archive)
    }

    /// Runs `change` on the book, saves it and prints the list.
    func change(_ message: String, _ change: (any AddressBook) throws -> Void) throws {
        let book = try open()
        try change(book)
        try book.save()
        print(message)
        try book.printList()
    }
}

/// A field `update` can change.
enum Field: String, CaseIterable, ExpressibleByArgument {
    case name, phone, email, notes
}

extension AcquaintanceCommand {
    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List everyone, by name.")
        @OptionGroup var options: BookOptions

        func run() throws { try options.open().printList() }
    }

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add a person.")
        @OptionGroup var options: BookOptions
        @Argument(help: "Their name.") var name: String
        @Argument(help: "Their phone number.") var phone: String?
        @Argument(help: "Their email address.") var email: String?
        @Argument(help: "Notes about them.") var notes: String?

        func run() throws {
            try options.change("Added \(name).") {
                try $0.add(PersonRecord(name: name, phone: phone, email: email, notes: notes))
            }
        }
    }

    struct Update: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Change one field of a person.")
        @OptionGroup var options: BookOptions
        @Argument(help: "Their name (any case).") var name: String
        @Argument(help: "The field: \(Field.allCases.map(\.rawValue).joined(separator: ", ")).") var field: Field
        @Argument(help: "Its new value.") var value: String

        func run() throws {
            try options.change("Updated \(name).") { try $0.update(name, field, to: value) }
        }
    }

    struct Delete: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete a person.")
        @OptionGroup var options: BookOptions
        @Argument(help: "Their name (any case).") var name: String

        func run() throws {
            try options.change("Deleted \(name).") { try $0.delete(name) }
        }
    }
}
