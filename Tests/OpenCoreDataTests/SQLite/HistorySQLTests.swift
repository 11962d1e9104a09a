import Foundation
@testable import OpenCoreDataCore
@testable import OpenCoreDataSQLite
import Testing

// The exact SQL persistent history records a save with: a transaction row, its strings
// (stored once), and one change row per object, keys reserved in Z_PRIMARYKEY under
// numbers 16001 to 16003. A change to a statement is a deliberate change to this file.

@Suite struct HistorySQLTests {
    /// A context on a new store tracking history (`PersistentHistoryTests.model()`:
    /// Item 2, whose name a deletion keeps; Box 1, whose label and weight it keeps, so
    /// `ACHANGE` has two tombstone columns; Tag 3).
    private func trackingContext() throws -> NSManagedObjectContext {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: PersistentHistoryTests.model())
        try coordinator.addPersistentStore(
            ofType: NSSQLiteStoreType, configurationName: nil, at: temporaryStoreURL("History"),
            options: PersistentHistoryTests.tracking)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        context.name = "editor"
        return context
    }

    @Test func aSaveRecordsItsTransactionAndChanges() throws {
        let context = try trackingContext()
        let recorder = SQLRecorder(context)
        try context.performAndWait {
            let item = NSEntityDescription.insertNewObject(forEntityName: "Item", into: context)
            item.setValue("kept", forKey: "name")
            try context.save()
            // The row first, then the transaction's strings (each new: a key, then the
            // string), the transaction and its one change, keys reserved before each.
            #expect(
                recorder.take() == [
                    "SELECT MAX(Z_MAX) FROM Z_PRIMARYKEY WHERE Z_ENT IN (2)",
                    "SELECT MAX(Z_PK) FROM ZITEM",
                    "UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT IN (2) AND Z_MAX < ?",
                    "INSERT INTO ZITEM (Z_PK, Z_ENT, Z_OPT, ZNAME, ZCOUNT, ZBOX) VALUES (?, ?, ?, ?, ?, ?)",
                    "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?",
                    "UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ?",
                    "SELECT Z_PK FROM ATRANSACTIONSTRING WHERE ZNAME = ?",
                    "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?",
                    "UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ?",
                    "INSERT INTO ATRANSACTIONSTRING (Z_PK, Z_ENT, ZNAME) VALUES (?, ?, ?)",
                    "SELECT Z_PK FROM ATRANSACTIONSTRING WHERE ZNAME = ?",
                    "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?",
                    "UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ?",
                    "INSERT INTO ATRANSACTIONSTRING (Z_PK, Z_ENT, ZNAME) VALUES (?, ?, ?)",
                    "SELECT Z_PK FROM ATRANSACTIONSTRING WHERE ZNAME = ?",
                    "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?",
                    "UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ?",
                    "INSERT INTO ATRANSACTIONSTRING (Z_PK, Z_ENT, ZNAME) VALUES (?, ?, ?)",
                    "INSERT INTO ATRANSACTION (Z_PK, Z_ENT, ZAUTHORTS, ZBUNDLEIDTS, ZCONTEXTNAMETS, ZPROCESSIDTS, ZTIMESTAMP) VALUES (?, ?, ?, ?, ?, ?, ?)",
                    "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?",
                    "UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ?",
                    "INSERT INTO ACHANGE (Z_PK, Z_ENT, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID, ZCOLUMNS, ZTOMBSTONE0, ZTOMBSTONE1) VALUES (?, 16001, ?, ?, ?, ?, ?, ?, ?)",
                ])

            // The strings are stored already; a deletion reads the values it keeps first
            // (after the delete rule read the item's tags).
            context.delete(item)
            try context.save()
            #expect(
                recorder.take() == [
                    "SELECT t.Z_PK, t.Z_ENT FROM Z_2TAGS j JOIN ZTAG t ON t.Z_PK = j.Z_3TAGS WHERE j.Z_2ITEMS = ?",
                    "SELECT ZNAME FROM ZITEM WHERE Z_PK = ?",
                    "DELETE FROM ZITEM WHERE Z_PK = ? AND Z_OPT = ?",
                    "DELETE FROM Z_2TAGS WHERE Z_2ITEMS = ?",
                    "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?",
                    "UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ?",
                    "SELECT Z_PK FROM ATRANSACTIONSTRING WHERE ZNAME = ?",
                    "SELECT Z_PK FROM ATRANSACTIONSTRING WHERE ZNAME = ?",
                    "SELECT Z_PK FROM ATRANSACTIONSTRING WHERE ZNAME = ?",
                    "INSERT INTO ATRANSACTION (Z_PK, Z_ENT, ZAUTHORTS, ZBUNDLEIDTS, ZCONTEXTNAMETS, ZPROCESSIDTS, ZTIMESTAMP) VALUES (?, ?, ?, ?, ?, ?, ?)",
                    "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?",
                    "UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ?",
                    "INSERT INTO ACHANGE (Z_PK, Z_ENT, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID, ZCOLUMNS, ZTOMBSTONE0, ZTOMBSTONE1) VALUES (?, 16001, ?, ?, ?, ?, ?, ?, ?)",
                ])
        }
    }

    @Test func readingAndDeletingHistory() throws {
        let context = try trackingContext()
        try context.performAndWait {
            NSEntityDescription.insertNewObject(forEntityName: "Item", into: context).setValue("a", forKey: "name")
            try context.save()
        }
        let recorder = SQLRecorder(context)
        try context.performAndWait {
            _ = try context.execute(NSPersistentHistoryChangeRequest.fetchHistory(after: Date.distantPast))
            // GRDB reads the catalog to answer whether the history tables exist.
            #expect(
                recorder.take().filter { !$0.hasPrefix("SELECT type, name, tbl_name, sql FROM") } == [
                    "SELECT t.Z_PK, t.ZTIMESTAMP, COALESCE(t.ZAUTHOR, (SELECT ZNAME FROM ATRANSACTIONSTRING WHERE Z_PK = t.ZAUTHORTS)), COALESCE(t.ZBUNDLEID, (SELECT ZNAME FROM ATRANSACTIONSTRING WHERE Z_PK = t.ZBUNDLEIDTS)), COALESCE(t.ZCONTEXTNAME, (SELECT ZNAME FROM ATRANSACTIONSTRING WHERE Z_PK = t.ZCONTEXTNAMETS)), COALESCE(t.ZPROCESSID, (SELECT ZNAME FROM ATRANSACTIONSTRING WHERE Z_PK = t.ZPROCESSIDTS))\nFROM ATRANSACTION t WHERE t.ZTIMESTAMP > ? ORDER BY t.Z_PK",
                    "SELECT c.* FROM ACHANGE c JOIN ATRANSACTION t ON t.Z_PK = c.ZTRANSACTIONID WHERE t.ZTIMESTAMP > ? ORDER BY c.Z_PK",
                ])
            _ = try context.execute(NSPersistentHistoryChangeRequest.deleteHistory(before: Date.distantFuture))
            let deletes = recorder.take().filter { $0.hasPrefix("DELETE") }
            #expect(
                deletes == [
                    "DELETE FROM ACHANGE WHERE ZTRANSACTIONID IN (SELECT t.Z_PK FROM ATRANSACTION t WHERE t.ZTIMESTAMP < ?)",
                    "DELETE FROM ATRANSACTION WHERE Z_PK IN (SELECT t.Z_PK FROM ATRANSACTION t WHERE t.ZTIMESTAMP < ?)",
                    "DELETE FROM ATRANSACTIONSTRING WHERE Z_PK NOT IN (\n  SELECT ZAUTHORTS FROM ATRANSACTION WHERE ZAUTHORTS IS NOT NULL UNION SELECT ZBUNDLEIDTS FROM ATRANSACTION WHERE ZBUNDLEIDTS IS NOT NULL\n  UNION SELECT ZCONTEXTNAMETS FROM ATRANSACTION WHERE ZCONTEXTNAMETS IS NOT NULL UNION SELECT ZPROCESSIDTS FROM ATRANSACTION WHERE ZPROCESSIDTS IS NOT NULL)",
                ])
        }
    }
}
