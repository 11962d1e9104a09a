import ArgumentParser
import ExampleSupport
import Foundation
import OpenCoreData

/// CoolNotes (Udacity, seed 000 part B): notebooks and their notes, listed through results
/// controllers, an editing session that autosaves only when there are changes, and model
/// version 2 (PhotoFrame) migrating version 1's store with its notes intact.
@main
struct CoolNotesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "CoolNotes",
        abstract: "Keep notes in notebooks, in a Core Data store whose model has two versions.",
        discussion:
            "The store is CoolNotes/CoolNotes.sqlite in the XDG data directory unless --data names a folder. --model-version 1 opens it as the first version of the app did; without it the current model (2) is used and a version 1 store migrates automatically.",
        subcommands: [Notebooks.self, AddNotebook.self, Add.self, Notes.self, Frame.self, Edit.self],
        defaultSubcommand: Notebooks.self
    )

    /// Failures are one sentence each (ExampleSupport), never an error's dump.
    static func main() { mainPresentingFailures() }
}

struct StoreOptions: ParsableArguments {
    @Option(name: .long, help: "The folder of the store (default: the XDG data directory's CoolNotes folder).")
    var data: String?
    @Option(name: .long, help: "Open the store with this version of the model (1 or 2; default: the current one, 2).")
    var modelVersion: Int?

    func validate() throws {
        if let modelVersion, ![1, 2].contains(modelVersion) {
            throw ValidationError("there is no model version \(modelVersion) (versions: 1, 2)")
        }
    }

    func open() throws -> NotesStore { try NotesStore(folder: data, modelVersion: modelVersion) }
}

func plural(_ count: Int, _ word: String) -> String { "\(count) \(word)\(count == 1 ? "" : "s")" }

/// A Sendable flag the autosave loop reads from its own queue.
final class StopFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var stopped = false
    var isSet: Bool { lock.lock(); defer { lock.unlock() }; return stopped }
    func set() { lock.lock(); stopped = true; lock.unlock() }
}

extension CoolNotesCommand {
    struct Notebooks: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the notebooks by name, then creation date.")
        @OptionGroup var options: StoreOptions

        func run() throws {
            let store = try options.open()
            let request: NSFetchRequest<Notebook> = Notebook.fetchRequest()
            request.sortDescriptors = [
                NSSortDescriptor(key: "name", ascending: true), NSSortDescriptor(key: "creationDate", ascending: true),
            ]
            let controller = NSFetchedResultsController(
                fetchRequest: request, managedObjectContext: store.context, sectionNameKeyPath: nil, cacheName: nil)
            try controller.performFetch()
            for notebook in controller.fetchedObjects ?? [] {
                print("- \(notebook.name ?? "?") (\(plural(notebook.notes?.count ?? 0, "note")))")
            }
        }
    }

    struct AddNotebook: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "add-notebook", abstract: "Add a notebook.")
        @OptionGroup var options: StoreOptions
        @Argument(help: "Its name.") var name: String

        func run() throws {
            let store = try options.open()
            let notebook = Notebook(context: store.context)
            notebook.name = name
            notebook.creationDate = Date()
            try store.context.save()
            print("Added notebook \(name).")
        }
    }

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add a note to a notebook.")
        @OptionGroup var options: StoreOptions
        @Argument(help: "The notebook.") var notebook: String
        @Argument(help: "The note's text.") var text: String

        func run() throws {
            let store = try options.open()
            store.addNote(text, to: try store.notebook(named: notebook), in: store.context)
            try store.context.save()
            print("Added a note to \(notebook).")
        }
    }

    struct Notes: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List a notebook's notes, oldest first.")
        @OptionGroup var options: StoreOptions
        @Argument(help: "The notebook.") var notebook: String

        func run() throws {
            let store = try options.open()
            let hasFrames = store.container.managedObjectModel.entitiesByName["PhotoFrame"] != nil
            for (index, note) in try store.notes(in: store.notebook(named: notebook)).enumerated() {
                let photo = hasFrames ? note.photoFrame?.imageData.map { " [photo, \($0.count) bytes]" } ?? "" : ""
                print("\(index + 1). \(note.text ?? "")\(photo)")
            }
        }
    }

    struct Frame: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Put a picture in a note's photo frame (model version 2).")
        @OptionGroup var options: StoreOptions
        @Argument(help: "The notebook.") var notebook: String
        @Argument(help: "The note's number, as `notes` shows it.") var number: Int
        @Argument(help: "The picture's file.") var file: String

        func run() throws {
            let store = try options.open()
            guard store.container.managedObjectModel.entitiesByName["PhotoFrame"] != nil else {
                throw ExampleFailure("photo frames arrived with model version 2")
            }
            let notes = try store.notes(in: store.notebook(named: notebook))
            guard notes.indices.contains(number - 1) else { throw ExampleFailure("\(notebook) has no note \(number)") }
            let data: Data
            do { data = try Data(contentsOf: URL(fileURLWithPath: file)) } catch {
                throw ExampleFailure("cannot read \(file): \(error.localizedDescription)")
            }
            let frame = PhotoFrame(context: store.context)
            frame.imageData = data
            notes[number - 1].photoFrame = frame
            try store.context.save()
            print("Framed \(plural(data.count, "byte")) in note \(number).")
        }
    }

    struct Edit: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write notes into a notebook, one per line, autosaving every few seconds when there are changes.",
            discussion:
                "Each line read is a note; `wait SECONDS` pauses; `quit` or the end of the input ends the session and saves what is left."
        )
        @OptionGroup var options: StoreOptions
        @Argument(help: "The notebook.") var notebook: String
        @Option(help: "Seconds between autosaves.") var autosave: Double = 5

        func validate() throws {
            guard autosave > 0 else { throw ValidationError("--autosave needs a number of seconds above 0") }
        }

        func run() throws {
            let store = try options.open()
            let notebookID = try store.notebook(named: notebook).objectID
            // The session edits in its own queue's context, so autosave runs while a line is awaited.
            let context = store.container.newBackgroundContext()
            let stop = StopFlag()
            autoSave(context, every: autosave, stop: { stop.isSet }) { count in
                print("autosaved \(plural(count, "change"))")
            }
            print("Writing in \(notebook); one note per line, `quit` to end.")
            // The prompt must show before the first line is read, also when the output is a pipe.
            fflush(nil)
            while let line = readLine(), line != "quit" {
                if line.hasPrefix("wait "), let seconds = Double(line.dropFirst(5)) {
                    Thread.sleep(forTimeInterval: seconds)
                    continue
                }
                context.performAndWait {
                    store.addNote(line, to: context.object(with: notebookID) as! Notebook, in: context)
                }
            }
            stop.set()
            try context.performAndWait {
                guard context.hasChanges else { return }
                try context.save()
                print("saved on quit")
            }
        }
    }
}
