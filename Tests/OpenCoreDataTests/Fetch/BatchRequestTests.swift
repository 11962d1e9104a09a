import GRDB
@testable import OpenCoreDataCore
@testable import OpenCoreDataSQLite
import Testing
import OpenCoreDataStoreTestSupport

/// Batch insert, update and delete change the store with set-based SQL, return the
/// right counts and IDs, apply delete rules, and contexts see the changes once merged.
@Suite struct BatchRequestTests {
    let model = ModelBuilder.notesModel()

    // MARK: Helpers

    /// A second, plain SQLite connection to the store file, as another process would read it.
    private func database(_ url: URL) throws -> DatabaseQueue {
        try DatabaseQueue(path: url.path)
    }

    private func integer(_ url: URL, _ sql: String) throws -> Int {
        try database(url).read { try Int.fetchOne($0, sql: sql) ?? -1 }
    }

    /// Saves `count` notebooks, each with `notesEach` notes, through a context.
    private func seedNotebooks(_ context: NSManagedObjectContext, names: [String], notesEach: Int) throws {
        try context.performAndWait {
            for name in names {
                let notebook = Notebook(context: context)
                notebook.name = name
                for index in 0..<notesEach {
                    let note = Note(context: context)
                    note.text = "\(name)-\(index)"
                    note.pages = Int16(index % 50)
                    note.notebook = notebook
                }
            }
            try context.save()
        }
    }

    /// Owner ↔ Animal (Owner.animals cascades), Dog a subentity of Animal.
    private func zooModel() -> (
        NSManagedObjectModel, owner: NSEntityDescription, animal: NSEntityDescription, dog: NSEntityDescription
    ) {
        let owner = ModelBuilder.entity("Owner", className: "NSManagedObject")
        let animal = ModelBuilder.entity("Animal", className: "NSManagedObject")
        let dog = ModelBuilder.entity("Dog", className: "NSManagedObject")
        let (animals, animalOwner) = ModelBuilder.pair(
            "animals", from: owner, toMany: true, rule: .cascadeDeleteRule, "owner", to: animal, toMany: false)
        owner.properties = [ModelBuilder.attribute("name", .stringAttributeType), animals]
        animal.properties = [ModelBuilder.attribute("name", .stringAttributeType), animalOwner]
        dog.properties = [ModelBuilder.attribute("breed", .stringAttributeType)]
        animal.subentities = [dog]
        let zoo = NSManagedObjectModel()
        zoo.entities = [owner, animal, dog]
        return (zoo, owner, animal, dog)
    }

    private func expectError(_ code: Int, _ mentioning: String, _ body: () throws -> Void) {
        do {
            try body()
            Issue.record("expected error \(code) mentioning '\(mentioning)'")
        } catch let error as NSError {
            #expect(error.domain == NSCocoaErrorDomain)
            #expect(error.code == code, "\(error.localizedDescription)")
            #expect(error.localizedDescription.contains(mentioning), "\(error.localizedDescription)")
        }
    }

    /// Every store-level case, as the PostgreSQL engine runs them too; the tests below read
    /// the SQLite file itself (its counters, statements and rows).
    @Test(arguments: BatchRequestBehaviour.allCases)
    func onSQLite(_ behaviour: BatchRequestBehaviour) throws {
        try behaviour.run(on: .sqlite)
    }

    // MARK: Insert

    @Test func insertDictionariesWritesRowsBumpsKeysAndAppliesDefaults() throws {
        let url = temporaryStoreURL()
        let context = try makeContext(model, url: url)
        try seedNotebooks(context, names: ["First"], notesEach: 0)
        let date = Date(timeIntervalSinceReferenceDate: 1000)
        let result = try context.performAndWait {
            let request = NSBatchInsertRequest(
                entityName: "Notebook",
                objects: [
                    ["name": "A", "creationDate": date],
                    ["name": "B"],
                    ["name": "C", "creationDate": NSNull()],
                ])
            request.resultType = .objectIDs
            return try context.execute(request) as? NSBatchInsertResult
        }
        let ids = try #require(result?.result as? [NSManagedObjectID])
        #expect(ids.map { $0.primaryKey } == [2, 3, 4])
        #expect(ids.allSatisfy { !$0.isTemporaryID && $0.entity.name == "Notebook" })
        #expect(try integer(url, "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = 'Notebook'") == 4)
        let rows = try database(url).read { db in
            try Row.fetchAll(db, sql: "SELECT Z_PK, Z_ENT, Z_OPT, ZNAME, ZCREATIONDATE FROM ZNOTEBOOK ORDER BY Z_PK")
        }
        #expect(rows.count == 4)
        #expect(rows[1][0] as Int == 2 && rows[1][1] as Int == 2 && rows[1][2] as Int == 1)
        #expect(rows[1][3] as String == "A" && rows[1][4] as Double == 1000)
        #expect(rows[2][4] as Double? == nil)

        // Defaults: Note.pages defaults to 1.
        let count = try context.performAndWait {
            let request = NSBatchInsertRequest(
                entity: Note.entity(), objects: [["text": "no pages"], ["text": "ten", "pages": 10]])
            request.resultType = .count
            return try (context.execute(request) as? NSBatchInsertResult)?.result as? Int
        }
        #expect(count == 2)
        let pages = try database(url).read { try Int.fetchAll($0, sql: "SELECT ZPAGES FROM ZNOTE ORDER BY Z_PK") }
        #expect(pages == [1, 10])

        // A normal insert afterwards gets the next key, not one the batch used.
        let names = try context.performAndWait {
            let notebook = Notebook(context: context)
            notebook.name = "Later"
            try context.save()
            #expect(notebook.objectID.primaryKey == 5)
            let request = Notebook.fetchRequest()
            request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
            return try context.fetch(request).compactMap(\.name)
        }
        #expect(names == ["A", "B", "C", "First", "Later"])
    }

