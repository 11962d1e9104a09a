import Foundation
@testable import OpenCoreDataCore
@testable import OpenCoreDataSQL
@testable import OpenCoreDataSQLite
import Testing
import OpenCoreDataStoreTestSupport

// The exact SQL the engine generates, per way a to-many is stored and per kind of request,
// as GRDB asserts its generated SQL: a change to a statement is a deliberate change to
// this file. (The SQL-equals-memory tests check what the statements select.)

/// Shelf ⟷ Book ordered one-to-many (inverse key + order column), Author ⟷ Book
/// many-to-many (join table), Reader → Book without inverse (hidden column),
/// Publisher ⟷ Book unordered one-to-many (inverse key). Entities are numbered by name:
/// Author 1, Book 2, Publisher 3, Reader 4, Shelf 5.
func libraryModel() -> NSManagedObjectModel {
    let author = ModelBuilder.entity("Author", className: "NSManagedObject")
    let book = ModelBuilder.entity("Book", className: "NSManagedObject")
    let publisher = ModelBuilder.entity("Publisher", className: "NSManagedObject")
    let reader = ModelBuilder.entity("Reader", className: "NSManagedObject")
    let shelf = ModelBuilder.entity("Shelf", className: "NSManagedObject")
    let (shelfBooks, bookShelf) = ModelBuilder.pair(
        "books", from: shelf, toMany: true, "shelf", to: book, toMany: false, ordered: true)
    let (authorBooks, bookAuthors) = ModelBuilder.pair(
        "books", from: author, toMany: true, "authors", to: book, toMany: true)
    let (publisherBooks, bookPublisher) = ModelBuilder.pair(
        "books", from: publisher, toMany: true, "publisher", to: book, toMany: false)
    let favorites = NSRelationshipDescription()
    favorites.name = "favorites"
    favorites.destinationEntity = book
    favorites.maxCount = 0
    author.properties = [ModelBuilder.attribute("name", .stringAttributeType), authorBooks]
    book.properties = [
        ModelBuilder.attribute("title", .stringAttributeType),
        ModelBuilder.attribute("pages", .integer64AttributeType, defaultValue: 0),
        bookShelf, bookAuthors, bookPublisher,
    ]
    publisher.properties = [ModelBuilder.attribute("name", .stringAttributeType), publisherBooks]
    reader.properties = [ModelBuilder.attribute("name", .stringAttributeType), favorites]
    shelf.properties = [ModelBuilder.attribute("name", .stringAttributeType), shelfBooks]
    return ModelBuilder.model(author, book, publisher, reader, shelf)
}

/// One to-many of the library model, by the way it is stored, with the SQL each use of it runs.
struct ToManyCase: CustomTestStringConvertible, Sendable {
    let entity: String
    let key: String
    let storage: String
    let faultSQL: String
    /// The rows' version bumps and column writes, in no set order.
    let rowSQL: [String]
    /// The statement that writes the membership itself, after the rows.
    let memberSQL: String?
    let anySQL: String
    let countSQL: String
    let batchDeleteSQL: String?
    var testDescription: String { "\(entity).\(key) (\(storage))" }
}

