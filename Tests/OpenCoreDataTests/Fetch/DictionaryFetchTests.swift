@testable import OpenCoreDataCore
import Testing
import OpenCoreDataStoreTestSupport

/// Households and their residents; `Staff` is a subentity of `Resident`, and a
/// household's `head` may be staff, so its ID needs the row's entity number.
enum HouseholdFixture {
    static let born = Date(timeIntervalSinceReferenceDate: 100_000)
    static let ids = (ann: UUID(), bob: UUID())

    static func model() -> NSManagedObjectModel {
        let household = ModelBuilder.entity("Household", className: "NSManagedObject")
        let resident = ModelBuilder.entity("Resident", className: "NSManagedObject")
        let staff = ModelBuilder.entity("Staff", className: "NSManagedObject")
        let (residents, home) = ModelBuilder.pair(
            "residents", from: household, toMany: true, "household", to: resident, toMany: false)
        let (head, headOf) = ModelBuilder.pair(
            "head", from: household, toMany: false, "headOf", to: resident, toMany: false)
        household.properties = [
            ModelBuilder.attribute("name", .stringAttributeType), ModelBuilder.attribute("city", .stringAttributeType),
            residents, head,
        ]
        resident.properties = [
            ModelBuilder.attribute("name", .stringAttributeType),
            ModelBuilder.attribute("age", .integer64AttributeType),
            ModelBuilder.attribute("height", .doubleAttributeType), ModelBuilder.attribute("born", .dateAttributeType),
            ModelBuilder.attribute("active", .booleanAttributeType), ModelBuilder.attribute("tag", .UUIDAttributeType),
            home, headOf,
        ]
        staff.properties = [ModelBuilder.attribute("salary", .integer32AttributeType)]
        resident.subentities = [staff]
        let model = NSManagedObjectModel()
        model.entities = [household, resident, staff]
        return model
    }

    /// Smith (Oslo): Ann 30 (head), Bob 40. Jones (Oslo): Cy 20, Dee 50 (staff, head).
    /// Brown (no city): nobody. Eve 60 has no household.
    static func populate(_ context: NSManagedObjectContext) throws -> [String: NSManagedObject] {
        try context.performAndWait {
            var objects: [String: NSManagedObject] = [:]
            func insert(_ entity: String, _ values: [String: Any]) -> NSManagedObject {
                let object = NSEntityDescription.insertNewObject(forEntityName: entity, into: context)
                for (key, value) in values { object.setValue(value, forKey: key) }
                return object
            }
            objects["Smith"] = insert("Household", ["name": "Smith", "city": "Oslo"])
            objects["Jones"] = insert("Household", ["name": "Jones", "city": "Oslo"])
            objects["Brown"] = insert("Household", ["name": "Brown"])
            objects["Ann"] = insert(
                "Resident",
                [
                    "name": "Ann", "age": Int64(30), "height": 1.6, "born": born, "active": true, "tag": ids.ann,
                    "household": objects["Smith"]!,
                ])
            objects["Bob"] = insert(
                "Resident",
                [
                    "name": "Bob", "age": Int64(40), "height": 1.8, "active": false, "tag": ids.bob,
                    "household": objects["Smith"]!,
                ])
            objects["Cy"] = insert("Resident", ["name": "Cy", "age": Int64(20), "household": objects["Jones"]!])
            objects["Dee"] = insert(
                "Staff",
                ["name": "Dee", "age": Int64(50), "height": 1.7, "salary": Int32(100), "household": objects["Jones"]!])
            objects["Eve"] = insert("Resident", ["name": "Eve", "age": Int64(60), "height": 1.5])
            objects["Smith"]!.setValue(objects["Ann"]!, forKey: "head")
            objects["Jones"]!.setValue(objects["Dee"]!, forKey: "head")
            try context.save()
            return objects
        }
    }

