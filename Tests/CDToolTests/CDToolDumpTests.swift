@testable import CDToolCore
import OpenCoreData
import Testing

/// `cdtool dump`: JSON and CSV output, with the store's model or an inferred one, and
/// one-line errors for bad input.
@Suite struct CDToolDumpTests {
    /// Runs a dump and returns its output and progress lines.
    func run(_ dump: ObjectDump) throws -> (output: String, progress: [String]) {
        var output = ""
        var progress: [String] = []
        try dump.run(output: { output += $0 }, progress: { progress.append($0) })
        return (output, progress)
    }

    func objects(_ json: String) throws -> [[String: Any]] {
        try #require(JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]])
    }

    @Test func jsonWithTheModelHasEveryObjectAndRelationshipURIs() throws {
        let (url, model) = try CDToolFixture.makeStore()
        var dump = ObjectDump(storeURL: url)
        dump.model = model
        let (output, progress) = try run(dump)
        let objects = try objects(output)
        #expect(objects.count == 11)
        #expect(progress == ["dumped 11 objects"])
        let uuid = try #require(
            NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url)[NSStoreUUIDKey]
                as? String)
        let ann = try #require(objects.first { ($0["name"] as? String)?.hasPrefix("Ann") == true })
        #expect(ann["entity"] as? String == "Person")
        #expect(ann["objectID"] as? String == "x-coredata://\(uuid)/Person/p1")
        #expect(ann["name"] as? String == "Ann, \"the first\"")
        #expect(ann["age"] as? Int == 41)
        #expect(ann["active"] as? Bool == true)
        #expect(ann["score"] as? Double == 2.5)
        #expect(ann["birthday"] as? String == "2001-01-01T00:00:00.000Z")
        #expect(ann["photo"] as? String == Data([1, 2, 3]).base64EncodedString())
        #expect(ann["identifier"] as? String == "6BA7B810-9DAD-11D1-80B4-00C04FD430C8")
        #expect(ann["homepage"] as? String == "https://example.com/ann")
        #expect(ann["balance"] as? String == "10.25")
        #expect(ann["family"] as? String == "x-coredata://\(uuid)/Family/p1")
        // Ordered to-manys keep their order; unordered ones are sorted by key.
        #expect(ann["tags"] as? [String] == ["x-coredata://\(uuid)/Tag/p2", "x-coredata://\(uuid)/Tag/p1"])
        #expect(ann["friends"] as? [String] == ["x-coredata://\(uuid)/Person/p2", "x-coredata://\(uuid)/Student/p4"])
        let cy = try #require(objects.first { $0["name"] as? String == "Cy" })
        #expect(cy["family"] is NSNull)
        #expect(cy["tags"] as? [String] == [])
        let student = try #require(objects.first { $0["entity"] as? String == "Student" })
        #expect(student["school"] as? String == "MIT")
        let family = try #require(
            objects.first { $0["entity"] as? String == "Family" && $0["name"] as? String == "Smith" })
        #expect(family["members"] as? [String] == ["x-coredata://\(uuid)/Person/p1", "x-coredata://\(uuid)/Person/p2"])
        #expect(output.hasPrefix("[\n{") && output.hasSuffix("}\n]\n"))
    }

    @Test func predicateAndEntityFilterThroughTheStore() throws {
        let (url, model) = try CDToolFixture.makeStore()
        var dump = ObjectDump(storeURL: url)
        dump.model = model
        dump.entityName = "Person"
        dump.predicate = "age >= 19 AND name != 'Cy'"
        let objects = try objects(run(dump).output)
        // Subentities come along with their entity.
        #expect(objects.compactMap { $0["name"] as? String }.sorted() == ["Ann, \"the first\"", "Dee"])
        #expect(objects.first { $0["name"] as? String == "Dee" }?["school"] as? String == "MIT")
        #expect(objects.first { $0["name"] as? String == "Dee" }?["entity"] as? String == "Student")
    }

    @Test func withoutAModelTheInferredOneReadsTheStore() throws {
        let (url, _) = try CDToolFixture.makeStore()
        var dump = ObjectDump(storeURL: url)
        dump.entityName = "Note"
        dump.predicate = "text == 'hello'"
        let objects = try objects(run(dump).output)
        let uuid = try #require(
            NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url)[NSStoreUUIDKey]
                as? String)
        #expect(objects.count == 1)
        #expect(objects.first?["owner"] as? String == "x-coredata://\(uuid)/Person/p1")
        #expect(objects.first?["links"] as? [String] == ["x-coredata://\(uuid)/Tag/p1", "x-coredata://\(uuid)/Tag/p2"])

        var all = ObjectDump(storeURL: url)
        all.entityName = "Person"
        let people = try self.objects(run(all).output)
        #expect(people.count == 4)
        // Inferred attributes read the stored values under lower-cased names.
        #expect(people.first { $0["name"] as? String == "Dee" }?["age"] as? Int == 19)
        #expect(people.first { $0["name"] as? String == "Dee" }?["school"] as? String == "MIT")
    }

    @Test func csvQuotesCommasQuotesAndLineBreaks() throws {
        let (url, model) = try CDToolFixture.makeStore()
        var dump = ObjectDump(storeURL: url)
        dump.model = model
        dump.entityName = "Person"
        dump.predicate = "family != nil"
        dump.format = .csv
        let output = try run(dump).output
        let uuid = try #require(
            NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url)[NSStoreUUIDKey]
                as? String)
        let lines = output.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(
            lines[0]
                == "objectID,entity,active,age,balance,birthday,family,friends,homepage,identifier,name,photo,school,score,tags"
        )
        #expect(output.contains(",\"Ann, \"\"the first\"\"\","))
        #expect(output.contains(",\"Bob\nSmith\","))
        #expect(
            output.contains(
                "x-coredata://\(uuid)/Person/p1,Person,true,41,10.25,2001-01-01T00:00:00.000Z,x-coredata://\(uuid)/Family/p1,x-coredata://\(uuid)/Person/p2 x-coredata://\(uuid)/Student/p4,"
            ))
        #expect(CSVField.quoted("plain") == "plain")
        #expect(CSVField.quoted(" padded") == "\" padded\"")
        #expect(CSVField.record(["a,b", "c\"d", "", "e\r\nf"]) == "\"a,b\",\"c\"\"d\",,\"e\r\nf\"")
    }

    @Test func progressIsReportedEveryInterval() throws {
        let (url, model) = try CDToolFixture.makeStore()
        var dump = ObjectDump(storeURL: url)
        dump.model = model
        dump.progressInterval = 4
        let progress = try run(dump).progress
        #expect(progress == ["dumped 4 objects", "dumped 8 objects", "dumped 11 objects"])
    }

    @Test func badInputFailsWithOneClearLine() throws {
        let (url, model) = try CDToolFixture.makeStore()
        func failure(_ configure: (inout ObjectDump) -> Void) -> String? {
            var dump = ObjectDump(storeURL: url)
            dump.model = model
            configure(&dump)
            var output = ""
            let error = #expect(throws: CDToolError.self) { try dump.run(output: { output += $0 }) }
            #expect(output.isEmpty)
            #expect(error?.description.contains("\n") == false)
            return error?.description
        }
        #expect(
            failure { $0.entityName = "Nobody" }
                == "unknown entity 'Nobody' (the store's entities: Family, Note, Person, Student, Tag)")
        #expect(
            failure {
                $0.entityName = "Person"; $0.predicate = "name =="
            }?.hasPrefix("bad predicate: ") == true)
        #expect(
            failure { $0.predicate = "age > 3" }
                == "--predicate needs --entity: a predicate's keys belong to one entity")
        #expect(failure { $0.format = .csv } == "--format csv needs --entity: each entity has its own columns")
        #expect(
            failure {
                $0.entityName = "Person"; $0.predicate = "nosuchkey == 1"
            }?.contains("nosuchkey") == true)
        #expect(
            failure { $0.storeURL = url.deletingLastPathComponent().appendingPathComponent("nope.sqlite") }?.hasPrefix(
                "No store file at ") == true)
        let other = CDToolFixture.model()
        other.entitiesByName["Tag"]!.properties.append(CDToolFixture.attribute("color", .stringAttributeType))
        #expect(failure { $0.model = other }?.contains("Tag") == true)
        // Nothing was created where the missing store was asked for.
        #expect(
            !FileManager.default.fileExists(
                atPath: url.deletingLastPathComponent().appendingPathComponent("nope.sqlite").path))
    }

    /// `count` entities in families of ten (each a root with nine subentities), each with
    /// an attribute and a to-one whose inverse is a to-many on the next entity.
    static func hugeModel(entities count: Int) -> NSManagedObjectModel {
        let entities = (0..<count).map {
            CDToolFixture.entity("E\($0)", [CDToolFixture.attribute("a\($0)", .stringAttributeType)])
        }
        // Linked before the families form: `properties` then holds own properties only.
        for (index, entity) in entities.enumerated() {
            CDToolFixture.link(
                entity, "to\(index)", toMany: false, entities[(index + 1) % count], "from\(index)", toMany: true)
        }
        for root in stride(from: 0, to: count, by: 10) {
            entities[root].subentities = Array(entities[(root + 1)..<min(count, root + 10)])
        }
        let model = NSManagedObjectModel()
        model.entities = entities
        return model
    }

    @Test(.timeLimit(.minutes(1))) func aHugeModelThatDoesNotFitIsRefusedInTime() throws {
        // Mapping a model to tables searched every column's property among all the model's
        // properties: 10,000 entities took 131 s to be refused.
        let (url, _) = try CDToolFixture.makeStore()
        var dump = ObjectDump(storeURL: url)
        dump.model = Self.hugeModel(entities: 10_000)
        let start = Date()
        let error = #expect(throws: CDToolError.self) { try dump.run(output: { _ in }) }
        #expect(
            error?.description.hasPrefix(
                "the model does not fit the store (entities whose version hashes differ or are missing: E0, E1, E10, ")
                == true)
        #expect(Date().timeIntervalSince(start) < 20)
    }
}