let toManyCases: [ToManyCase] = [
    ToManyCase(
        entity: "Author", key: "books", storage: "join table Z_1BOOKS: Z_1AUTHORS → Z_2BOOKS",
        faultSQL: "SELECT t.Z_PK, t.Z_ENT FROM Z_1BOOKS j JOIN ZBOOK t ON t.Z_PK = j.Z_2BOOKS WHERE j.Z_1AUTHORS = ?",
        rowSQL: [
            "UPDATE ZAUTHOR SET Z_OPT = Z_OPT + 1 WHERE Z_PK = ? AND Z_OPT = ?",
            "UPDATE ZBOOK SET Z_OPT = Z_OPT + 1 WHERE Z_PK = ? AND Z_OPT = ?",
        ],
        memberSQL: "INSERT OR IGNORE INTO Z_1BOOKS (Z_1AUTHORS, Z_2BOOKS) VALUES (?, ?)",
        anySQL:
            "SELECT t0.Z_PK, t0.Z_ENT, t0.Z_OPT, t0.ZNAME FROM ZAUTHOR t0 WHERE (EXISTS (SELECT 1 FROM Z_1BOOKS t2 JOIN ZBOOK t1 ON t1.Z_PK = t2.Z_2BOOKS WHERE (t2.Z_1AUTHORS = t0.Z_PK) AND (t1.ZTITLE = ? COLLATE OCD_UNICODE)))",
        countSQL:
            "SELECT t0.Z_PK, t0.Z_ENT, t0.Z_OPT, t0.ZNAME FROM ZAUTHOR t0 WHERE ((SELECT COUNT(*) FROM Z_1BOOKS t2 JOIN ZBOOK t1 ON t1.Z_PK = t2.Z_2BOOKS WHERE (t2.Z_1AUTHORS = t0.Z_PK)) > ?)",
        batchDeleteSQL: "DELETE FROM Z_1BOOKS WHERE Z_1AUTHORS IN (SELECT Z_PK FROM temp.Z_BATCHKEYS WHERE Z_ROOT = 1)"),
    ToManyCase(
        entity: "Reader", key: "favorites", storage: "hidden column Z4FAVORITES",
        faultSQL: "SELECT Z_PK, Z_ENT FROM ZBOOK WHERE Z4FAVORITES = ?",
        rowSQL: ["UPDATE ZREADER SET Z_OPT = Z_OPT + 1 WHERE Z_PK = ? AND Z_OPT = ?"],
        memberSQL: "UPDATE ZBOOK SET Z4FAVORITES = ? WHERE Z_PK = ?",
        anySQL:
            "SELECT t0.Z_PK, t0.Z_ENT, t0.Z_OPT, t0.ZNAME FROM ZREADER t0 WHERE (EXISTS (SELECT 1 FROM ZBOOK t1 WHERE (t1.Z4FAVORITES = t0.Z_PK) AND (t1.ZTITLE = ? COLLATE OCD_UNICODE)))",
        countSQL:
            "SELECT t0.Z_PK, t0.Z_ENT, t0.Z_OPT, t0.ZNAME FROM ZREADER t0 WHERE ((SELECT COUNT(*) FROM ZBOOK t1 WHERE (t1.Z4FAVORITES = t0.Z_PK)) > ?)",
        batchDeleteSQL:
            "UPDATE ZBOOK SET Z4FAVORITES = NULL WHERE Z4FAVORITES IN (SELECT Z_PK FROM temp.Z_BATCHKEYS WHERE Z_ROOT = 4)"
    ),
    ToManyCase(
        entity: "Shelf", key: "books", storage: "inverse key ZSHELF, order Z_FOK_SHELF",
        faultSQL: "SELECT Z_PK, Z_ENT FROM ZBOOK WHERE ZSHELF = ? ORDER BY Z_FOK_SHELF, Z_PK",
        rowSQL: [
            "UPDATE ZBOOK SET Z_OPT = Z_OPT + 1, ZSHELF = ? WHERE Z_PK = ? AND Z_OPT = ?",
            "UPDATE ZSHELF SET Z_OPT = Z_OPT + 1 WHERE Z_PK = ? AND Z_OPT = ?",
        ],
        memberSQL: "UPDATE ZBOOK SET Z_FOK_SHELF = ? WHERE Z_PK = ?",
        anySQL:
            "SELECT t0.Z_PK, t0.Z_ENT, t0.Z_OPT, t0.ZNAME FROM ZSHELF t0 WHERE (EXISTS (SELECT 1 FROM ZBOOK t1 WHERE (t1.ZSHELF = t0.Z_PK) AND (t1.ZTITLE = ? COLLATE OCD_UNICODE)))",
        countSQL:
            "SELECT t0.Z_PK, t0.Z_ENT, t0.Z_OPT, t0.ZNAME FROM ZSHELF t0 WHERE ((SELECT COUNT(*) FROM ZBOOK t1 WHERE (t1.ZSHELF = t0.Z_PK)) > ?)",
        batchDeleteSQL:
            "UPDATE ZBOOK SET ZSHELF = NULL, Z_FOK_SHELF = NULL, Z_OPT = Z_OPT + 1 WHERE ZSHELF IN (SELECT Z_PK FROM temp.Z_BATCHKEYS WHERE Z_ROOT = 5)"
    ),
    ToManyCase(
        entity: "Publisher", key: "books", storage: "inverse key ZPUBLISHER",
        faultSQL: "SELECT Z_PK, Z_ENT FROM ZBOOK WHERE ZPUBLISHER = ?",
        rowSQL: [
            "UPDATE ZBOOK SET Z_OPT = Z_OPT + 1, ZPUBLISHER = ? WHERE Z_PK = ? AND Z_OPT = ?",
            "UPDATE ZPUBLISHER SET Z_OPT = Z_OPT + 1 WHERE Z_PK = ? AND Z_OPT = ?",
        ],
        memberSQL: nil,
        anySQL:
            "SELECT t0.Z_PK, t0.Z_ENT, t0.Z_OPT, t0.ZNAME FROM ZPUBLISHER t0 WHERE (EXISTS (SELECT 1 FROM ZBOOK t1 WHERE (t1.ZPUBLISHER = t0.Z_PK) AND (t1.ZTITLE = ? COLLATE OCD_UNICODE)))",
        countSQL:
            "SELECT t0.Z_PK, t0.Z_ENT, t0.Z_OPT, t0.ZNAME FROM ZPUBLISHER t0 WHERE ((SELECT COUNT(*) FROM ZBOOK t1 WHERE (t1.ZPUBLISHER = t0.Z_PK)) > ?)",
        batchDeleteSQL:
            "UPDATE ZBOOK SET ZPUBLISHER = NULL, Z_OPT = Z_OPT + 1 WHERE ZPUBLISHER IN (SELECT Z_PK FROM temp.Z_BATCHKEYS WHERE Z_ROOT = 3)"
    ),
]

