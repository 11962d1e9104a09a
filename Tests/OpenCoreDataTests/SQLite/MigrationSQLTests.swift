import Foundation
import GRDB
@testable import OpenCoreDataCore
@testable import OpenCoreDataSQL
@testable import OpenCoreDataSQLite
import Testing
import OpenCoreDataStoreTestSupport

// The exact SQL of a lightweight migration: the rows counted (nothing may be lost
// unasked), the old tables set aside, the new model's
// tables and indexes created, rows copied with one INSERT … SELECT per entity, checks,
// and Z_PRIMARYKEY rebuilt. A change to a statement is a deliberate change to this file.

/// The statements a connection runs while it is traced, without transaction bookkeeping.
private final class StatementTrace: @unchecked Sendable {
    private let lock = NSLock()
    private var recorded: [String] = []

    func add(_ sql: String) { lock.withLock { recorded.append(sql) } }

    /// What was recorded, without GRDB's own reads of the catalog (to answer whether a table exists).
    var statements: [String] {
        let bookkeeping = ["PRAGMA", "BEGIN", "COMMIT", "SELECT type, name, tbl_name, sql FROM"]
        return lock.withLock { recorded.filter { statement in !bookkeeping.contains { statement.hasPrefix($0) } } }
    }
}

@Suite struct MigrationSQLTests {
    /// Folder ⟷ Note one-to-many; version 2 adds `Note.pinned` (required, default NO) and
    /// the entity `Tag` with a many-to-many to notes. Entities are numbered by name:
    /// Folder 1, Note 2, Tag 3.
    private func model(_ version: Int) -> NSManagedObjectModel {
        let folder = ModelBuilder.entity("Folder", className: "NSManagedObject")
        let note = ModelBuilder.entity("Note", className: "NSManagedObject")
        let (notes, noteFolder) = ModelBuilder.pair(
            "notes", from: folder, toMany: true, "folder", to: note, toMany: false)
        folder.properties = [ModelBuilder.attribute("name", .stringAttributeType), notes]
        note.properties = [ModelBuilder.attribute("text", .stringAttributeType), noteFolder]
        guard version == 2 else { return ModelBuilder.model(folder, note) }
        note.properties.append(
            ModelBuilder.attribute("pinned", .booleanAttributeType, optional: false, defaultValue: false))
        let tag = ModelBuilder.entity("Tag", className: "NSManagedObject")
        let (tagNotes, noteTags) = ModelBuilder.pair("notes", from: tag, toMany: true, "tags", to: note, toMany: true)
        tag.properties = [ModelBuilder.attribute("name", .stringAttributeType), tagNotes]
        note.properties.append(noteTags)
        return ModelBuilder.model(folder, note, tag)
    }

    @Test func addingAnAttributeAndAnEntity() throws {
        let url = temporaryStoreURL("Migration")
        let writer = try makeContext(model(1), url: url)
        try writer.performAndWait {
            let folder = NSEntityDescription.insertNewObject(forEntityName: "Folder", into: writer)
            for text in ["a", "b"] {
                let note = NSEntityDescription.insertNewObject(forEntityName: "Note", into: writer)
                note.setValue(text, forKey: "text")
                note.setValue(folder, forKey: "folder")
            }
            try writer.save()
        }
        let coordinator = try #require(writer.persistentStoreCoordinator)
        for store in coordinator.persistentStores { try coordinator.remove(store) }

        let (source, destination) = (model(1), model(2))
        source.freeze()
        try destination.validateForUse()
        let mapping = try NSMappingModel.inferredMappingModel(forSourceModel: source, destinationModel: destination)
        let trace = StatementTrace()
        let database = try DatabaseQueue(path: url.path)
        try database.write { db in
            db.trace { event in
                if case let .statement(statement) = event { trace.add(statement.sql) }
            }
            try SQLiteMigration(
                db: db, source: SQLSchema(entities: source.entities),
                destination: SQLSchema(entities: destination.entities), mapping: mapping
            ).run()
            db.trace(nil)
        }
        try database.close()
        #expect(
            trace.statements == [
                // The data-loss check: rows by entity number, table by table.
                "SELECT Z_ENT, COUNT(*) FROM \"ZFOLDER\" GROUP BY Z_ENT",
                "SELECT Z_ENT, COUNT(*) FROM \"ZNOTE\" GROUP BY Z_ENT",
                "SELECT Z_ENT, Z_MAX FROM Z_PRIMARYKEY",
                "SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL AND tbl_name IN (?, ?)",
                "DROP INDEX \"ZNOTE_ZFOLDER_INDEX\"",
                "ALTER TABLE ZFOLDER RENAME TO OCDMIG_ZFOLDER",
                "ALTER TABLE ZNOTE RENAME TO OCDMIG_ZNOTE",
                "CREATE TABLE ZFOLDER ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR )",
                "CREATE TABLE ZNOTE ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZPINNED INTEGER, ZFOLDER INTEGER, ZTEXT VARCHAR )",
                "CREATE TABLE ZTAG ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR )",
                "CREATE TABLE Z_2TAGS ( Z_2NOTES INTEGER, Z_3TAGS INTEGER, PRIMARY KEY (Z_2NOTES, Z_3TAGS) )",
                "CREATE INDEX ZNOTE_ZFOLDER_INDEX ON ZNOTE (ZFOLDER)",
                "CREATE INDEX Z_2TAGS_Z_3TAGS_INDEX ON Z_2TAGS (Z_3TAGS, Z_2NOTES)",
                "INSERT INTO ZFOLDER (Z_PK, Z_ENT, Z_OPT, ZNAME) SELECT S.Z_PK, 1, S.Z_OPT, S.ZNAME FROM OCDMIG_ZFOLDER AS S WHERE S.Z_ENT = 1",
                "INSERT INTO ZNOTE (Z_PK, Z_ENT, Z_OPT, ZPINNED, ZFOLDER, ZTEXT) SELECT S.Z_PK, 2, S.Z_OPT, ?, (SELECT T.Z_PK FROM OCDMIG_ZFOLDER AS T WHERE T.Z_PK = S.ZFOLDER AND T.Z_PK IN (SELECT Z_PK FROM OCDMIG_ZFOLDER WHERE Z_ENT IN (1))), S.ZTEXT FROM OCDMIG_ZNOTE AS S WHERE S.Z_ENT = 2",
                "SELECT COUNT(*) FROM ZNOTE WHERE Z_ENT IN (2) AND ZPINNED IS NULL",
                "DROP TABLE OCDMIG_ZFOLDER",
                "DROP TABLE OCDMIG_ZNOTE",
                "DELETE FROM Z_PRIMARYKEY WHERE Z_ENT < ?",
                "SELECT MAX(Z_PK) FROM ZFOLDER WHERE Z_ENT = ?",
                "INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (?, ?, ?, ?)",
                "SELECT MAX(Z_PK) FROM ZNOTE WHERE Z_ENT = ?",
                "INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (?, ?, ?, ?)",
                "SELECT MAX(Z_PK) FROM ZTAG WHERE Z_ENT = ?",
                "INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (?, ?, ?, ?)",
                "DELETE FROM Z_MODELCACHE",
            ])
    }
}
