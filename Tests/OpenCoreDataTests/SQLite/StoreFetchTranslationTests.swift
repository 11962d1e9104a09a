@testable import OpenCoreDataCore
@testable import OpenCoreDataSQL
@testable import OpenCoreDataSQLite
import OpenCoreDataStoreTestSupport
import Testing

// What cannot run in SQL fails the fetch with a clear Core Data error naming the
// offending part (never a silent load of every row), and what can runs as one
// statement.

@Suite struct StoreFetchTranslationTests {
    let model = PhotoLibraryFixture.model()

    func failure(
        _ entity: String = "Photo", predicate: NSPredicate? = nil, sort: [NSSortDescriptor]? = nil,
        model: NSManagedObjectModel? = nil
    ) throws -> NSError? {
        let context = try makeContext(model ?? self.model)
        return context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: entity)
            request.predicate = predicate
            request.sortDescriptors = sort
            return #expect(throws: NSError.self) { try context.fetch(request) }
        }
    }

    func expectFailure(_ error: NSError?, mentioning parts: [String], sourceLocation: SourceLocation = #_sourceLocation)
    {
        #expect(error?.domain == NSCocoaErrorDomain, sourceLocation: sourceLocation)
        #expect(error?.code == NSCoreDataError, sourceLocation: sourceLocation)
        let message = error?.localizedDescription ?? ""
        for part in parts {
            #expect(message.contains(part), "\"\(message)\" does not mention \(part)", sourceLocation: sourceLocation)
        }
    }

    @Test func unknownKeysAreNamed() throws {
        expectFailure(try failure(predicate: NSPredicate(format: "colour == 'red'")), mentioning: ["colour", "Photo"])
        expectFailure(
            try failure(predicate: NSPredicate(format: "whoTook.colour == 'red'")),
            mentioning: ["colour", "Photographer"])
        expectFailure(
            try failure(predicate: NSPredicate(format: "ANY tags.colour == 'red'")), mentioning: ["colour", "Tag"])
        expectFailure(
            try failure(predicate: NSPredicate(format: "SUBQUERY(tags, $t, $t.hue == 1).@count > 0")),
            mentioning: ["hue"])
        expectFailure(try failure(predicate: NSPredicate(format: "title.initial == 'a'")), mentioning: ["initial"])
        expectFailure(try failure(sort: [NSSortDescriptor(key: "size", ascending: true)]), mentioning: ["size"])
    }

    @Test func anInvalidRegularExpressionFailsTheFetch() throws {
        // A constant pattern is checked before the query runs.
        let constant = try failure(predicate: NSPredicate(format: "title MATCHES %@", "a)("))
        expectFailure(constant, mentioning: ["a)(", "regular expression"])
        expectFailure(
            try failure(predicate: NSPredicate(format: "title MATCHES[cd] %@", "[z-a]")), mentioning: ["[z-a]"])

        // A pattern read from a row fails the query that meets it; valid ones still match.
        let context = try makeContext(model)
        try context.performAndWait {
            let photo = NSEntityDescription.insertNewObject(forEntityName: "Photo", into: context)
            photo.setValue("ab+", forKey: "title")
            try context.save()
            let request = NSFetchRequest<NSManagedObject>(entityName: "Photo")
            request.predicate = NSPredicate(format: "%@ MATCHES title", "abbb")
            #expect(try context.fetch(request).count == 1)
            photo.setValue("(unclosed", forKey: "title")
            try context.save()
            let error = #expect(throws: NSError.self) { try context.fetch(request) }
            #expect(error?.localizedDescription.contains("(unclosed") == true)
        }
        // In memory, which cannot throw, an invalid pattern matches nothing.
        #expect(!NSPredicate(format: "SELF MATCHES %@", "a)(").evaluate(with: "a)("))
    }

    @Test func untranslatablePredicatesThrow() throws {
        expectFailure(try failure(predicate: NSPredicate(block: { _, _ in true })), mentioning: ["block"])
        let custom = NSComparisonPredicate(
            leftExpression: NSExpression(forKeyPath: "title"), rightExpression: NSExpression(forConstantValue: "a"),
            customSelector: Selector("isFunnierThan:"))
        expectFailure(try failure(predicate: custom), mentioning: ["custom selector"])
        expectFailure(
            try failure(predicate: NSPredicate(format: "FUNCTION(title, 'uppercaseString') == 'A'")),
            mentioning: ["FUNCTION"])
        expectFailure(try failure(predicate: NSPredicate(format: "title == $NAME")), mentioning: ["$NAME"])
        expectFailure(
            try failure(predicate: NSPredicate(format: "whoTook.favorites[FIRST].name == 'a'")),
            mentioning: ["unordered"])
        expectFailure(
            try failure(predicate: NSPredicate(format: "tags == %@", [1, 2])), mentioning: ["two collections"])
        expectFailure(try failure(predicate: NSPredicate(format: "tags.name + 1 > 2")), mentioning: ["collection"])
        expectFailure(try failure(predicate: NSPredicate(format: "ANYKEY == 'a'")), mentioning: ["ANYKEY"])
        expectFailure(
            try failure(sort: [NSSortDescriptor(key: "tags.name", ascending: true)]),
            mentioning: ["tags.name", "collection"])
        expectFailure(
            try failure(sort: [NSSortDescriptor(key: "title", ascending: true) { _, _ in .orderedSame }]),
            mentioning: ["comparator"])
    }

    /// What the documentation lists as failing at fetch time fails with an error, never a crash.
    @Test func documentedFetchTimeErrors() throws {
        for operation in ["UNION", "INTERSECT", "MINUS"] {
            let predicate = NSPredicate(format: "tags.name \(operation) {'x'} CONTAINS 'x'")
            expectFailure(try failure(predicate: predicate), mentioning: [operation, "need constant collections"])
        }
        for name in [
            "@distinctUnionOfObjects", "@unionOfObjects", "@distinctUnionOfArrays", "@unionOfArrays",
            "@distinctUnionOfSets",
        ] {
            let predicate = NSPredicate(format: "ANY tags.\(name).name == 'x'")
            expectFailure(
                try failure(predicate: predicate), mentioning: ["collection operator \(name)", "tags.\(name).name"])
        }
        let items = CornerCasesModel.model()
        expectFailure(
            try failure("Item", predicate: NSPredicate(format: "settings == 'x'"), model: items),
            mentioning: ["comparing attribute 'settings' (Transformable)"])
        expectFailure(
            try failure("Item", predicate: NSPredicate(format: "photo == %@", Data([1])), model: items),
            mentioning: ["comparing attribute 'photo' (stored outside the database when large)"])
        expectFailure(
            try failure("Item", predicate: NSPredicate(format: "reference != %@", "x"), model: items),
            mentioning: ["comparing attribute 'reference' (Object ID)"])
        expectFailure(
            try failure("Item", sort: [NSSortDescriptor(key: "settings", ascending: true)], model: items),
            mentioning: ["settings"])
        expectFailure(
            try failure(predicate: NSPredicate(format: "views BETWEEN tags.weight")),
            mentioning: ["BETWEEN with a to-many collection as its bounds"])
    }

    @Test func substitutedVariablesRun() throws {
        let context = try makeContext(model)
        try context.performAndWait { () throws -> Void in
            let request = NSFetchRequest<NSManagedObject>(entityName: "Photo")
            request.predicate = NSPredicate(format: "title == $NAME").withSubstitutionVariables(["NAME": "x"])
            #expect(try context.fetch(request).isEmpty)
        }
    }

    /// The SQL of a fetch, straight from the builder.
    func sql(
        _ format: String, _ arguments: Any..., sort: [NSSortDescriptor] = [], entity: String = "Photographer"
    ) throws -> String {
        model.freeze()
        let target = model.entitiesByName[entity]!
        let schema = SQLSchema(entities: model.entities)
        let fetch = StoreFetch(
            entity: target, predicate: NSPredicate(format: format, argumentArray: arguments), sortDescriptors: sort,
            limit: 0, offset: 0, includesSubentities: true)
        return try SQLQueryBuilder(schema: schema, entity: target).fromAndWhere(fetch).sql
    }

    @Test func oneStatementWithCorrelatedSubqueries() throws {
        let any = try sql("ANY photos.title CONTAINS[c] %@", "sun")
        #expect(
            any
                == "FROM ZPHOTOGRAPHER t0 WHERE (EXISTS (SELECT 1 FROM ZPHOTO t1 WHERE (t1.ZWHOTOOK = t0.Z_PK) AND (OCD_STRING_MATCH(t1.ZTITLE, ?, 2, 1))))"
        )
        let count = try sql("photos.@count > 5")
        #expect(
            count == "FROM ZPHOTOGRAPHER t0 WHERE ((SELECT COUNT(*) FROM ZPHOTO t1 WHERE (t1.ZWHOTOOK = t0.Z_PK)) > ?)")
        let joined = try sql("whoTook.name == 'a' AND whoTook.rating > 2", entity: "Photo")
        #expect(joined.components(separatedBy: "JOIN").count == 2, "one LEFT JOIN shared by both key paths: \(joined)")
        let all = try sql("ALL favorites.name BEGINSWITH 'a'")
        #expect(
            all.contains("NOT EXISTS") && all.contains("t1.Z2FAVORITES = t0.Z_PK"),
            "inverse-less to-many through its hidden column: \(all)")
        let sorted = try sql(
            "TRUEPREDICATE", sort: [NSSortDescriptor(key: "name", ascending: true, selector: .localizedStandardCompare)]
        )
        #expect(sorted == "FROM ZPHOTOGRAPHER t0 ORDER BY t0.ZNAME COLLATE OCD_STANDARD ASC, t0.Z_PK")
    }
}
