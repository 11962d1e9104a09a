import Foundation
import OpenCoreData

/// A managed document of `Entry` rows (``entryModel()``), as the document tests and the
/// worker's `document` mode open it.
@MainActor
public final class EntryDocument: UIManagedDocument {
    private static let model = entryModel()

    public override var managedObjectModel: NSManagedObjectModel { Self.model }
}

/// The worker's `document` mode: opens the document at `url`, autosaving every 20 ms, and
/// inserts one entry after another (`batch` 1, 2, 3…) until it is killed, printing
/// "saved N" after each autosave that wrote entries up to N. A test kills it with SIGKILL
/// and checks that the document still opens with entries 1…M, M at least the last N printed.
@MainActor
public func runDocumentWorkload(at url: URL) async -> Int32 {
    let document = EntryDocument(fileURL: url)
    document.autosaveInterval = 0.02
    guard await document.open() else {
        FileHandle.standardError.write(Data("cannot open the document at \(url.path)\n".utf8))
        return 1
    }
    var inserted: Int64 = 0
    var lastReported: Int64 = 0
    while true {
        inserted += 1
        let entry = NSEntityDescription.insertNewObject(forEntityName: "Entry", into: document.managedObjectContext)
        entry.setValue(inserted, forKey: "batch")
        entry.setValue(0, forKey: "row")
        entry.setValue("document", forKey: "writer")
        try? await Task.sleep(nanoseconds: 1_000_000)
        // Autosave runs on the main actor between edits and writes to disk before it
        // returns: with no changes left, every entry so far is on disk.
        if !document.managedObjectContext.hasChanges, inserted > lastReported {
            lastReported = inserted
            FileHandle.standardOutput.write(Data("saved \(inserted)\n".utf8))
        }
    }
}