    @Test func insertHandlersProduceRowsUntilTheyReturnTrue() throws {
        let url = temporaryStoreURL()
        let context = try makeContext(model, url: url)
        let counts = try context.performAndWait {
            var produced = 0
            let dictionaries = NSBatchInsertRequest(entityName: "Tag") { dictionary in
                guard produced < 5 else { return true }
                dictionary["title"] = "tag \(produced)"
                produced += 1
                return false
            }
            dictionaries.resultType = .count
            var made = 0
            // This context's entity, not `Note.entity()`: tests running in parallel have other
            // models in use, and the test bundle has more than one class named Note.
            let noteEntity = try #require(context.persistentStoreCoordinator?.managedObjectModel.entitiesByName["Note"])
            let objects = NSBatchInsertRequest(entity: noteEntity) { object in
                guard made < 3 else { return true }
                #expect(object.managedObjectContext == nil, "handler objects are in no context")
                object.setValue("object \(made)", forKey: "text")
                object.setValue(7 + made, forKey: "pages")
                made += 1
                return false
            }
            objects.resultType = .count
            let status =
                try
                (context.execute(NSBatchInsertRequest(entityName: "Tag", dictionaryHandler: { _ in true }))
                as? NSBatchInsertResult)?.result as? Bool
            return (
                try (context.execute(dictionaries) as? NSBatchInsertResult)?.result as? Int,
                try (context.execute(objects) as? NSBatchInsertResult)?.result as? Int,
                status
            )
        }
        #expect(counts.0 == 5)
        #expect(counts.1 == 3)
        #expect(counts.2 == true, "a handler that stops at once inserts nothing and succeeds")
        let titles = try database(url).read { try String.fetchAll($0, sql: "SELECT ZTITLE FROM ZTAG ORDER BY Z_PK") }
        #expect(titles == (0..<5).map { "tag \($0)" })
        let notes = try database(url).read {
            try Row.fetchAll($0, sql: "SELECT ZTEXT, ZPAGES FROM ZNOTE ORDER BY Z_PK").map {
                "\($0[0] as String)/\($0[1] as Int)"
            }
        }
        #expect(notes == ["object 0/7", "object 1/8", "object 2/9"])
    }

    @Test func insertRejectsUnknownKeysWrongTypesRelationshipsAndMissingValues() throws {
        let url = temporaryStoreURL()
        let context = try makeContext(model, url: url)
        context.performAndWait {
            expectError(NSManagedObjectValidationError, "colour") {
                _ = try context.execute(
                    NSBatchInsertRequest(
                        entityName: "Notebook", objects: [["name": "ok"], ["name": "x", "colour": "red"]]))
            }
            expectError(NSManagedObjectValidationError, "pages") {
                _ = try context.execute(NSBatchInsertRequest(entityName: "Note", objects: [["pages": "many"]]))
            }
            expectError(NSManagedObjectValidationError, "relationship") {
                _ = try context.execute(NSBatchInsertRequest(entityName: "Note", objects: [["notebook": NSNull()]]))
            }
            expectError(NSValidationMissingMandatoryPropertyError, "name") {
                _ = try context.execute(
                    NSBatchInsertRequest(entityName: "Notebook", objects: [["creationDate": Date()]]))
            }
            expectError(NSManagedObjectValidationError, "pages") {
                _ = try context.execute(
                    NSBatchInsertRequest(entity: Note.entity()) { object in
                        object.setValue("lots", forKey: "pages")
                        return false
                    })
            }
            expectError(NSCoreDataError, "Nowhere") {
                _ = try context.execute(NSBatchInsertRequest(entityName: "Nowhere", objects: []))
            }
        }
        #expect(try integer(url, "SELECT COUNT(*) FROM ZNOTEBOOK") == 0, "a rejected batch writes nothing")
        #expect(try integer(url, "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = 'Notebook'") == 0)
    }

    @Test func insertUsesOnePreparedStatementInOneTransaction() throws {
        let context = try makeContext(model)
        let recorder = SQLRecorder(context)
        let rows = (0..<200).map { ["name": "n\($0)"] }
        try context.performAndWait {
            _ = try context.execute(NSBatchInsertRequest(entityName: "Notebook", objects: rows))
        }
        let statements = recorder.statements
        #expect(statements.filter { $0.hasPrefix("INSERT INTO ZNOTEBOOK") }.count == 200)
        #expect(Set(statements.filter { $0.hasPrefix("INSERT") }).count == 1, "one statement text, bound per row")
        #expect(statements.filter { $0.hasPrefix("BEGIN") }.count == 1)
        #expect(statements.filter { $0.hasPrefix("COMMIT") }.count == 1)
        #expect(statements.count <= 205, "\(statements.count) statements")
    }

