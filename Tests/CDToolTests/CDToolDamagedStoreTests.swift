@testable import CDToolCore
import GRDB
import OpenCoreData
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Damaged or unusual stores: cdtool reports them, never crashes, never drops a record.
@Suite struct CDToolDamagedStoreTests {
    private func alter(_ url: URL, _ sql: String) throws {
        let db = try DatabaseQueue(path: url.path)
        try db.write { try $0.execute(sql: sql) }
        try db.close()
    }

    @Test func inspectSurvivesABlobNameAndALoopingParent() throws {
        let (url, _) = try CDToolFixture.makeStore()
        try alter(url, "UPDATE Z_PRIMARYKEY SET Z_NAME = X'00FF' WHERE Z_NAME = 'Tag'")
        try alter(url, "UPDATE Z_PRIMARYKEY SET Z_SUPER = Z_ENT WHERE Z_NAME = 'Note'")
        // Either a report or a clear error; reaching here without a crash is the point.
        let inspection = try? StoreInspection.inspect(storeAt: url, model: nil)
        if let inspection {
            #expect(!inspection.entities.contains { $0.name == "Tag" })
            #expect(inspection.inferredModel?.entitiesByName["Note"]?.superentity == nil, "the loop is broken")
            _ = inspection.text
        }
    }

    @Test func inspectSaysTheMetadataIsDamagedInsteadOfShowingOnlyTheUUID() throws {
        let (url, model) = try CDToolFixture.makeStore()
        try alter(url, "UPDATE Z_METADATA SET Z_PLIST = X'62706C6973743030FFFF'")
        let inspection = try StoreInspection.inspect(storeAt: url, model: nil)
        #expect(inspection.metadataDamage == "its Z_PLIST property list can't be read (10 bytes)")
        #expect(inspection.entities.map(\.name) == ["Family", "Note", "Person", "Student", "Tag"])
        let text = inspection.text
        #expect(text.contains("metadata\n  metadata damaged: its Z_PLIST property list can't be read (10 bytes)\n"))
        #expect(!text.contains("NSStoreUUID"), "what is left is not passed off as the whole metadata")
        // Damaged version hashes cannot say whether a model fits.
        #expect(try StoreInspection.inspect(storeAt: url, model: model).compatibility == nil)

        try alter(url, "UPDATE Z_METADATA SET Z_PLIST = NULL")
        #expect(
            try StoreInspection.inspect(storeAt: url, model: nil).metadataDamage == "it has no Z_PLIST property list")
    }

    @Test func inspectNamesAFIFOAndADirectory() throws {
        let (url, _) = try CDToolFixture.makeStore()
        let pipe = url.deletingLastPathComponent().appendingPathComponent("pipe")
        #expect(mkfifo(pipe.path, 0o644) == 0)
        // Refused before anything opens it, which would block for good.
        #expect(throws: CDToolError("The store path \(pipe.path) is a FIFO (named pipe), not a store file")) {
            try StoreInspection.inspect(storeAt: pipe, model: nil)
        }
        let folder = url.deletingLastPathComponent()
        #expect(throws: CDToolError("The store path \(folder.path) is a directory, not a store file")) {
            try StoreInspection.inspect(storeAt: folder, model: nil)
        }
    }

    @Test func infiniteNumbersAreWrittenAsJSONStrings() throws {
        #expect(RecordWriter.jsonSafe(Double.infinity) as? String == "Infinity")
        #expect(RecordWriter.jsonSafe(-Double.infinity) as? String == "-Infinity")
        #expect(RecordWriter.jsonSafe(Double.nan) as? String == "NaN")
        #expect(RecordWriter.jsonSafe(2.5) as? Double == 2.5)
        #expect(RecordWriter.jsonSafe("text") as? String == "text")

        let (url, model) = try CDToolFixture.makeStore()
        try alter(url, "UPDATE ZPERSON SET ZSCORE = 9e999")
        var dump = ObjectDump(storeURL: url)
        dump.model = model
        dump.entityName = "Person"
        var output = ""
        try dump.run(output: { output += $0 }, progress: { _ in })
        let objects = try #require(JSONSerialization.jsonObject(with: Data(output.utf8)) as? [[String: Any]])
        #expect(!objects.isEmpty)
        #expect(objects.allSatisfy { $0["objectID"] != nil && $0["score"] as? String == "Infinity" })
    }
}

/// A store whose table pages are damaged while its indexes are whole: the objects' keys
/// read, their rows do not. The dump stops with the store's error; it never writes an
/// object with values it did not read (the model's default name is "Anonymous").
@Suite struct CDToolUnreadableRowTests {
    @Test func aDumpStopsAtRowsItCannotReadInsteadOfPrintingDefaults() throws {
        let (url, model) = try CDToolFixture.makeStore()
        let db = try DatabaseQueue(path: url.path)
        try db.write { db in
            try db.execute(
                sql: """
                    WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000)
                    INSERT INTO ZPERSON (Z_ENT, Z_OPT, ZNAME, ZAGE)
                    SELECT (SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'Person'), 1, 'Person ' || i, i % 100 FROM n
                    """)
        }
        let rootPage = try db.read {
            try Int.fetchOne($0, sql: "SELECT rootpage FROM sqlite_master WHERE name = 'ZPERSON'")!
        }
        try db.writeWithoutTransaction { try $0.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
        try db.close()
        try Self.damageLeaf(of: rootPage, in: url)

        var dump = ObjectDump(storeURL: url)
        dump.model = model
        dump.entityName = "Person"
        var output = ""
        #expect(throws: (any Error).self) { try dump.run(output: { output += $0 }, progress: { _ in }) }
        #expect(
            !output.contains("Anonymous"), "no object is written with the model's default for a row it could not read")
    }

    /// Overwrites the second child page of the table b-tree whose interior root is `rootPage`.
    static func damageLeaf(of rootPage: Int, in url: URL) throws {
        var bytes = [UInt8](try Data(contentsOf: url))
        let pageSize = Int(bytes[16]) << 8 | Int(bytes[17])
        let page = (rootPage - 1) * pageSize + (rootPage == 1 ? 100 : 0)
        try #require(bytes[page] == 0x05, "the table's root is an interior page")
        let secondCell = Int(bytes[page + 14]) << 8 | Int(bytes[page + 15])
        let cell = (rootPage - 1) * pageSize + secondCell
        let child = bytes[cell..<cell + 4].reduce(0) { $0 << 8 | Int($1) }
        let start = (child - 1) * pageSize
        bytes.replaceSubrange(start..<start + pageSize, with: [UInt8](repeating: 0xFF, count: pageSize))
        try Data(bytes).write(to: url)
    }
}
