import Foundation
import GRDB
import OpenCoreData
import Testing
import OpenCoreDataStoreTestSupport

/// Rows whose key columns hold what SQLite accepts but Core Data never writes (text in
/// `Z_ENT`): every reader skips them, as Core Data ignores rows of an unknown entity, and
/// none traps (the store fuzzer found a relationship read that did). A batch delete of the
/// whole table still deletes them, as asked, and reports the objects it can name.
@Suite struct DamagedRowTests {
    /// A notebook with notes "a", "b", "c", the row of "b" given `damage` as its entity number.
    private func damagedStore(_ damage: String = "'damaged'") throws -> (NSManagedObjectContext, URL) {
        let url = temporaryStoreURL()
        let context = try makeContext(ModelBuilder.notesModel(), url: url)
        try context.performAndWait {
            let notebook = Notebook(context: context)
            notebook.name = "Work"
            for text in ["a", "b", "c"] {
                let note = Note(context: context)
                note.text = text
                note.notebook = notebook
            }
            try context.save()
            context.reset()
        }
        try DatabaseQueue(path: url.path).write { db in
            try db.execute(sql: "UPDATE ZNOTE SET Z_ENT = \(damage) WHERE ZTEXT = 'b'")
        }
        return (context, url)
    }

    /// Text, and a real that is not a whole number (read as an integer it would name entity 1,
    /// `Note`, so a rounding reader would make up an entity the store never recorded).
    @Test(arguments: ["'damaged'", "1.5"])
    func aToManyRelationshipSkipsTheDamagedRow(damage: String) throws {
        let (context, _) = try damagedStore(damage)
        let texts = try context.performAndWait {
            let notebook = try #require(try context.fetch(NSFetchRequest<Notebook>(entityName: "Notebook")).first)
            return (notebook.notes?.allObjects as? [Note] ?? []).compactMap(\.text).sorted()
        }
        #expect(texts == ["a", "c"])
    }

    /// Text that starts with a digit, and a real: SQLite's integer conversion reads both as
    /// entity 1 (`Note`), so a fetch that converted would hand out an object of a row whose
    /// entity the store never recorded.
    @Test(arguments: ["'1abc'", "1.5"])
    func aFetchSkipsTheDamagedRow(damage: String) throws {
        let (context, _) = try damagedStore(damage)
        let texts = try context.performAndWait {
            try context.fetch(NSFetchRequest<Note>(entityName: "Note")).compactMap(\.text).sorted()
        }
        #expect(texts == ["a", "c"])
    }

    @Test func aForeignKeyThatIsNotAnIntegerNamesNoObject() throws {
        let (context, url) = try damagedStore("1")
        try DatabaseQueue(path: url.path).write { db in
            try db.execute(sql: "UPDATE ZNOTE SET ZNOTEBOOK = '1abc' WHERE ZTEXT = 'b'")
        }
        let notebooks = try context.performAndWait {
            let request = NSFetchRequest<Note>(entityName: "Note")
            request.sortDescriptors = [NSSortDescriptor(key: "text", ascending: true)]
            return try context.fetch(request).map { $0.notebook?.name }
        }
        #expect(notebooks == ["Work", nil, "Work"], "not the notebook of key 1 that '1abc' converts to")
    }

    @Test func batchRequestsSkipTheDamagedRow() throws {
        let (context, url) = try damagedStore()
        let updated = try context.performAndWait {
            let update = NSBatchUpdateRequest(entityName: "Note")
            update.propertiesToUpdate = ["pages": 7]
            update.resultType = .updatedObjectIDsResultType
            return try (context.execute(update) as? NSBatchUpdateResult)?.result as? [NSManagedObjectID]
        }
        #expect(updated?.count == 2)
        let deleted = try context.performAndWait {
            let delete = NSBatchDeleteRequest(fetchRequest: NSFetchRequest<NSFetchRequestResult>(entityName: "Note"))
            delete.resultType = .resultTypeObjectIDs
            return try (context.execute(delete) as? NSBatchDeleteResult)?.result as? [NSManagedObjectID]
        }
        #expect(deleted?.count == 2)
        let left = try DatabaseQueue(path: url.path).read { db in
            try String.fetchAll(db, sql: "SELECT ZTEXT FROM ZNOTE")
        }
        #expect(left.isEmpty, "the delete matched the whole table; it reports only the rows it can name")
    }
}