    @Test func insertUpdatesRowsMatchingAUniquenessConstraint() throws {
        let item = ModelBuilder.entity("Item", className: "NSManagedObject")
        item.properties = [
            ModelBuilder.attribute("code", .stringAttributeType), ModelBuilder.attribute("title", .stringAttributeType),
            ModelBuilder.attribute("stock", .integer32AttributeType, defaultValue: 0),
        ]
        item.uniquenessConstraints = [["code"]]
        let items = NSManagedObjectModel()
        items.entities = [item]
        let url = temporaryStoreURL()
        let context = try makeContext(items, url: url)
        let existing = try context.performAndWait {
            let object = NSManagedObject(entity: item, insertInto: context)
            object.setValue("a", forKey: "code")
            object.setValue("old", forKey: "title")
            object.setValue(5, forKey: "stock")
            try context.save()
            return object.objectID
        }
        let ids = try context.performAndWait {
            let request = NSBatchInsertRequest(
                entity: item,
                objects: [["code": "a", "title": "new"], ["code": "b", "title": "b"], ["title": "no code"]])
            request.resultType = .objectIDs
            return try (context.execute(request) as? NSBatchInsertResult)?.result as? [NSManagedObjectID]
        }
        #expect(ids?.count == 3)
        #expect(ids?.first == existing, "the matching row is updated, keeping its ID")
        let rows = try database(url).read { db in
            try Row.fetchAll(db, sql: "SELECT ZCODE, ZTITLE, ZSTOCK, Z_OPT FROM ZITEM ORDER BY Z_PK").map {
                "\($0[0] as String? ?? "-") \($0[1] as String) \($0[2] as Int) \($0[3] as Int)"
            }
        }
        #expect(
            rows == ["a new 0 2", "b b 0 1", "- no code 0 1"],
            "the row is overwritten, missing attributes by their defaults")
    }

    // MARK: Update

    @Test func updateChangesMatchingRowsInOneStatement() throws {
        let url = temporaryStoreURL()
        let context = try makeContext(model, url: url)
        try seedNotebooks(context, names: ["Work", "Home"], notesEach: 150)
        let recorder = SQLRecorder(context)
        let count = try context.performAndWait {
            let request = NSBatchUpdateRequest(entityName: "Note")
            request.predicate = NSPredicate(format: "pages >= 25")
            request.propertiesToUpdate = ["pages": 499, "text": NSExpression(forConstantValue: "batched")]
            request.resultType = .updatedObjectsCountResultType
            return try (context.execute(request) as? NSBatchUpdateResult)?.result as? Int
        }
        #expect(count == 150)
        let updates = recorder.statements.filter { $0.hasPrefix("UPDATE") }
        #expect(updates.count == 1)
        #expect(updates.first?.contains("Z_OPT = Z_OPT + 1") == true)
        #expect(recorder.selects.isEmpty, "no rows are read for a count result")
        #expect(
            try integer(url, "SELECT COUNT(*) FROM ZNOTE WHERE ZPAGES = 499 AND ZTEXT = 'batched' AND Z_OPT = 2") == 150
        )
        #expect(try integer(url, "SELECT COUNT(*) FROM ZNOTE WHERE ZPAGES < 25 AND Z_OPT = 1") == 150)
        let status = try context.performAndWait {
            let request = NSBatchUpdateRequest(entity: Notebook.entity())
            request.propertiesToUpdate = [Notebook.entity().attributesByName["name"]!: "Renamed"]
            return try (context.execute(request) as? NSBatchUpdateResult)?.result as? Bool
        }
        #expect(status == true)
        #expect(try integer(url, "SELECT COUNT(*) FROM ZNOTEBOOK WHERE ZNAME = 'Renamed'") == 2)
    }

    @Test func updateWithExpressionsAndToOneKeyPaths() throws {
        let url = temporaryStoreURL()
        let context = try makeContext(model, url: url)
        try seedNotebooks(context, names: ["Work", "Home"], notesEach: 3)
        let ids = try context.performAndWait {
            let request = NSBatchUpdateRequest(entityName: "Note")
            request.predicate = NSPredicate(format: "notebook.name == 'Work'")
            request.propertiesToUpdate = [
                "pages": NSExpression(format: "pages * 10 + 1"), "text": NSExpression(format: "notebook.name"),
            ]
            request.resultType = .updatedObjectIDsResultType
            return try (context.execute(request) as? NSBatchUpdateResult)?.result as? [NSManagedObjectID]
        }
        #expect(ids?.count == 3)
        #expect(Set(ids?.compactMap(\.primaryKey) ?? []) == [1, 2, 3], "the Work notebook's notes")
        let rows = try database(url).read { db in
            try Row.fetchAll(db, sql: "SELECT ZTEXT, ZPAGES FROM ZNOTE ORDER BY Z_PK").map {
                "\($0[0] as String):\($0[1] as Int)"
            }
        }
        #expect(rows == ["Work:1", "Work:11", "Work:21", "Home-0:0", "Home-1:1", "Home-2:2"])
    }

    @Test func updateReadsEveryValueAsItWasBefore() throws {
        let node = ModelBuilder.entity("Node", className: "NSManagedObject")
        let (children, parent) = ModelBuilder.pair(
            "children", from: node, toMany: true, "parent", to: node, toMany: false)
        node.properties = [ModelBuilder.attribute("value", .integer64AttributeType), children, parent]
        let nodes = NSManagedObjectModel()
        nodes.entities = [node]
        let url = temporaryStoreURL()
        let context = try makeContext(nodes, url: url)
        try context.performAndWait {
            var previous: NSManagedObject?
            for value in [10, 20, 30, 40] {
                let object = NSManagedObject(entity: node, insertInto: context)
                object.setValue(value, forKey: "value")
                object.setValue(previous, forKey: "parent")
                previous = object
            }
            try context.save()
            let request = NSBatchUpdateRequest(entity: node)
            request.predicate = NSPredicate(format: "parent != nil")
            request.propertiesToUpdate = ["value": NSExpression(format: "parent.value + 1")]
            _ = try context.execute(request)
        }
        let values = try database(url).read { try Int.fetchAll($0, sql: "SELECT ZVALUE FROM ZNODE ORDER BY Z_PK") }
        #expect(values == [10, 11, 21, 31], "each row reads its parent's value from before the update")
    }

    @Test func updateRejectsBadKeysTypesAndExpressions() throws {
        let url = temporaryStoreURL()
        let context = try makeContext(model, url: url)
        try seedNotebooks(context, names: ["Work"], notesEach: 2)
        context.performAndWait {
            func update(_ properties: [AnyHashable: Any]) throws {
                let request = NSBatchUpdateRequest(entityName: "Note")
                request.propertiesToUpdate = properties
                _ = try context.execute(request)
            }
            expectError(NSManagedObjectValidationError, "colour") { try update(["colour": "red"]) }
            expectError(NSManagedObjectValidationError, "relationship") { try update(["notebook": NSNull()]) }
            expectError(NSManagedObjectValidationError, "Integer 16") { try update(["pages": "many"]) }
            expectError(NSManagedObjectValidationError, "text") {
                try update(["text": NSExpression(format: "pages + 1")])
            }
            expectError(NSManagedObjectValidationError, "nothing") {
                try update(["pages": NSExpression(format: "nothing + 1")])
            }
            expectError(NSCoreDataError, "propertiesToUpdate") { try update([:]) }
        }
        #expect(try integer(url, "SELECT COUNT(*) FROM ZNOTE WHERE Z_OPT = 1") == 2, "nothing was written")
    }

    // MARK: Delete

    @Test func deleteOfManyRowsIsSetBased() throws {
        let url = temporaryStoreURL()
        let context = try makeContext(model, url: url)
        try seedNotebooks(context, names: ["Big"], notesEach: 500)
        let recorder = SQLRecorder(context)
        let count = try context.performAndWait {
            let request = NSBatchDeleteRequest(fetchRequest: Note.fetchRequest())
            request.resultType = .resultTypeCount
            return try (context.execute(request) as? NSBatchDeleteResult)?.result as? Int
        }
        #expect(count == 500)
        #expect(try integer(url, "SELECT COUNT(*) FROM ZNOTE") == 0)
        #expect(try integer(url, "SELECT COUNT(*) FROM ZNOTEBOOK") == 1, "Note.notebook is Nullify: the notebook stays")
        let statements = recorder.statements
        #expect(statements.count < 30, "\(statements.count) statements: \(statements)")
        #expect(statements.filter { $0.hasPrefix("DELETE FROM ZNOTE ") }.count == 1)
        #expect(!statements.contains { $0.contains("Z_PK = ?") }, "no per-row statements")
    }

    @Test func deleteWithoutRelationshipsIsOneStatement() throws {
        let reading = ModelBuilder.entity("Reading", className: "NSManagedObject")
        let alarm = ModelBuilder.entity("Alarm", className: "NSManagedObject")
        reading.properties = [ModelBuilder.attribute("value", .integer64AttributeType)]
        alarm.properties = [ModelBuilder.attribute("level", .integer16AttributeType)]
        reading.subentities = [alarm]
        let sensors = NSManagedObjectModel()
        sensors.entities = [reading, alarm]
        let url = temporaryStoreURL()
        let context = try makeContext(sensors, url: url)
        let cached = try context.performAndWait {
            for value in 0..<10 {
                NSManagedObject(entity: reading, insertInto: context).setValue(Int64(value), forKey: "value")
            }
            for value in 0..<4 {
                NSManagedObject(entity: alarm, insertInto: context).setValue(Int64(100 + value), forKey: "value")
            }
            try context.save()
            return try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Alarm")).map(\.objectID)
        }
        let recorder = SQLRecorder(context)
        let count = try context.performAndWait {
            let fetch = NSFetchRequest<NSManagedObject>(entityName: "Alarm")
            fetch.sortDescriptors = [NSSortDescriptor(key: "value", ascending: true)]
            fetch.fetchLimit = 3
            let request = NSBatchDeleteRequest(fetchRequest: fetch)
            request.resultType = .resultTypeCount
            return try (context.execute(request) as? NSBatchDeleteResult)?.result as? Int
        }
        #expect(count == 3)
        #expect(try integer(url, "SELECT COUNT(*) FROM ZREADING") == 11, "the limit holds and plain readings stay")
        #expect(
            try integer(
                url,
                "SELECT MIN(ZVALUE) FROM ZREADING WHERE Z_ENT = (SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'Alarm')"
            ) == 103)
        let statements = recorder.statements
        #expect(statements.filter { $0.hasPrefix("DELETE") }.count == 1, "\(statements)")
        #expect(!statements.contains { $0.contains("Z_BATCHKEYS") }, "no key table")
        let reader = siblingContext(of: context)
        let gone = reader.performAndWait {
            cached.prefix(3).filter { (try? reader.existingObject(with: $0)) == nil }.count
        }
        #expect(gone == 3, "the row cache forgot the deleted rows")
    }

    @Test func deleteWithToOneKeyPathPredicateAndObjectIDsResult() throws {
        let url = temporaryStoreURL()
        let context = try makeContext(model, url: url)
        try seedNotebooks(context, names: ["Keep", "Trash"], notesEach: 4)
        let ids = try context.performAndWait {
            let fetch = NSFetchRequest<NSManagedObject>(entityName: "Note")
            fetch.predicate = NSPredicate(format: "notebook.name == %@ AND pages < 3", "Trash")
            let request = NSBatchDeleteRequest(fetchRequest: fetch)
            request.resultType = .resultTypeObjectIDs
            return try (context.execute(request) as? NSBatchDeleteResult)?.result as? [NSManagedObjectID]
        }
        #expect(Set(ids?.compactMap(\.primaryKey) ?? []) == [5, 6, 7], "Trash-0…2 (notes 5–8 belong to Trash)")
        let left = try database(url).read { try String.fetchAll($0, sql: "SELECT ZTEXT FROM ZNOTE ORDER BY Z_PK") }
        #expect(left == ["Keep-0", "Keep-1", "Keep-2", "Keep-3", "Trash-3"])
    }

    @Test func deleteCascadesAndRemovesJoinRows() throws {
        let url = temporaryStoreURL()
        let context = try makeContext(model, url: url)
        try context.performAndWait {
            let tag = Tag(context: context)
            tag.title = "shared"
            for name in ["Gone", "Stays"] {
                let notebook = Notebook(context: context)
                notebook.name = name
                for index in 0..<3 {
                    let note = Note(context: context)
                    note.text = "\(name)\(index)"
                    note.notebook = notebook
                    note.tags = [tag]
                }
            }
            try context.save()
        }
        #expect(try integer(url, "SELECT COUNT(*) FROM Z_1TAGS") == 6)
        let ids = try context.performAndWait {
            let fetch = Notebook.fetchRequest()
            fetch.predicate = NSPredicate(format: "name == 'Gone'")
            let request = NSBatchDeleteRequest(fetchRequest: fetch)
            request.resultType = .resultTypeObjectIDs
            return try (context.execute(request) as? NSBatchDeleteResult)?.result as? [NSManagedObjectID]
        }
        #expect(ids?.map(\.primaryKey) == [1], "the result names the objects the request matched")
        #expect(try integer(url, "SELECT COUNT(*) FROM ZNOTEBOOK") == 1)
        let notes = try database(url).read { try String.fetchAll($0, sql: "SELECT ZTEXT FROM ZNOTE ORDER BY Z_PK") }
        #expect(notes == ["Stays0", "Stays1", "Stays2"], "Notebook.notes cascades")
        #expect(try integer(url, "SELECT COUNT(*) FROM Z_1TAGS") == 3, "join rows of cascaded notes are gone")
        #expect(try integer(url, "SELECT COUNT(*) FROM ZTAG") == 1, "Note.tags is Nullify: the tag stays")
        // The context that saved the tag still holds its old membership (batch requests leave
        // objects alone); a fresh context reads the store.
        let fresh = try makeContext(model, url: url)
        let tagNotes = try fresh.performAndWait {
            try fresh.fetch(Tag.fetchRequest()).first?.notes?.compactMap(\.text).sorted()
        }
        #expect(tagNotes == ["Stays0", "Stays1", "Stays2"])
    }

    @Test func deleteNullifiesToOneInverses() throws {
        let url = temporaryStoreURL()
        let context = try makeContext(ModelBuilder.notesModel(notebookRule: .nullifyDeleteRule), url: url)
        try seedNotebooks(context, names: ["Gone"], notesEach: 3)
        try context.performAndWait {
            _ = try context.execute(NSBatchDeleteRequest(fetchRequest: Notebook.fetchRequest()))
        }
        #expect(try integer(url, "SELECT COUNT(*) FROM ZNOTEBOOK") == 0)
        #expect(try integer(url, "SELECT COUNT(*) FROM ZNOTE WHERE ZNOTEBOOK IS NULL AND Z_OPT = 2") == 3)
    }

    @Test func deleteRefusesDenyRuleWithDestinations() throws {
        let url = temporaryStoreURL()
        let context = try makeContext(ModelBuilder.notesModel(notebookRule: .denyDeleteRule), url: url)
        try seedNotebooks(context, names: ["Full"], notesEach: 2)
        try seedNotebooks(context, names: ["Empty"], notesEach: 0)
        context.performAndWait {
            expectError(NSValidationRelationshipDeniedDeleteError, "Notebook.notes") {
                _ = try context.execute(NSBatchDeleteRequest(fetchRequest: Notebook.fetchRequest()))
            }
        }
        #expect(try integer(url, "SELECT COUNT(*) FROM ZNOTEBOOK") == 2, "nothing is deleted when the request fails")
        #expect(try integer(url, "SELECT COUNT(*) FROM ZNOTE") == 2)
        let count = try context.performAndWait {
            let fetch = Notebook.fetchRequest()
            fetch.predicate = NSPredicate(format: "notes.@count == 0")
            let request = NSBatchDeleteRequest(fetchRequest: fetch)
            request.resultType = .resultTypeCount
            return try (context.execute(request) as? NSBatchDeleteResult)?.result as? Int
        }
        #expect(count == 1)
        #expect(try integer(url, "SELECT COUNT(*) FROM ZNOTEBOOK") == 1)
    }

    @Test func deleteRefusesToClearARequiredInverse() throws {
        let owner = ModelBuilder.entity("Owner", className: "NSManagedObject")
        let pet = ModelBuilder.entity("Pet", className: "NSManagedObject")
        let (pets, petOwner) = ModelBuilder.pair(
            "pets", from: owner, toMany: true, rule: .nullifyDeleteRule, "owner", to: pet, toMany: false)
        petOwner.isOptional = false
        owner.properties = [ModelBuilder.attribute("name", .stringAttributeType), pets]
        pet.properties = [ModelBuilder.attribute("name", .stringAttributeType), petOwner]
        let petsModel = NSManagedObjectModel()
        petsModel.entities = [owner, pet]
        let url = temporaryStoreURL()
        let context = try makeContext(petsModel, url: url)
        try context.performAndWait {
            let person = NSManagedObject(entity: owner, insertInto: context)
            let dog = NSManagedObject(entity: pet, insertInto: context)
            dog.setValue(person, forKey: "owner")
            try context.save()
            expectError(NSPersistentStoreSaveConflictsError, "Pet.owner") {
                _ = try context.execute(
                    NSBatchDeleteRequest(fetchRequest: NSFetchRequest<NSManagedObject>(entityName: "Owner")))
            }
        }
        #expect(try integer(url, "SELECT COUNT(*) FROM ZOWNER") == 1)
    }

    @Test func deleteByObjectIDs() throws {
        let url = temporaryStoreURL()
        let context = try makeContext(model, url: url)
        try seedNotebooks(context, names: ["A", "B"], notesEach: 2)
        let (notebookID, noteIDs) = try context.performAndWait {
            let notes = try context.fetch(Note.fetchRequest())
            return (try context.fetch(Notebook.fetchRequest())[0].objectID, notes.prefix(3).map(\.objectID))
        }
        try context.performAndWait {
            expectError(NSCoreDataError, "one entity") {
                _ = try context.execute(NSBatchDeleteRequest(objectIDs: [noteIDs[0], notebookID]))
            }
            let request = NSBatchDeleteRequest(objectIDs: noteIDs)
            request.resultType = .resultTypeCount
            let count = try (context.execute(request) as? NSBatchDeleteResult)?.result as? Int
            #expect(count == 3)
            #expect(request.fetchRequest.entityName == "Note")
            let empty =
                try (context.execute(NSBatchDeleteRequest(objectIDs: [])) as? NSBatchDeleteResult)?.result as? Bool
            #expect(empty == true)
        }
        #expect(try integer(url, "SELECT COUNT(*) FROM ZNOTE") == 1)
    }

    @Test func deleteRemovesExternalDataFiles() throws {
        let photos = ModelBuilder.photoModel(attribute: "image")
        let photo = photos.entitiesByName["Photo"]!
        let url = temporaryStoreURL()
        let context = try makeContext(photos, url: url)
        let directory = SQLiteStore.supportDirectory(for: url).appendingPathComponent("_EXTERNAL_DATA")
        try context.performAndWait {
            NSManagedObject(entity: photo, insertInto: context).setValue(
                Data(repeating: 7, count: 200_000), forKey: "image")
            try context.save()
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).count == 1)
        try context.performAndWait {
            let inserted = NSBatchInsertRequest(entity: photo, objects: [["image": Data(repeating: 8, count: 300_000)]])
            _ = try context.execute(inserted)
            _ = try context.execute(
                NSBatchDeleteRequest(fetchRequest: NSFetchRequest<NSManagedObject>(entityName: "Photo")))
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }

    @Test func subentitiesShareTheirRootsTableAndKeys() throws {
        let (zoo, owner, animal, dog) = zooModel()
        let url = temporaryStoreURL()
        let context = try makeContext(zoo, url: url)
        try context.performAndWait {
            let person = NSManagedObject(entity: owner, insertInto: context)
            person.setValue("Ann", forKey: "name")
            let cat = NSManagedObject(entity: animal, insertInto: context)
            cat.setValue("Tom", forKey: "name")
            cat.setValue(person, forKey: "owner")
            try context.save()
            let insert = NSBatchInsertRequest(
                entity: dog, objects: [["name": "Rex", "breed": "collie"], ["name": "Fido"]])
            insert.resultType = .objectIDs
            let dogs = try (context.execute(insert) as? NSBatchInsertResult)?.result as? [NSManagedObjectID] ?? []
            #expect(dogs.map(\.primaryKey) == [2, 3], "keys come from the root entity's counter")
            let update = NSBatchUpdateRequest(entity: animal)
            update.includesSubentities = false
            update.propertiesToUpdate = ["name": "Animal only"]
            update.resultType = .updatedObjectsCountResultType
            #expect(try (context.execute(update) as? NSBatchUpdateResult)?.result as? Int == 1)
        }
        let rows = try database(url).read { db in
            try Row.fetchAll(db, sql: "SELECT Z_ENT, ZNAME, ZBREED FROM ZANIMAL ORDER BY Z_PK").map {
                "\($0[0] as Int) \($0[1] as String) \($0[2] as String? ?? "-")"
            }
        }
        #expect(
            rows == [
                "\(animal.facts.entityNumber) Animal only -", "\(dog.facts.entityNumber) Rex collie",
                "\(dog.facts.entityNumber) Fido -",
            ])
        let deleted = try context.performAndWait {
            let request = NSBatchDeleteRequest(fetchRequest: NSFetchRequest<NSManagedObject>(entityName: "Animal"))
            request.resultType = .resultTypeObjectIDs
            return try (context.execute(request) as? NSBatchDeleteResult)?.result as? [NSManagedObjectID] ?? []
        }
        #expect(Set(deleted.map { $0.entity.name ?? "" }) == ["Animal", "Dog"], "IDs name each row's own entity")
        #expect(try integer(url, "SELECT COUNT(*) FROM ZANIMAL") == 0)
        #expect(try integer(url, "SELECT COUNT(*) FROM ZOWNER") == 1, "Animal.owner is Nullify")
    }

    @Test func cascadeReachesSubentityRows() throws {
        let (zoo, owner, animal, dog) = zooModel()
        let url = temporaryStoreURL()
        let context = try makeContext(zoo, url: url)
        try context.performAndWait {
            for name in ["Ann", "Bob"] {
                let person = NSManagedObject(entity: owner, insertInto: context)
                person.setValue(name, forKey: "name")
                for entity in [animal, dog, dog] {
                    NSManagedObject(entity: entity, insertInto: context).setValue(person, forKey: "owner")
                }
            }
            try context.save()
            let fetch = NSFetchRequest<NSManagedObject>(entityName: "Owner")
            fetch.predicate = NSPredicate(format: "name == 'Ann'")
            _ = try context.execute(NSBatchDeleteRequest(fetchRequest: fetch))
        }
        #expect(try integer(url, "SELECT COUNT(*) FROM ZOWNER") == 1)
        #expect(try integer(url, "SELECT COUNT(*) FROM ZANIMAL") == 3)
        #expect(
            try integer(url, "SELECT COUNT(*) FROM ZANIMAL a JOIN ZOWNER o ON o.Z_PK = a.ZOWNER WHERE o.ZNAME = 'Bob'")
                == 3)
    }

    // MARK: Execution and merging

    @Test func unsupportedRequestsThrow() throws {
        let context = try makeContext(model)
        context.performAndWait {
            expectError(NSPersistentStoreUnsupportedRequestTypeError, "NSFetchRequest") {
                _ = try context.execute(Note.fetchRequest())
            }
        }
        #expect(NSBatchInsertRequest(entityName: "Note", objects: []).requestType == .batchInsertRequestType)
        #expect(NSBatchUpdateRequest(entityName: "Note").requestType == .batchUpdateRequestType)
        #expect(NSBatchDeleteRequest(objectIDs: []).requestType == .batchDeleteRequestType)
    }

    @Test func mergedContextsSeeBatchChanges() throws {
        let url = temporaryStoreURL()
        let writer = try makeContext(model, url: url)
        try seedNotebooks(writer, names: ["Work"], notesEach: 3)
        let reader = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        reader.persistentStoreCoordinator = writer.persistentStoreCoordinator
        let loaded = try reader.performAndWait {
            let request = Note.fetchRequest()
            request.sortDescriptors = [NSSortDescriptor(key: "text", ascending: true)]
            let notes = try reader.fetch(request)
            #expect(notes.map(\.text) == ["Work-0", "Work-1", "Work-2"])
            notes[2].pages = 9  // an unsaved change to an object about to be deleted
            return notes
        }
        let observed = NotificationLog(.NSManagedObjectContextObjectsDidChange, reader)
        let merged = NotificationLog(.NSManagedObjectContextDidMergeChangesObjectIDs, reader)

        // Update: batch, then merge. The reader's object shows the new value.
        let updated = try writer.performAndWait {
            let request = NSBatchUpdateRequest(entityName: "Note")
            request.predicate = NSPredicate(format: "text == 'Work-0'")
            request.propertiesToUpdate = ["text": "changed"]
            request.resultType = .updatedObjectIDsResultType
            return try (writer.execute(request) as? NSBatchUpdateResult)?.result as? [NSManagedObjectID] ?? []
        }
        #expect(reader.performAndWait { loaded[0].text } == "Work-0", "objects stay stale until merged")
        NSManagedObjectContext.mergeChanges(fromRemoteContextSave: [NSUpdatedObjectsKey: updated], into: [reader])
        #expect(reader.performAndWait { loaded[0].text } == "changed")
        #expect((observed.last?[NSRefreshedObjectsKey] as? Set<NSManagedObject>) == [loaded[0]])

        // Delete: the object leaves the reader, its unsaved change with it.
        let deleted = try writer.performAndWait {
            let request = NSBatchDeleteRequest(objectIDs: [loaded[2].objectID])
            request.resultType = .resultTypeObjectIDs
            return try (writer.execute(request) as? NSBatchDeleteResult)?.result as? [NSManagedObjectID] ?? []
        }
        NSManagedObjectContext.mergeChanges(fromRemoteContextSave: [NSDeletedObjectsKey: Set(deleted)], into: [reader])
        try reader.performAndWait {
            #expect(loaded[2].isDeleted)
            #expect(loaded[2].managedObjectContext == nil)
            #expect(reader.registeredObject(for: deleted[0]) == nil)
            #expect(!reader.hasChanges)
            try reader.save()
            #expect(try reader.fetch(Note.fetchRequest()).count == 2)
        }
        #expect((observed.last?[NSDeletedObjectsKey] as? Set<NSManagedObject>) == [loaded[2]])

        // Insert: URIs work too; the new object is registered and announced.
        let inserted = try writer.performAndWait {
            let request = NSBatchInsertRequest(entityName: "Note", objects: [["text": "fresh"]])
            request.resultType = .objectIDs
            return try (writer.execute(request) as? NSBatchInsertResult)?.result as? [NSManagedObjectID] ?? []
        }
        NSManagedObjectContext.mergeChanges(
            fromRemoteContextSave: [NSInsertedObjectsKey: inserted.map { $0.uriRepresentation() }], into: [reader])
        let fresh = reader.performAndWait { (reader.registeredObject(for: inserted[0]) as? Note)?.text }
        #expect(fresh == "fresh")
        #expect((observed.last?[NSInsertedObjectsKey] as? Set<NSManagedObject>)?.map(\.objectID) == inserted)
        #expect(merged.count == 3)
        #expect(
            (merged.last?[NSManagedObjectContext.NotificationKey.insertedObjectIDs.rawValue] as? Set<NSManagedObjectID>)
                == Set(inserted))
    }

    @Test func mergeMatchesIDsFromAnotherCoordinator() throws {
        let url = temporaryStoreURL()
        let local = try makeContext(model, url: url)
        try seedNotebooks(local, names: ["Work"], notesEach: 1)
        let note = try local.performAndWait {
            let note = try local.fetch(Note.fetchRequest())[0]
            #expect(note.pages == 0)
            return note
        }
        // Another coordinator on the same file, as another process would have.
        let remote = try makeContext(ModelBuilder.notesModel(), url: url)
        let ids = try remote.performAndWait {
            let request = NSBatchUpdateRequest(entityName: "Note")
            request.propertiesToUpdate = ["pages": 42]
            request.resultType = .updatedObjectIDsResultType
            return try (remote.execute(request) as? NSBatchUpdateResult)?.result as? [NSManagedObjectID] ?? []
        }
        #expect(ids.first?.entity !== note.entity, "the IDs belong to the other coordinator's model")
        NSManagedObjectContext.mergeChanges(fromRemoteContextSave: [NSUpdatedObjectsKey: ids], into: [local])
        #expect(local.performAndWait { note.pages } == 42)
    }
}

/// Collects the userInfo of one notification name posted by one object.
final class NotificationLog: @unchecked Sendable {
    private let lock = NSLock()
    private var infos: [[AnyHashable: Any]] = []
    private var token: NSObjectProtocol?

    init(_ name: Notification.Name, _ object: AnyObject) {
        token = NotificationCenter.default.addObserver(forName: name, object: object, queue: nil) {
            [weak self] notification in
            guard let self else { return }
            lock.lock()
            infos.append(notification.userInfo ?? [:])
            lock.unlock()
        }
    }

    deinit { token.map(NotificationCenter.default.removeObserver) }

    var count: Int { lock.lock(); defer { lock.unlock() }; return infos.count }
    var last: [AnyHashable: Any]? { lock.lock(); defer { lock.unlock() }; return infos.last }
}
