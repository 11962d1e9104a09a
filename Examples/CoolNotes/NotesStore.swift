import ExampleSupport
import Foundation
import OpenCoreData

// Note, Notebook and PhotoFrame are generated from CoolNotes.xcdatamodeld by the codegen
// plugin. The model has two versions: "Model" (the first app) and "Model 2", which adds
// PhotoFrame; the current version is 2.

/// The CoolNotes store, `CoolNotes.sqlite` in the app's data folder, opened with the current
/// model (migrating a version 1 store automatically, as `NSPersistentContainer` asks) or with
/// version 1, as the first app did.
struct NotesStore {
    let container: NSPersistentContainer

    init(folder: String?, modelVersion: Int?) throws {
        let url = try ExampleData.directory(for: "CoolNotes", in: folder).appendingPathComponent("CoolNotes.sqlite")
        var model: NSManagedObjectModel?
        if let modelVersion {
            guard let bundle = Bundle.module.url(forResource: "CoolNotes", withExtension: "xcdatamodeld") else {
                throw ExampleFailure("the model CoolNotes.xcdatamodeld is missing from the app's resources")
            }
            let name = modelVersion == 1 ? "Model.xcdatamodel" : "Model \(modelVersion).xcdatamodel"
            do {
                model = try NSManagedObjectModel.load(contentsOf: bundle.appendingPathComponent(name))
            } catch {
                throw ExampleFailure("there is no model version \(modelVersion) (versions: 1, 2)")
            }
        }
        // An older version of the app has no newer model to migrate from: it only opens
        // stores of its own version.
        container = try ExampleData.container("CoolNotes", model: model, storeURL: url, migrates: modelVersion == nil)
    }

    var context: NSManagedObjectContext { container.viewContext }

    /// The notebook named `name`, or a failure naming it.
    func notebook(named name: String) throws -> Notebook {
        let request: NSFetchRequest<Notebook> = Notebook.fetchRequest()
        request.predicate = NSPredicate(format: "name == %@", name)
        guard let notebook = try context.fetch(request).first else {
            throw ExampleFailure("no notebook is called \(name)")
        }
        return notebook
    }

    /// A notebook's notes, as the app lists them: `notebook = %@`, by creation date then text.
    func notes(in notebook: Notebook) throws -> [Note] {
        let request: NSFetchRequest<Note> = Note.fetchRequest()
        request.predicate = NSPredicate(format: "notebook = %@", notebook)
        request.sortDescriptors = [
            NSSortDescriptor(key: "creationDate", ascending: true), NSSortDescriptor(key: "text", ascending: true),
        ]
        return try context.fetch(request)
    }

    func addNote(_ text: String, to notebook: Notebook, in context: NSManagedObjectContext) {
        let note = Note(context: context)
        note.text = text
        note.creationDate = Date()
        note.notebook = notebook
    }
}

/// The seed's `autoSave(every:)`: saves `context` every `delay` seconds, only when it has
/// changes, until `stop` says so; `saved` is told how many objects each save wrote.
func autoSave(
    _ context: NSManagedObjectContext, every delay: TimeInterval, stop: @escaping @Sendable () -> Bool,
    saved: @escaping @Sendable (Int) -> Void
) {
    DispatchQueue.global().asyncAfter(deadline: .now() + delay) {
        guard !stop() else { return }
        context.perform {
            if context.hasChanges {
                let count = context.insertedObjects.count + context.updatedObjects.count + context.deletedObjects.count
                do {
                    try context.save()
                    saved(count)
                } catch {
                    FileHandle.standardError.write(
                        Data("CoolNotes: autosave failed: \(ExampleFailure.sentence(for: error))\n".utf8))
                }
            }
            autoSave(context, every: delay, stop: stop, saved: saved)
        }
    }
}