    static func expression(
        _ name: String, _ function: String, _ keyPath: String, _ type: NSAttributeType
    ) -> NSExpressionDescription {
        let description = NSExpressionDescription()
        description.name = name
        description.expression = NSExpression(forFunction: function, arguments: [NSExpression(forKeyPath: keyPath)])
        description.expressionResultType = type
        return description
    }

    static func request(
        _ properties: [Any]?, entity: String = "Resident", sortedBy keys: [String] = []
    ) -> NSFetchRequest<NSDictionary> {
        let request = NSFetchRequest<NSDictionary>(entityName: entity)
        request.resultType = .dictionaryResultType
        request.propertiesToFetch = properties
        request.sortDescriptors = keys.map { NSSortDescriptor(key: $0, ascending: true) }
        return request
    }
}

@Suite struct DictionaryFetchTests {
    let model = HouseholdFixture.model()

    @Test func attributesComeBackTypedAndNilsAreLeftOut() throws {
        let context = try makeContext(model)
        _ = try HouseholdFixture.populate(context)
        let rows = try context.performAndWait {
            try context.fetch(
                HouseholdFixture.request(["name", "age", "height", "born", "active", "tag"], sortedBy: ["name"]))
        }
        #expect(rows.map { $0["name"] as? String } == ["Ann", "Bob", "Cy", "Dee", "Eve"])
        let ann = rows[0]
        #expect(ann["age"] as? NSNumber == NSNumber(value: Int64(30)))
        #expect(ann["age"] as? Int64 == 30)
        #expect(ann["height"] as? Double == 1.6)
        #expect(ann["born"] as? Date == HouseholdFixture.born)
        #expect(ann["active"] as? Bool == true)
        #expect(ann["tag"] as? UUID == HouseholdFixture.ids.ann)
        #expect(rows[1]["active"] as? Bool == false)
        // Cy has no height, date, flag or tag: those keys are absent, not NSNull.
        #expect(Set(rows[2].allKeys.compactMap { $0 as? String }) == ["name", "age"])
    }