extension SQLRecorder {
    /// The statements since the last call, without transaction and pragma bookkeeping.
    func take() -> [String] {
        defer { clear() }
        return statements.filter { !$0.hasPrefix("PRAGMA") && !$0.hasPrefix("BEGIN") && !$0.hasPrefix("COMMIT") }
    }
}

@Suite struct GeneratedSQLTests {
    /// A context on a store holding one of each object, those objects fetched as faults
    /// (relationships unread), and a recorder that starts empty.
    private func library() throws -> (NSManagedObjectContext, SQLRecorder, [String: NSManagedObject]) {
        let writer = try makeContext(libraryModel())
        try writer.performAndWait {
            for name in ["Author", "Book", "Publisher", "Reader", "Shelf"] {
                NSEntityDescription.insertNewObject(forEntityName: name, into: writer)
            }
            try writer.save()
        }
        let context = siblingContext(of: writer)
        let objects = try context.performAndWait {
            try Dictionary(
                uniqueKeysWithValues: ["Author", "Book", "Publisher", "Reader", "Shelf"].map { name in
                    (name, try #require(try context.fetch(NSFetchRequest<NSManagedObject>(entityName: name)).first))
                })
        }
        let recorder = SQLRecorder(context)
        return (context, recorder, objects)
    }

    private func schema(of context: NSManagedObjectContext) -> SQLSchema {
        (context.persistentStoreCoordinator!.persistentStores[0].backend as! SQLiteStore).schema
    }

    /// The schema's one description of each to-many's storage.
    @Test(arguments: toManyCases) func storageIsDecidedOnce(_ relationship: ToManyCase) throws {
        let (context, _, _) = try library()
        let entity = try #require(
            context.persistentStoreCoordinator?.managedObjectModel.entitiesByName[relationship.entity])
        let described: String
        switch schema(of: context).storage(of: try #require(entity.relationshipsByName[relationship.key])) {
        case .joinTable(let join):
            described = "join table \(join.name): \(join.sourceColumn) → \(join.destinationColumn)"
        case .hiddenColumn(let column): described = "hidden column \(column)"
        case .inverseKey(_, let column, let order?): described = "inverse key \(column), order \(order)"
        case .inverseKey(_, let column, nil): described = "inverse key \(column)"
        case nil: described = "none"
        }
        #expect(described == relationship.storage)
    }

