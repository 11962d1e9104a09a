import Foundation
@testable import OpenCoreDataCore
@testable import OpenCoreDataSQLite
import Testing
import OpenCoreDataStoreTestSupport

// The exact SQL a save writes rows with: keys taken from Z_PRIMARYKEY, then one prepared
// INSERT, UPDATE or DELETE per row (the per-storage membership statements are in
// GeneratedSQLTests). A change to a statement is a deliberate change to this file.

@Suite struct SaveSQLTests {
    /// `Note` (title, count), entity 1: rows of one table, without relationships.
    private func noteModel() -> NSManagedObjectModel {
        let note = ModelBuilder.entity("Note", className: "NSManagedObject")
        note.properties = [
            ModelBuilder.attribute("title", .stringAttributeType),
            ModelBuilder.attribute("count", .integer64AttributeType, defaultValue: 0),
        ]
        return ModelBuilder.model(note)
    }

    @Test func insertUpdateAndDeleteOfAPlainEntity() throws {
        let context = try makeContext(noteModel())
        let recorder = SQLRecorder(context)
        try context.performAndWait {
            let first = NSEntityDescription.insertNewObject(forEntityName: "Note", into: context)
            first.setValue("first", forKey: "title")
            let second = NSEntityDescription.insertNewObject(forEntityName: "Note", into: context)
            second.setValue("second", forKey: "title")
            try context.save()
            #expect(
                recorder.take() == [
                    "SELECT MAX(Z_MAX) FROM Z_PRIMARYKEY WHERE Z_ENT IN (1)",
                    "SELECT MAX(Z_PK) FROM ZNOTE",
                    "UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT IN (1) AND Z_MAX < ?",
                    "INSERT INTO ZNOTE (Z_PK, Z_ENT, Z_OPT, ZTITLE, ZCOUNT) VALUES (?, ?, ?, ?, ?)",
                    "INSERT INTO ZNOTE (Z_PK, Z_ENT, Z_OPT, ZTITLE, ZCOUNT) VALUES (?, ?, ?, ?, ?)",
                ])

            first.setValue("renamed", forKey: "title")
            first.setValue(Int64(3), forKey: "count")
            try context.save()
            #expect(
                recorder.take() == [
                    "UPDATE ZNOTE SET Z_OPT = Z_OPT + 1, ZTITLE = ?, ZCOUNT = ? WHERE Z_PK = ? AND Z_OPT = ?"
                ])

            context.delete(second)
            try context.save()
            #expect(
                recorder.take() == [
                    "DELETE FROM ZNOTE WHERE Z_PK = ? AND Z_OPT = ?"
                ])
        }
    }

    /// Keys already taken by another writer are skipped: the counter is read once per
    /// save and inheritance tree, and raised only where it is lower.
    @Test func aSecondSaveReadsTheCounterAgain() throws {
        let context = try makeContext(noteModel())
        let recorder = SQLRecorder(context)
        try context.performAndWait {
            for title in ["a", "b"] {
                NSEntityDescription.insertNewObject(forEntityName: "Note", into: context).setValue(
                    title, forKey: "title")
                try context.save()
            }
        }
        let statements = recorder.take()
        #expect(statements.filter { $0.hasPrefix("SELECT MAX(Z_MAX)") }.count == 2)
        #expect(statements.filter { $0.hasPrefix("UPDATE Z_PRIMARYKEY") }.count == 2)
    }
}