    @Test func keyPathsAndToOneRelationshipsGiveValuesAndIDs() throws {
        let context = try makeContext(model)
        let objects = try HouseholdFixture.populate(context)
        try context.performAndWait {
            let resident = try #require(model.entitiesByName["Resident"])
            let householdRelationship = try #require(resident.relationshipsByName["household"])
            let rows = try context.fetch(
                HouseholdFixture.request(["name", "household.name", householdRelationship], sortedBy: ["name"]))
            #expect(rows.map { $0["household.name"] as? String } == ["Smith", "Smith", "Jones", "Jones", nil])
            #expect(
                rows.map { $0["household"] as? NSManagedObjectID } == ["Smith", "Smith", "Jones", "Jones"].map {
                    objects[$0]!.objectID
                } + [nil])

            // `head` may be a Staff row: the ID carries the row's real entity.
            let heads = try context.fetch(
                HouseholdFixture.request(["name", "head", "head.name"], entity: "Household", sortedBy: ["name"]))
            #expect(heads.map { $0["head.name"] as? String } == [nil, "Dee", "Ann"])
            let jonesHead = try #require(heads[1]["head"] as? NSManagedObjectID)
            #expect(jonesHead == objects["Dee"]!.objectID)
            #expect(jonesHead.entity.name == "Staff")
            #expect(heads[0]["head"] == nil)
        }
    }

    @Test func withoutPropertiesToFetchAllAttributesAndToOnesOfTheEntityAreReturned() throws {
        let context = try makeContext(model)
        let objects = try HouseholdFixture.populate(context)
        let rows = try context.performAndWait { try context.fetch(HouseholdFixture.request(nil, sortedBy: ["name"])) }
        #expect(
            Set(rows[0].allKeys.compactMap { $0 as? String }) == [
                "name", "age", "height", "born", "active", "tag", "household", "headOf",
            ])
        #expect(rows[0]["headOf"] as? NSManagedObjectID == objects["Smith"]!.objectID)
        // Dee is Staff, but the request is for Resident: Resident's properties only.
        #expect(rows[3]["name"] as? String == "Dee" && rows[3]["salary"] == nil)
    }

    @Test func evaluatedObjectExpressionGivesTheObjectID() throws {
        let context = try makeContext(model)
        let objects = try HouseholdFixture.populate(context)
        let objectID = NSExpressionDescription()
        objectID.name = "objectID"
        objectID.expression = NSExpression.expressionForEvaluatedObject()
        objectID.expressionResultType = .objectIDAttributeType
        let rows = try context.performAndWait {
            try context.fetch(HouseholdFixture.request([objectID, "name"], sortedBy: ["name"]))
        }
        #expect(
            rows.map { $0["objectID"] as? NSManagedObjectID }
                == ["Ann", "Bob", "Cy", "Dee", "Eve"].map { objects[$0]!.objectID })
    }

    @Test func aggregatesOverAllRowsFollowTheirResultTypes() throws {
        let context = try makeContext(model)
        _ = try HouseholdFixture.populate(context)
        let recorder = SQLRecorder(context)
        let spread = NSExpressionDescription()
        spread.name = "spread"
        spread.expression = NSExpression(
            forFunction: "from:subtract:",
            arguments: [
                NSExpression(forFunction: "max:", arguments: [NSExpression(forKeyPath: "age")]),
                NSExpression(forFunction: "min:", arguments: [NSExpression(forKeyPath: "age")]),
            ])
        spread.expressionResultType = .integer64AttributeType
        let request = HouseholdFixture.request([
            HouseholdFixture.expression("count", "count:", "height", .integer64AttributeType),
            HouseholdFixture.expression("sum", "sum:", "age", .integer64AttributeType),
            HouseholdFixture.expression("average", "average:", "age", .doubleAttributeType),
            HouseholdFixture.expression("first", "min:", "name", .stringAttributeType),
            HouseholdFixture.expression("latest", "max:", "born", .dateAttributeType),
            HouseholdFixture.expression("oldest", "max:", "household.name", .undefinedAttributeType),
            spread,
        ])
        request.predicate = NSPredicate(format: "age > %d", 10)
        let rows = try context.performAndWait { try context.fetch(request) }
        #expect(rows.count == 1)
        let row = rows[0]
        #expect(row["count"] as? Int64 == 4, "COUNT skips Cy's missing height")
        #expect(row["sum"] as? Int64 == 200)
        #expect(row["average"] as? Double == 40)
        #expect(row["first"] as? String == "Ann")
        #expect(row["latest"] as? Date == HouseholdFixture.born)
        #expect(row["oldest"] as? String == "Smith")
        #expect(row["spread"] as? Int64 == 40)
        #expect(recorder.selects.count == 1, "one statement, no objects loaded: \(recorder.selects)")
        #expect(recorder.selects.first?.contains("SUM(") == true)
    }

    @Test func groupByAndHaving() throws {
        let context = try makeContext(model)
        _ = try HouseholdFixture.populate(context)
        let count = HouseholdFixture.expression("count", "count:", "name", .integer64AttributeType)
        let request = HouseholdFixture.request(
            ["household.name", count, HouseholdFixture.expression("total", "sum:", "age", .integer64AttributeType)],
            sortedBy: ["household.name"])
        request.propertiesToGroupBy = ["household.name"]
        let recorder = SQLRecorder(context)
        var rows = try context.performAndWait { try context.fetch(request) }
        #expect(rows.map { $0["household.name"] as? String } == [nil, "Jones", "Smith"])
        #expect(rows.map { $0["count"] as? Int64 } == [1, 2, 2])
        #expect(rows.map { $0["total"] as? Int64 } == [60, 70, 70])
        #expect(recorder.selects.last?.contains("GROUP BY") == true)

        // HAVING by the expression's name, as a variable, or by the aggregate itself.
        request.havingPredicate = NSPredicate(format: "count > 1 AND total < %d", 100)
        rows = try context.performAndWait { try context.fetch(request) }
        #expect(rows.map { $0["household.name"] as? String } == ["Jones", "Smith"])
        request.havingPredicate = NSPredicate(format: "$count == 1")
        rows = try context.performAndWait { try context.fetch(request) }
        #expect(rows.map { $0["household.name"] as? String } == [nil])
        request.havingPredicate = NSComparisonPredicate(
            leftExpression: NSExpression(forFunction: "max:", arguments: [NSExpression(forKeyPath: "age")]),
            rightExpression: NSExpression(forConstantValue: 50),
            modifier: .direct, type: .greaterThanOrEqualTo, options: [])
        rows = try context.performAndWait { try context.fetch(request) }
        #expect(rows.map { $0["household.name"] as? String } == [nil, "Jones"])
        #expect(recorder.selects.last?.contains("HAVING") == true)
    }

    @Test func groupByRelationshipDescriptionWithPredicateLimitAndOffset() throws {
        let context = try makeContext(model)
        let objects = try HouseholdFixture.populate(context)
        let household = try #require(model.entitiesByName["Resident"]?.relationshipsByName["household"])
        let request = HouseholdFixture.request([
            household, HouseholdFixture.expression("oldest", "max:", "age", .integer64AttributeType),
        ])
        request.propertiesToGroupBy = [household]
        request.predicate = NSPredicate(format: "household != nil")
        request.sortDescriptors = [NSSortDescriptor(key: "household.name", ascending: false)]
        request.fetchLimit = 1
        request.fetchOffset = 1
        let rows = try context.performAndWait { try context.fetch(request) }
        #expect(rows.count == 1)
        #expect(rows.first?["household"] as? NSManagedObjectID == objects["Jones"]!.objectID)
        #expect(rows.first?["oldest"] as? Int64 == 50)
    }

    @Test func distinctResults() throws {
        let context = try makeContext(model)
        _ = try HouseholdFixture.populate(context)
        let request = HouseholdFixture.request(["household.city"], sortedBy: ["household.city"])
        request.returnsDistinctResults = true
        var rows = try context.performAndWait { try context.fetch(request) }
        // Eve (no household) and the four Oslo residents.
        #expect(rows.count == 2)
        #expect(rows.map { $0["household.city"] as? String } == [nil, "Oslo"])
        request.returnsDistinctResults = false
        rows = try context.performAndWait { try context.fetch(request) }
        #expect(rows.count == 5)
    }

    @Test func textGroupsAndDeduplicatesWithSwiftStringEquality() throws {
        let context = try makeContext(model)
        try context.performAndWait {
            for (name, age) in [("Zo\u{E9}", 1), ("Zoe\u{301}", 2), ("Zoe", 4)] {
                let resident = NSEntityDescription.insertNewObject(forEntityName: "Resident", into: context)
                resident.setValue(name, forKey: "name")
                resident.setValue(Int64(age), forKey: "age")
            }
            try context.save()
            let distinct = HouseholdFixture.request(["name"])
            distinct.returnsDistinctResults = true
            let names = try context.fetch(distinct).compactMap { $0["name"] as? String }
            #expect(names.count == 2, "\(names)")
            let grouped = HouseholdFixture.request([
                "name", HouseholdFixture.expression("total", "sum:", "age", .integer64AttributeType),
            ])
            grouped.propertiesToGroupBy = ["name"]
            let totals = try context.fetch(grouped).compactMap { $0["total"] as? Int64 }
            #expect(totals.sorted() == [3, 4])
        }
    }

    @Test func sortLimitAndOffset() throws {
        let context = try makeContext(model)
        _ = try HouseholdFixture.populate(context)
        let request = HouseholdFixture.request(["name"])
        request.sortDescriptors = [NSSortDescriptor(key: "age", ascending: false)]
        request.fetchOffset = 1
        request.fetchLimit = 2
        let rows = try context.performAndWait { try context.fetch(request) }
        #expect(rows.map { $0["name"] as? String } == ["Dee", "Bob"])
    }

    @Test func subentities() throws {
        let context = try makeContext(model)
        _ = try HouseholdFixture.populate(context)
        let residents = HouseholdFixture.request(["name"], sortedBy: ["name"])
        residents.includesSubentities = false
        let staff = HouseholdFixture.request(["name", "salary", "household.name"], entity: "Staff")
        let (ownRows, staffRows) = try context.performAndWait {
            (try context.fetch(residents), try context.fetch(staff))
        }
        #expect(ownRows.map { $0["name"] as? String } == ["Ann", "Bob", "Cy", "Eve"])
        #expect(staffRows.count == 1)
        #expect(staffRows.first?["salary"] as? Int32 == 100)
        #expect(staffRows.first?["household.name"] as? String == "Jones")
    }

    @Test func unsavedChangesAreIgnoredAsInCoreData() throws {
        let context = try makeContext(model)
        let objects = try HouseholdFixture.populate(context)
        try context.performAndWait {
            objects["Ann"]!.setValue("Annie", forKey: "name")
            context.delete(objects["Bob"]!)
            NSEntityDescription.insertNewObject(forEntityName: "Resident", into: context).setValue(
                "Zed", forKey: "name")
            let names = try context.fetch(HouseholdFixture.request(["name"], sortedBy: ["name"])).map {
                $0["name"] as? String
            }
            #expect(names == ["Ann", "Bob", "Cy", "Dee", "Eve"])
            let count = try context.fetch(
                HouseholdFixture.request([
                    HouseholdFixture.expression("count", "count:", "name", .integer64AttributeType)
                ]))
            #expect(count.first?["count"] as? Int64 == 5)
            // Object fetches do see them.
            let objectCount = try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Resident"))
            #expect(objectCount == 5)
            #expect(context.hasChanges)
        }
    }

    @Test func countResultType() throws {
        let context = try makeContext(model)
        _ = try HouseholdFixture.populate(context)
        try context.performAndWait {
            let request = NSFetchRequest<NSNumber>(entityName: "Resident")
            request.resultType = .countResultType
            request.predicate = NSPredicate(format: "age > 25")
            let saved = try context.fetch(request)
            #expect(saved == [NSNumber(value: 4)])
            // Counts, unlike dictionaries, include unsaved objects.
            NSEntityDescription.insertNewObject(forEntityName: "Staff", into: context).setValue(
                Int64(70), forKey: "age")
            let withUnsaved = try context.fetch(request)
            #expect(withUnsaved == [NSNumber(value: 5)])
        }
    }

    @Test func objectIDResultTypeReadsOnlyKeys() throws {
        let url = temporaryStoreURL()
        let objects = try HouseholdFixture.populate(try makeContext(model, url: url))
        // A fresh coordinator and context: nothing cached, nothing registered.
        let context = try makeContext(model, url: url)
        let recorder = SQLRecorder(context)
        let request = NSFetchRequest<NSManagedObjectID>(entityName: "Resident")
        request.resultType = .managedObjectIDResultType
        request.predicate = NSPredicate(format: "age >= 40")
        request.sortDescriptors = [NSSortDescriptor(key: "age", ascending: true)]
        let (ids, registered) = try context.performAndWait {
            (try context.fetch(request), context.registeredObjects.count)
        }
        #expect(
            ids.map { $0.uriRepresentation() }
                == ["Bob", "Dee", "Eve"].map { objects[$0]!.objectID.uriRepresentation() })
        #expect(ids[1].entity.name == "Staff")
        #expect(registered == 0, "ID results register no objects")
        #expect(recorder.selects.count == 1)
        #expect(
            recorder.selects.first?.hasPrefix("SELECT t0.Z_PK, t0.Z_ENT FROM ZRESIDENT t0") == true,
            "\(recorder.selects)")
    }

    @Test func objectIDResultTypeSeesUnsavedChanges() throws {
        let context = try makeContext(model)
        let objects = try HouseholdFixture.populate(context)
        try context.performAndWait {
            context.delete(objects["Eve"]!)
            let zed = NSEntityDescription.insertNewObject(forEntityName: "Resident", into: context)
            zed.setValue(Int64(90), forKey: "age")
            let request = NSFetchRequest<NSManagedObjectID>(entityName: "Resident")
            request.resultType = .managedObjectIDResultType
            request.predicate = NSPredicate(format: "age >= 50")
            let ids = Set(try context.fetch(request))
            #expect(ids == [objects["Dee"]!.objectID, zed.objectID])
        }
    }

    @Test func badRequestsThrowNamingTheProblem() throws {
        let context = try makeContext(model)
        _ = try HouseholdFixture.populate(context)
        func message(_ request: NSFetchRequest<NSDictionary>) -> String? {
            let error = #expect(throws: NSError.self) { try context.performAndWait { try context.fetch(request) } }
            #expect(error?.domain == NSCocoaErrorDomain)
            return error?.localizedDescription
        }
        #expect(message(HouseholdFixture.request(["nope"]))?.contains("nope") == true)
        #expect(message(HouseholdFixture.request(["household.nope"]))?.contains("household.nope") == true)
        #expect(message(HouseholdFixture.request(["residents"], entity: "Household"))?.contains("to-many") == true)
        #expect(message(HouseholdFixture.request([42]))?.contains("Int") == true)

        let ungrouped = HouseholdFixture.request([
            "name", HouseholdFixture.expression("count", "count:", "name", .integer64AttributeType),
        ])
        ungrouped.propertiesToGroupBy = ["household.name"]
        #expect(message(ungrouped)?.contains("'name'") == true)

        let aggregateGroup = HouseholdFixture.request([
            HouseholdFixture.expression("count", "count:", "name", .integer64AttributeType)
        ])
        aggregateGroup.propertiesToGroupBy = [
            HouseholdFixture.expression("count", "count:", "name", .integer64AttributeType)
        ]
        #expect(message(aggregateGroup)?.contains("aggregate") == true)

        let havingWithoutGroups = HouseholdFixture.request(["name"])
        havingWithoutGroups.havingPredicate = NSPredicate(format: "name == 'Ann'")
        #expect(message(havingWithoutGroups)?.contains("propertiesToGroupBy") == true)

        let sumOfText = HouseholdFixture.request([
            HouseholdFixture.expression("sum", "sum:", "name", .integer64AttributeType)
        ])
        #expect(message(sumOfText)?.contains("sum:") == true)

        let toManyAggregate = HouseholdFixture.request(
            [HouseholdFixture.expression("n", "count:", "residents.name", .integer64AttributeType)], entity: "Household"
        )
        #expect(message(toManyAggregate)?.contains("count:") == true)

        let groupedObjects = NSFetchRequest<NSManagedObject>(entityName: "Resident")
        groupedObjects.propertiesToGroupBy = ["name"]
        let groupError = #expect(throws: NSError.self) {
            try context.performAndWait { try context.fetch(groupedObjects) }
        }
        #expect(groupError?.localizedDescription.contains("dictionaryResultType") == true)

        let mistyped = NSFetchRequest<NSManagedObject>(entityName: "Resident")
        mistyped.resultType = .dictionaryResultType
        let typeError = #expect(throws: NSError.self) { try context.performAndWait { try context.fetch(mistyped) } }
        #expect(typeError?.localizedDescription.contains("NSFetchRequest<NSManagedObject>") == true)
    }
}