    @Test(arguments: toManyCases) func faultingReadsTheMembers(_ relationship: ToManyCase) throws {
        let (context, recorder, objects) = try library()
        context.performAndWait {
            _ = objects[relationship.entity]!.mutableSetOrOrderedSet(relationship.key).count
        }
        #expect(recorder.take() == [relationship.faultSQL])
    }

    @Test(arguments: toManyCases) func savingAMemberWritesItsStorage(_ relationship: ToManyCase) throws {
        let (context, recorder, objects) = try library()
        try context.performAndWait {
            let owner = objects[relationship.entity]!
            let book = objects["Book"]!
            // Both sides loaded first: the save's statements alone are left.
            _ = owner.mutableSetOrOrderedSet(relationship.key).count
            if let inverse = owner.entity.relationshipsByName[relationship.key]?.inverseRelationship {
                _ =
                    inverse.isToMany
                    ? book.mutableSetOrOrderedSet(inverse.name).count
                    : (book.value(forKey: inverse.name) == nil ? 0 : 1)
            }
            recorder.clear()
            owner.addMember(objects["Book"]!, to: relationship.key)
            try context.save()
        }
        // Rows are written in no set order; the membership's own statement comes last.
        var statements = recorder.take()
        if let member = relationship.memberSQL {
            #expect(statements.last == member)
            statements.removeLast()
        }
        #expect(statements.sorted() == relationship.rowSQL.sorted())
    }

