@testable import CDToolCore
import GRDB
import OpenCoreData
import Testing

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