    @Test(arguments: toManyCases) func predicatesJoinThroughTheStorage(_ relationship: ToManyCase) throws {
        let (context, recorder, _) = try library()
        try context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: relationship.entity)
            request.predicate = NSPredicate(format: "ANY \(relationship.key).title == %@", "x")
            _ = try context.fetch(request)
            #expect(recorder.take() == [relationship.anySQL])
            request.predicate = NSPredicate(format: "\(relationship.key).@count > 1")
            _ = try context.fetch(request)
            #expect(recorder.take() == [relationship.countSQL])
        }
    }

    @Test(arguments: toManyCases) func batchDeletesClearTheStorage(_ relationship: ToManyCase) throws {
        let (context, recorder, _) = try library()
        try context.performAndWait {
            _ = try context.execute(
                NSBatchDeleteRequest(
                    fetchRequest: NSFetchRequest<NSFetchRequestResult>(entityName: relationship.entity)))
        }
        let statements = recorder.take()
        let table = "Z" + relationship.entity.uppercased()
        let number = ["Author": 1, "Reader": 4, "Shelf": 5, "Publisher": 3][relationship.entity]!
        #expect(
            statements == [
                "DROP TABLE IF EXISTS temp.Z_BATCHKEYS",
                "CREATE TEMP TABLE Z_BATCHKEYS (Z_ROOT INTEGER, Z_PK INTEGER, Z_ENT INTEGER, Z_WAVE INTEGER, PRIMARY KEY (Z_ROOT, Z_PK))",
                "INSERT INTO temp.Z_BATCHKEYS (Z_ROOT, Z_PK, Z_ENT, Z_WAVE) SELECT \(number), t0.Z_PK, t0.Z_ENT, 0 FROM \(table) t0",
                "SELECT DISTINCT Z_ENT FROM temp.Z_BATCHKEYS WHERE Z_WAVE = 0",
                "SELECT DISTINCT Z_ENT FROM temp.Z_BATCHKEYS WHERE Z_WAVE = 1",
                "SELECT DISTINCT Z_ENT FROM temp.Z_BATCHKEYS",
            ] + [relationship.batchDeleteSQL].compactMap { $0 } + [
                "SELECT Z_PK, Z_ENT, Z_WAVE FROM temp.Z_BATCHKEYS",
                "DELETE FROM \(table) WHERE Z_PK IN (SELECT Z_PK FROM temp.Z_BATCHKEYS WHERE Z_ROOT = \(number))",
                "DROP TABLE IF EXISTS temp.Z_BATCHKEYS",
            ])
    }

    /// A to-one that is its own inverse (`spouse`): a batch delete clears the survivors' keys.
    @Test func batchDeleteClearsASelfInverseToOne() throws {
        let person = ModelBuilder.entity("Person", className: "NSManagedObject")
        let spouse = NSRelationshipDescription()
        spouse.name = "spouse"
        spouse.destinationEntity = person
        spouse.maxCount = 1
        spouse.inverseRelationship = spouse
        person.properties = [ModelBuilder.attribute("name", .stringAttributeType), spouse]
        let context = try makeContext(ModelBuilder.model(person))
        let recorder = SQLRecorder(context)
        try context.performAndWait {
            let a = NSEntityDescription.insertNewObject(forEntityName: "Person", into: context)
            let b = NSEntityDescription.insertNewObject(forEntityName: "Person", into: context)
            a.setValue("a", forKey: "name")
            b.setValue("b", forKey: "name")
            a.setValue(b, forKey: "spouse")
            try context.save()
            recorder.clear()
            let request = NSFetchRequest<NSFetchRequestResult>(entityName: "Person")
            request.predicate = NSPredicate(format: "name == 'a'")
            _ = try context.execute(NSBatchDeleteRequest(fetchRequest: request))
        }
        #expect(
            recorder.take().contains(
                "UPDATE ZPERSON SET ZSPOUSE = NULL, Z_OPT = Z_OPT + 1 WHERE ZSPOUSE IN (SELECT Z_PK FROM temp.Z_BATCHKEYS WHERE Z_ROOT = 1)"
            ))
        let reader = siblingContext(of: context)
        try reader.performAndWait {
            let survivors = try reader.fetch(NSFetchRequest<NSManagedObject>(entityName: "Person"))
            #expect(survivors.map { $0.value(forKey: "name") as? String } == ["b"])
            #expect(survivors.first?.value(forKey: "spouse") == nil)
        }
    }

    // MARK: Per kind of request

    @Test func fetchAndCount() throws {
        let (context, recorder, _) = try library()
        try context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Book")
            request.predicate = NSPredicate(format: "title BEGINSWITH[c] %@ AND pages > %d", "a", 10)
            request.sortDescriptors = [
                NSSortDescriptor(key: "title", ascending: true), NSSortDescriptor(key: "pages", ascending: false),
            ]
            request.fetchLimit = 5
            request.fetchOffset = 2
            _ = try context.fetch(request)
            #expect(
                recorder.take() == [
                    "SELECT t0.Z_PK, t0.Z_ENT, t0.Z_OPT, t0.ZTITLE, t0.ZPAGES, t0.ZSHELF, t0.ZPUBLISHER FROM ZBOOK t0 WHERE ((OCD_STRING_MATCH(t0.ZTITLE, ?, 0, 1)) AND (t0.ZPAGES > ?)) ORDER BY t0.ZTITLE COLLATE OCD_UNICODE ASC, t0.ZPAGES DESC, t0.Z_PK LIMIT 5 OFFSET 2"
                ])
            _ = try context.count(for: request)
            #expect(
                recorder.take() == [
                    "SELECT COUNT(*) FROM ZBOOK t0 WHERE ((OCD_STRING_MATCH(t0.ZTITLE, ?, 0, 1)) AND (t0.ZPAGES > ?))"
                ])
        }
    }

    @Test func dictionaryFetchGroupsInSQL() throws {
        let (context, recorder, _) = try library()
        try context.performAndWait {
            let request = NSFetchRequest<NSDictionary>(entityName: "Book")
            request.resultType = .dictionaryResultType
            let total = NSExpressionDescription()
            total.name = "total"
            total.expression = NSExpression(forFunction: "sum:", arguments: [NSExpression(forKeyPath: "pages")])
            total.expressionResultType = .integer64AttributeType
            request.propertiesToFetch = ["title", total]
            request.propertiesToGroupBy = ["title"]
            _ = try context.fetch(request)
        }
        #expect(
            recorder.take() == ["SELECT t0.ZTITLE, SUM(t0.ZPAGES) FROM ZBOOK t0 GROUP BY t0.ZTITLE COLLATE OCD_UNICODE"]
        )
    }

    @Test func batchUpdateComputesThenWrites() throws {
        let (context, recorder, _) = try library()
        try context.performAndWait {
            let update = NSBatchUpdateRequest(entityName: "Book")
            update.predicate = NSPredicate(format: "pages < 100")
            update.propertiesToUpdate = ["pages": NSExpression(format: "pages + 1")]
            _ = try context.execute(update)
        }
        #expect(
            recorder.take() == [
                "DROP TABLE IF EXISTS temp.Z_BATCHVALUES",
                "CREATE TEMP TABLE Z_BATCHVALUES (Z_PK INTEGER PRIMARY KEY, V0)",
                "INSERT INTO temp.Z_BATCHVALUES SELECT m.Z_PK, (SELECT (t0.ZPAGES + ?) FROM ZBOOK t0 WHERE (t0.Z_PK = m.Z_PK)) AS V0 FROM ZBOOK m WHERE m.Z_PK IN (SELECT t0.Z_PK FROM ZBOOK t0 WHERE (t0.ZPAGES < ?))",
                "UPDATE ZBOOK SET ZPAGES = (SELECT v.V0 FROM temp.Z_BATCHVALUES v WHERE v.Z_PK = ZBOOK.Z_PK), Z_OPT = Z_OPT + 1 WHERE Z_PK IN (SELECT Z_PK FROM temp.Z_BATCHVALUES)",
                "DROP TABLE temp.Z_BATCHVALUES",
            ])
    }

    @Test func batchInsertTakesKeysOnce() throws {
        let (context, recorder, _) = try library()
        try context.performAndWait {
            _ = try context.execute(
                NSBatchInsertRequest(
                    entityName: "Book", objects: [["title": "A", "pages": 1], ["title": "B", "pages": 2]]))
        }
        #expect(
            recorder.take() == [
                "SELECT MAX(Z_MAX) FROM Z_PRIMARYKEY WHERE Z_ENT IN (2)",
                "SELECT MAX(Z_PK) FROM ZBOOK",
                "INSERT INTO ZBOOK (Z_PK, Z_ENT, Z_OPT, ZTITLE, ZPAGES) VALUES (?, ?, 1, ?, ?)",
                "INSERT INTO ZBOOK (Z_PK, Z_ENT, Z_OPT, ZTITLE, ZPAGES) VALUES (?, ?, 1, ?, ?)",
                "UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT IN (2) AND Z_MAX < ?",
            ])
    }
}

private extension NSManagedObject {
    /// The to-many `key`, ordered or not, firing its fault.
    func mutableSetOrOrderedSet(_ key: String) -> [Any] {
        (entity.relationshipsByName[key]?.isOrdered ?? false)
            ? Array(mutableOrderedSetValue(forKey: key)) : Array(mutableSetValue(forKey: key))
    }

    func addMember(_ member: NSManagedObject, to key: String) {
        if entity.relationshipsByName[key]?.isOrdered ?? false {
            mutableOrderedSetValue(forKey: key).add(member)
        } else {
            mutableSetValue(forKey: key).add(member)
        }
    }
}
