import Foundation
import OpenCoreData
import OpenCoreDataPostgreSQL
import OpenCoreDataStoreTestSupport
import OpenCoreDataTestSupport
import Testing

/// A PostgreSQL store used as an app uses a store: added through `NSPersistentContainer`
/// with `NSPostgreSQLStoreType`, objects saved by one coordinator and read by another (as
/// another server process would), every attribute type, every kind of relationship,
/// optimistic locking between writers, and clear errors for what the engine refuses.
@Suite(
    .enabled(
        if: PostgreSQLTestServer.testsAreEnabled,
        "PostgreSQL server binaries not found (install postgresql, or set OPENCOREDATA_POSTGRES_URL)"))
struct PostgreSQLStoreTests {
    /// Author ⟷ Book (ordered to-many, inverse to-one), Book ⟷ Tag (many-to-many),
    /// Novel a subentity of Book.
    static func libraryModel(withAuthorNickname: Bool = false) -> NSManagedObjectModel {
        let author = ModelBuilder.entity("Author", className: "NSManagedObject")
        let book = ModelBuilder.entity("Book", className: "NSManagedObject")
        let novel = ModelBuilder.entity("Novel", className: "NSManagedObject")
        let tag = ModelBuilder.entity("Tag", className: "NSManagedObject")
        let (books, bookAuthor) = ModelBuilder.pair(
            "books", from: author, toMany: true, rule: .cascadeDeleteRule, "author", to: book, toMany: false,
            ordered: true)
        let (bookTags, tagBooks) = ModelBuilder.pair("tags", from: book, toMany: true, "books", to: tag, toMany: true)
        func attribute(_ name: String, _ type: NSAttributeType, optional: Bool = true) -> NSAttributeDescription {
            ModelBuilder.attribute(name, type, optional: optional)
        }
        author.properties =
            [
                attribute("name", .stringAttributeType, optional: false), attribute("born", .dateAttributeType),
                attribute("rating", .doubleAttributeType), attribute("score", .integer64AttributeType),
                attribute("active", .booleanAttributeType), attribute("identifier", .UUIDAttributeType),
                attribute("photo", .binaryDataAttributeType), attribute("homepage", .URIAttributeType),
                attribute("weight", .floatAttributeType), books,
            ] + (withAuthorNickname ? [attribute("nickname", .stringAttributeType)] : [])
        book.properties = [
            attribute("title", .stringAttributeType), attribute("pages", .integer16AttributeType),
            attribute("copies", .integer32AttributeType), attribute("price", .decimalAttributeType), bookAuthor,
            bookTags,
        ]
        novel.properties = [attribute("genre", .stringAttributeType)]
        book.subentities = [novel]
        tag.properties = [attribute("name", .stringAttributeType), tagBooks]
        return ModelBuilder.model(author, book, novel, tag)
    }

    /// A container whose one store is the PostgreSQL database at `url`.
    static func container(
        _ url: URL, model: NSManagedObjectModel = libraryModel(),
        configure: (NSPersistentStoreDescription) -> Void = {
            _ in
        }
    ) throws -> NSPersistentContainer {
        let container = NSPersistentContainer(name: "Library", managedObjectModel: model)
        let description = NSPersistentStoreDescription(url: url)
        description.type = NSPostgreSQLStoreType
        configure(description)
        container.persistentStoreDescriptions = [description]
        var failure: Error?
        container.loadPersistentStores { _, error in failure = error }
        if let failure { throw failure }
        return container
    }

    @Test func objectsSavedByOneCoordinatorAreReadByAnotherWithEveryValueIntact() throws {
        let url = try PostgreSQLTestServer.makeDatabase()
        let born = Date(timeIntervalSinceReferenceDate: -1_234_567.25)
        let identifier = UUID()
        let photo = Data([0, 1, 2, 0xFF, 0x5C, 0x27])
        do {
            let writer = try Self.container(url)
            let context = writer.viewContext
            let author = NSEntityDescription.insertNewObject(forEntityName: "Author", into: context)
            author.setValue("Émile Zola 🍐 \"quoted\" 'single'", forKey: "name")
            author.setValue(born, forKey: "born")
            author.setValue(4.75, forKey: "rating")
            author.setValue(Int64.max, forKey: "score")
            author.setValue(true, forKey: "active")
            author.setValue(identifier, forKey: "identifier")
            author.setValue(photo, forKey: "photo")
            author.setValue(URL(string: "https://example.org/zola?x=1")!, forKey: "homepage")
            author.setValue(Float(61.5), forKey: "weight")
            let germinal = NSEntityDescription.insertNewObject(forEntityName: "Novel", into: context)
            germinal.setValue("Germinal", forKey: "title")
            germinal.setValue(Int16(591), forKey: "pages")
            germinal.setValue(Int32(-7), forKey: "copies")
            germinal.setValue(Decimal(string: "12.5"), forKey: "price")
            germinal.setValue("naturalism", forKey: "genre")
            let essay = NSEntityDescription.insertNewObject(forEntityName: "Book", into: context)
            essay.setValue("J'accuse", forKey: "title")
            author.setValue(NSOrderedSet(array: [germinal, essay]), forKey: "books")
            let classic = NSEntityDescription.insertNewObject(forEntityName: "Tag", into: context)
            classic.setValue("classic", forKey: "name")
            let french = NSEntityDescription.insertNewObject(forEntityName: "Tag", into: context)
            french.setValue("french", forKey: "name")
            germinal.setValue(Set([classic, french]), forKey: "tags")
            essay.setValue(Set([french]), forKey: "tags")
            try context.save()
        }

        let reader = try Self.container(url)
        let context = reader.viewContext
        let authors = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Author"))
        #expect(authors.count == 1)
        let author = try #require(authors.first)
        #expect(author.value(forKey: "name") as? String == "Émile Zola 🍐 \"quoted\" 'single'")
        #expect(author.value(forKey: "born") as? Date == born)
        #expect(author.value(forKey: "rating") as? Double == 4.75)
        #expect(author.value(forKey: "score") as? Int64 == Int64.max)
        #expect(author.value(forKey: "active") as? Bool == true)
        #expect(author.value(forKey: "identifier") as? UUID == identifier)
        #expect(author.value(forKey: "photo") as? Data == photo)
        #expect(author.value(forKey: "homepage") as? URL == URL(string: "https://example.org/zola?x=1"))
        #expect(author.value(forKey: "weight") as? Float == 61.5)

        let books = try #require(author.value(forKey: "books") as? NSOrderedSet)
        #expect(
            books.array.compactMap { ($0 as? NSManagedObject)?.value(forKey: "title") as? String } == [
                "Germinal", "J'accuse",
            ])
        let germinal = try #require(books.firstObject as? NSManagedObject)
        #expect(germinal.entity.name == "Novel")
        #expect(germinal.value(forKey: "genre") as? String == "naturalism")
        #expect(germinal.value(forKey: "pages") as? Int16 == 591)
        #expect(germinal.value(forKey: "copies") as? Int32 == -7)
        #expect(germinal.value(forKey: "price") as? Decimal == Decimal(string: "12.5"))
        #expect(germinal.value(forKey: "author") as? NSManagedObject == author)
        let tags = try #require(germinal.value(forKey: "tags") as? Set<NSManagedObject>)
        #expect(Set(tags.compactMap { $0.value(forKey: "name") as? String }) == ["classic", "french"])

        // The many-to-many from the other side, and a fetch that follows it in SQL.
        let frenchBooks = NSFetchRequest<NSManagedObject>(entityName: "Book")
        frenchBooks.predicate = NSPredicate(format: "ANY tags.name == %@", "french")
        frenchBooks.sortDescriptors = [NSSortDescriptor(key: "title", ascending: false)]
        #expect(
            try context.fetch(frenchBooks).compactMap { $0.value(forKey: "title") as? String } == [
                "J'accuse", "Germinal",
            ])
    }

    /// A save's inserts into one table go as multi-row statements, of at most 1,000 rows and
    /// 65,535 values: wide rows (74 values) split by values, narrow ones by rows, two entities
    /// interleaved; every row and value arrives.
    /// A sort by an indexed attribute reads its index either way, as on SQLite: the store
    /// sorts NULLs first ascending and last descending, so its indexes list their column
    /// `NULLS FIRST` (PostgreSQL's default, NULLs last, serves neither direction, and a page
    /// of a million rows sorted that way read them all).
    @Test func sortsByAnIndexedAttributeReadTheIndexBothWays() throws {
        let score = ModelBuilder.attribute("score", .integer64AttributeType)
        score.isIndexed = true
        let item = NSEntityDescription()
        item.name = "Item"
        item.properties = [score]
        let model = NSManagedObjectModel()
        model.entities = [item]
        let url = try PostgreSQLTestServer.makeDatabase()
        _ = try Self.container(url, model: model)
        let connection = try PostgreSQLConnection(url: url)
        _ = try connection.execute("SET enable_seqscan = off")
        // The orders the store's sorts ask for (SQLDialect.sortDirection), ties by primary key.
        for (order, scan) in [
            ("ASC NULLS FIRST", "Index Scan using"), ("DESC NULLS LAST", "Index Scan Backward using"),
        ] {
            let plan = try connection.execute(
                "EXPLAIN SELECT Z_PK FROM ZITEM ORDER BY ZSCORE \(order), Z_PK LIMIT 100")
            let text = (0..<plan.rowCount).compactMap { plan.text($0, 0) }.joined(separator: "\n")
            #expect(text.contains(scan) && text.contains("zitem_zscore_index"), "\(order):\n\(text)")
        }
    }

    @Test func manyInsertsOfWideAndNarrowEntitiesArriveWhole() throws {
        let url = try PostgreSQLTestServer.makeDatabase()
        let wide = ModelBuilder.entity("Wide", className: "NSManagedObject")
        wide.properties =
            (0..<70).map { ModelBuilder.attribute("v\($0)", .integer64AttributeType) } + [
                ModelBuilder.attribute("label", .stringAttributeType)
            ]
        let note = ModelBuilder.entity("Note", className: "NSManagedObject")
        note.properties = [ModelBuilder.attribute("text", .stringAttributeType)]
        let model = ModelBuilder.model(wide, note)
        do {
            let context = try Self.container(url, model: model).viewContext
            for index in 0..<2_345 {
                let row = NSEntityDescription.insertNewObject(forEntityName: "Wide", into: context)
                for column in 0..<70 where (index + column) % 7 != 0 {
                    row.setValue(Int64(index * 100 + column), forKey: "v\(column)")
                }
                row.setValue(index % 5 == 0 ? nil : "wide \(index)", forKey: "label")
                let text = NSEntityDescription.insertNewObject(forEntityName: "Note", into: context)
                text.setValue("note \(index) ✎", forKey: "text")
            }
            try context.save()
        }
        let context = try Self.container(url, model: model).viewContext
        let request = NSFetchRequest<NSManagedObject>(entityName: "Wide")
        request.sortDescriptors = [NSSortDescriptor(key: "v1", ascending: true)]
        let rows = try context.fetch(request)
        #expect(rows.count == 2_345)
        var labels = Set<String>()
        for row in rows {
            let label = row.value(forKey: "label") as? String
            let index = try #require(
                (1...2).lazy.compactMap { column in
                    (row.value(forKey: "v\(column)") as? Int64).map { Int(($0 - Int64(column)) / 100) }
                }.first)
            for column in 0..<70 {
                let expected: Int64? = (index + column) % 7 == 0 ? nil : Int64(index * 100 + column)
                #expect(row.value(forKey: "v\(column)") as? Int64 == expected, "row \(index) v\(column)")
            }
            #expect(label == (index % 5 == 0 ? nil : "wide \(index)"))
            if let label { labels.insert(label) }
        }
        #expect(labels.count == 2_345 - 469)
        let notes = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Note"))
        #expect(Set(notes.compactMap { $0.value(forKey: "text") as? String }).count == 2_345)
    }

    /// Rows are read in PostgreSQL's binary format; a column altered by hand to a type whose
    /// binary format the client does not read is read as text instead, with its value.
    @Test func aColumnAlteredToAnotherTypeIsStillReadWithItsValue() throws {
        let url = try PostgreSQLTestServer.makeDatabase()
        do {
            let context = try Self.container(url).viewContext
            let author = NSEntityDescription.insertNewObject(forEntityName: "Author", into: context)
            author.setValue("Colette", forKey: "name")
            author.setValue(Int64(1_873), forKey: "score")
            author.setValue(0.1, forKey: "rating")
            author.setValue(true, forKey: "active")
            try context.save()
        }
        // An integer kept as text, a double as a 4-byte real, a Boolean as an oid: each read as
        // the text format reads it, whatever the others' columns are.
        let connection = try PostgreSQLConnection(url: url)
        try connection.execute("ALTER TABLE ZAUTHOR ALTER COLUMN ZSCORE TYPE text")
        try connection.execute("ALTER TABLE ZAUTHOR ALTER COLUMN ZRATING TYPE real")
        try connection.execute("ALTER TABLE ZAUTHOR ALTER COLUMN ZACTIVE TYPE oid")
        connection.close()
        let context = try Self.container(url).viewContext
        let author = try #require(try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Author")).first)
        #expect(author.value(forKey: "score") as? Int64 == 1_873)
        #expect(author.value(forKey: "rating") as? Double == 0.1)
        #expect(author.value(forKey: "active") as? Bool == true)
        #expect(author.value(forKey: "name") as? String == "Colette")
    }

    @Test func predicatesSortingCountsAndDictionariesRunInTheDatabase() throws {
        let url = try PostgreSQLTestServer.makeDatabase()
        let container = try Self.container(url)
        let context = container.viewContext
        for (title, pages) in [("b", 300), ("a", 120), ("c", 80), ("Z", 500), ("é", 10)] {
            let book = NSEntityDescription.insertNewObject(forEntityName: "Book", into: context)
            book.setValue(title, forKey: "title")
            book.setValue(Int16(pages), forKey: "pages")
        }
        let untitled = NSEntityDescription.insertNewObject(forEntityName: "Book", into: context)
        untitled.setValue(Int16(1), forKey: "pages")
        try context.save()
        context.reset()

        let long = NSFetchRequest<NSManagedObject>(entityName: "Book")
        long.predicate = NSPredicate(format: "pages >= %d AND title != nil", 100)
        long.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
        // Swift's order of strings: "Z" (U+005A) before "a"; "é" (U+00E9) last.
        #expect(try context.fetch(long).compactMap { $0.value(forKey: "title") as? String } == ["Z", "a", "b"])

        let all = NSFetchRequest<NSManagedObject>(entityName: "Book")
        all.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
        #expect(
            try context.fetch(all).map { $0.value(forKey: "title") as? String } == [nil, "Z", "a", "b", "c", "é"])
        all.fetchOffset = 2
        all.fetchLimit = 0
        #expect(try context.fetch(all).count == 4)
        all.fetchLimit = 2
        #expect(try context.fetch(all).compactMap { $0.value(forKey: "title") as? String } == ["a", "b"])

        let inList = NSFetchRequest<NSManagedObject>(entityName: "Book")
        inList.predicate = NSPredicate(format: "title IN %@ OR pages < 5", ["a", "c", "missing"])
        #expect(try context.count(for: inList) == 3)

        let ids = NSFetchRequest<NSManagedObjectID>(entityName: "Book")
        ids.resultType = .managedObjectIDResultType
        ids.predicate = NSPredicate(format: "pages > 100")
        #expect(try context.fetch(ids).count == 3)

        let total = NSExpressionDescription()
        total.name = "total"
        total.expression = NSExpression(forFunction: "sum:", arguments: [NSExpression(forKeyPath: "pages")])
        total.expressionResultType = .integer64AttributeType
        let sums = NSFetchRequest<NSDictionary>(entityName: "Book")
        sums.resultType = .dictionaryResultType
        sums.propertiesToFetch = [total]
        let dictionaries = try context.fetch(sums)
        #expect(dictionaries.count == 1)
        #expect((dictionaries.first?["total"] as? NSNumber)?.int64Value == 1011)
    }

    @Test func updatesAndDeletesReachOtherCoordinatorsAndConcurrentWritersConflict() throws {
        let url = try PostgreSQLTestServer.makeDatabase()
        let first = try Self.container(url)
        let author = NSEntityDescription.insertNewObject(forEntityName: "Author", into: first.viewContext)
        author.setValue("Balzac", forKey: "name")
        author.setValue(Int64(1), forKey: "score")
        let book = NSEntityDescription.insertNewObject(forEntityName: "Book", into: first.viewContext)
        book.setValue("Le Père Goriot", forKey: "title")
        book.setValue(author, forKey: "author")
        try first.viewContext.save()

        let second = try Self.container(url)
        let fetch = NSFetchRequest<NSManagedObject>(entityName: "Author")
        let secondAuthor = try #require(try second.viewContext.fetch(fetch).first)
        #expect(secondAuthor.value(forKey: "score") as? Int64 == 1)

        // The first writer changes the row; the second, holding the old version, conflicts.
        author.setValue(Int64(2), forKey: "score")
        try first.viewContext.save()
        secondAuthor.setValue(Int64(3), forKey: "score")
        #expect {
            try second.viewContext.save()
        } throws: { error in
            (error as NSError).code == NSManagedObjectMergeError
        }

        // With a merge policy the second writer's change wins, and everyone reads it.
        second.viewContext.mergePolicy = NSMergeByPropertyObjectTrumpMergePolicy
        try second.viewContext.save()
        first.viewContext.refreshAllObjects()
        #expect(author.value(forKey: "score") as? Int64 == 3)

        // A delete cascades to the books, for every reader.
        first.viewContext.delete(author)
        try first.viewContext.save()
        let third = try Self.container(url)
        #expect(try third.viewContext.count(for: NSFetchRequest<NSManagedObject>(entityName: "Author")) == 0)
        #expect(try third.viewContext.count(for: NSFetchRequest<NSManagedObject>(entityName: "Book")) == 0)
    }

    @Test func theStoreKeepsItsMetadataAndRefusesAnotherModel() throws {
        let url = try PostgreSQLTestServer.makeDatabase()
        let container = try Self.container(url)
        let store = try #require(container.persistentStoreCoordinator.persistentStores.first)
        #expect(store.type == NSPostgreSQLStoreType)
        let uuid = try #require(store.metadata[NSStoreUUIDKey] as? String)

        // Metadata set by the app is kept with the next save, and read without opening the store.
        container.persistentStoreCoordinator.setMetadata(
            store.metadata.merging(["appVersion": "2.1"]) { $1 }, for: store)
        let author = NSEntityDescription.insertNewObject(forEntityName: "Author", into: container.viewContext)
        author.setValue("Hugo", forKey: "name")
        try container.viewContext.save()
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(
            ofType: NSPostgreSQLStoreType, at: url)
        #expect(metadata[NSStoreUUIDKey] as? String == uuid)
        #expect(metadata["appVersion"] as? String == "2.1")
        #expect(container.managedObjectModel.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata))

        // Reopened with the same model: the same store. With a changed model and migration
        // turned off: refused. With the container's defaults (automatic, inferred): migrated.
        #expect(try Self.container(url).persistentStoreCoordinator.persistentStores.first?.identifier == uuid)
        #expect {
            _ = try Self.container(url, model: Self.libraryModel(withAuthorNickname: true)) {
                $0.shouldMigrateStoreAutomatically = false
            }
        } throws: { error in
            (error as NSError).code == NSPersistentStoreIncompatibleVersionHashError
        }
        let migrated = try Self.container(url, model: Self.libraryModel(withAuthorNickname: true))
        #expect(migrated.persistentStoreCoordinator.persistentStores.first?.identifier == uuid)
        let hugo = try #require(
            try migrated.viewContext.fetch(NSFetchRequest<NSManagedObject>(entityName: "Author")).first)
        #expect(hugo.value(forKey: "name") as? String == "Hugo")
        #expect(hugo.value(forKey: "nickname") == nil)
        let after = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSPostgreSQLStoreType, at: url)
        #expect(after["appVersion"] as? String == "2.1")
        #expect(migrated.managedObjectModel.isConfiguration(withName: nil, compatibleWithStoreMetadata: after))
    }

    @Test func destroyingTheStoreDropsItsTablesAndNothingElse() throws {
        let url = try PostgreSQLTestServer.makeDatabase()
        let container = try Self.container(url)
        let author = NSEntityDescription.insertNewObject(forEntityName: "Author", into: container.viewContext)
        author.setValue("Sand", forKey: "name")
        try container.viewContext.save()
        let uuid = container.persistentStoreCoordinator.persistentStores.first?.identifier
        // A table of the app's own beside the store, and a second store in another schema.
        let admin = try PostgreSQLConnection(url: url)
        try admin.execute("CREATE TABLE zones (id bigint)")
        let tenant = try Self.container(url) {
            $0.setOption("tenant" as NSString, forKey: NSPostgreSQLSchemaNameOption)
        }
        let other = NSEntityDescription.insertNewObject(forEntityName: "Author", into: tenant.viewContext)
        other.setValue("Musset", forKey: "name")
        try tenant.viewContext.save()

        try container.persistentStoreCoordinator.destroyPersistentStore(at: url, ofType: NSPostgreSQLStoreType)
        #expect(container.persistentStoreCoordinator.persistentStores.isEmpty)
        #expect(try admin.execute("SELECT to_regclass('public.zones') IS NOT NULL").value(0, 0) == .boolean(true))
        #expect(try admin.execute("SELECT to_regclass('public.zauthor') IS NULL").value(0, 0) == .boolean(true))
        let fresh = try Self.container(url)
        #expect(fresh.persistentStoreCoordinator.persistentStores.first?.identifier != uuid)
        #expect(try fresh.viewContext.count(for: NSFetchRequest<NSManagedObject>(entityName: "Author")) == 0)
        // The other schema's store is whole, and read and destroyed by naming its schema.
        let tenantOptions: [AnyHashable: Any] = [NSPostgreSQLSchemaNameOption: "tenant"]
        let reopened = try Self.container(url) {
            $0.setOption("tenant" as NSString, forKey: NSPostgreSQLSchemaNameOption)
        }
        #expect(try reopened.viewContext.count(for: NSFetchRequest<NSManagedObject>(entityName: "Author")) == 1)
        let tenantUUID = reopened.persistentStoreCoordinator.persistentStores.first?.identifier
        let tenantMetadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(
            ofType: NSPostgreSQLStoreType, at: url, options: tenantOptions)
        #expect(tenantMetadata[NSStoreUUIDKey] as? String == tenantUUID)
        try reopened.persistentStoreCoordinator.destroyPersistentStore(
            at: url, ofType: NSPostgreSQLStoreType, options: tenantOptions)
        #expect(try admin.execute("SELECT to_regclass('tenant.zauthor') IS NULL").value(0, 0) == .boolean(true))
        #expect(try fresh.viewContext.count(for: NSFetchRequest<NSManagedObject>(entityName: "Author")) == 0)
        #expect(try admin.execute("SELECT to_regclass('public.zauthor') IS NOT NULL").value(0, 0) == .boolean(true))
    }

    @Test func whatSQLCannotEvaluateAsMemoryDoesRunsInMemoryOverWhatSQLSelects() throws {
        let url = try PostgreSQLTestServer.makeDatabase()
        let container = try Self.container(url)
        for (title, pages) in [("Nana", 400), ("nana", 5), ("NANA", 300), ("Thérèse", 250), ("Therese", 30)] {
            let book = NSEntityDescription.insertNewObject(forEntityName: "Book", into: container.viewContext)
            book.setValue(title, forKey: "title")
            book.setValue(Int16(pages), forKey: "pages")
        }
        try container.viewContext.save()
        let context = container.newBackgroundContext()
        try context.performAndWait {
            // `[c]` needs Swift's case folding: memory evaluates it, over the rows `pages > 10` selects in SQL.
            let folded = NSFetchRequest<NSManagedObject>(entityName: "Book")
            folded.predicate = NSPredicate(format: "title ==[c] %@ AND pages > 10", "nana")
            folded.sortDescriptors = [NSSortDescriptor(key: "pages", ascending: false)]
            #expect(try context.fetch(folded).compactMap { $0.value(forKey: "title") as? String } == ["Nana", "NANA"])
            #expect(try context.count(for: folded) == 2)
            // Only what SQL selected was loaded: not the five-page "nana".
            #expect(!context.registeredObjects.contains { $0.value(forKey: "pages") as? Int16 == 5 })
            folded.fetchOffset = 1
            #expect(try context.fetch(folded).compactMap { $0.value(forKey: "title") as? String } == ["NANA"])
            #expect(try context.count(for: folded) == 1)

            let ids = NSFetchRequest<NSManagedObjectID>(entityName: "Book")
            ids.resultType = .managedObjectIDResultType
            ids.predicate = NSPredicate(format: "title ==[cd] %@", "THERESE")
            #expect(try context.fetch(ids).count == 2)

            // Localized sorting, in memory, with the whole result batched.
            let localized = NSFetchRequest<NSManagedObject>(entityName: "Book")
            localized.sortDescriptors = [
                NSSortDescriptor(key: "title", ascending: true, selector: Selector("localizedCaseInsensitiveCompare:"))
            ]
            localized.fetchBatchSize = 2
            let titles = try context.fetch(localized).compactMap { $0.value(forKey: "title") as? String }
            #expect(titles.count == 5)
            #expect(
                zip(titles, titles.dropFirst()).allSatisfy {
                    $0.localizedCaseInsensitiveCompare($1) != .orderedDescending
                })

            // Dictionaries are the store's to compute: refused, naming what it lacks.
            let dictionaries = NSFetchRequest<NSDictionary>(entityName: "Book")
            dictionaries.resultType = .dictionaryResultType
            dictionaries.propertiesToFetch = ["title"]
            dictionaries.predicate = NSPredicate(format: "title BEGINSWITH[c] %@", "n")
            #expect {
                _ = try context.fetch(dictionaries)
            } throws: { error in
                let error = error as NSError
                return error.code == NSPersistentStoreUnsupportedRequestTypeError
                    && error.localizedDescription.contains("string matching")
            }
        }
    }

    @Test func inMemoryEvaluationSeesTheStoredValuesAsSQLWould() throws {
        let url = try PostgreSQLTestServer.makeDatabase()
        let container = try Self.container(url)
        let bob = NSEntityDescription.insertNewObject(forEntityName: "Author", into: container.viewContext)
        bob.setValue("Bob", forKey: "name")
        let zoe = NSEntityDescription.insertNewObject(forEntityName: "Author", into: container.viewContext)
        zoe.setValue("Zoé", forKey: "name")
        try container.viewContext.save()
        let context = container.viewContext
        let folded = NSFetchRequest<NSManagedObject>(entityName: "Author")

        // Another process renames Bob: this context still holds the old name, the store the new one.
        let other = try Self.container(url)
        let renamed = try #require(
            try other.viewContext.fetch(NSFetchRequest<NSManagedObject>(entityName: "Author")).first {
                $0.value(forKey: "name") as? String == "Bob"
            })
        renamed.setValue("alice", forKey: "name")
        try other.viewContext.save()
        folded.predicate = NSPredicate(format: "name BEGINSWITH[c] %@", "A")
        #expect(try context.fetch(folded) == [bob])

        // An unsaved change counts only when the request includes pending changes.
        zoe.setValue("Anne", forKey: "name")
        #expect(Set(try context.fetch(folded)) == [bob, zoe])
        folded.includesPendingChanges = false
        #expect(try context.fetch(folded) == [bob])
        folded.predicate = NSPredicate(format: "name BEGINSWITH[cd] %@", "zoe")
        #expect(try context.fetch(folded) == [zoe])
        folded.includesPendingChanges = true
        #expect(try context.fetch(folded).isEmpty)
    }

    @Test func aSaveThroughOneCoordinatorReachesAnotherAsARemoteChange() throws {
        let url = try PostgreSQLTestServer.makeDatabase()
        let writer = try Self.container(url)
        let watcher = try Self.container(url) {
            $0.setOption(true as NSNumber, forKey: NSPersistentStoreRemoteChangeNotificationPostOptionKey)
        }
        let heard = NSCondition()
        nonisolated(unsafe) var notifications: [Notification] = []
        let observer = NotificationCenter.default.addObserver(
            forName: .NSPersistentStoreRemoteChange, object: watcher.persistentStoreCoordinator, queue: nil
        ) { note in
            heard.withLock {
                notifications.append(note)
                heard.broadcast()
            }
        }
        defer { NotificationCenter.default.removeObserver(observer) }

        let author = NSEntityDescription.insertNewObject(forEntityName: "Author", into: writer.viewContext)
        author.setValue("Maupassant", forKey: "name")
        let saved = Date()
        try writer.viewContext.save()
        let arrived = heard.withLock { () -> Bool in
            let deadline = Date(timeIntervalSinceNow: 10)
            while notifications.isEmpty { if !heard.wait(until: deadline) { return false } }
            return true
        }
        #expect(arrived)
        #expect(Date().timeIntervalSince(saved) < 5)
        let store = watcher.persistentStoreCoordinator.persistentStores.first
        #expect(heard.withLock { notifications.first?.userInfo?[NSStoreUUIDKey] as? String } == store?.identifier)
        // What the remote save wrote is there to read.
        #expect(try watcher.viewContext.count(for: NSFetchRequest<NSManagedObject>(entityName: "Author")) == 1)

        // A save that rolls back notifies nobody: PostgreSQL sends notifications at commit.
        let count = heard.withLock { notifications.count }
        let stale = try #require(
            try writer.viewContext.fetch(NSFetchRequest<NSManagedObject>(entityName: "Author")).first)
        let other = try Self.container(url)
        let fresh = try #require(
            try other.viewContext.fetch(NSFetchRequest<NSManagedObject>(entityName: "Author")).first)
        fresh.setValue(Int64(5), forKey: "score")
        try other.viewContext.save()
        heard.withLock {
            let deadline = Date(timeIntervalSinceNow: 10)
            while notifications.count == count { if !heard.wait(until: deadline) { break } }
        }
        let afterOther = heard.withLock { notifications.count }
        stale.setValue(Int64(6), forKey: "score")
        #expect(throws: (any Error).self) { try writer.viewContext.save() }
        Thread.sleep(forTimeInterval: 0.6)
        #expect(heard.withLock { notifications.count } == afterOther)
    }

    @Test func afterALostConnectionReadsAndSavesCarryOnWholeOnANewOne() throws {
        let url = try PostgreSQLTestServer.makeDatabase()
        let container = try Self.container(url)
        let first = NSEntityDescription.insertNewObject(forEntityName: "Author", into: container.viewContext)
        first.setValue("Colette", forKey: "name")
        try container.viewContext.save()
        // Ends every other session of the database, the store's among them, as a server restart would.
        let admin = try PostgreSQLConnection(url: url)
        func dropSessions() throws {
            try admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"
            )
        }

        try dropSessions()
        let context = container.newBackgroundContext()
        let count = try context.performAndWait {
            try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Author"))
        }
        #expect(count == 1)
        try dropSessions()
        try context.performAndWait {
            let second = NSEntityDescription.insertNewObject(forEntityName: "Author", into: context)
            second.setValue("Proust", forKey: "name")
            let book = NSEntityDescription.insertNewObject(forEntityName: "Book", into: context)
            book.setValue(second, forKey: "author")
            try context.save()
        }
        let reader = try Self.container(url)
        let authors = NSFetchRequest<NSManagedObject>(entityName: "Author")
        authors.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
        #expect(
            try reader.viewContext.fetch(authors).compactMap { $0.value(forKey: "name") as? String } == [
                "Colette", "Proust",
            ])
        #expect(try reader.viewContext.count(for: NSFetchRequest<NSManagedObject>(entityName: "Book")) == 1)
    }

    @Test func savesCheckingUniquenessTakeTurnsSoADuplicateIsSeen() throws {
        let account = ModelBuilder.entity("Account", className: "NSManagedObject")
        account.properties = [ModelBuilder.attribute("email", .stringAttributeType)]
        account.uniquenessConstraints = [["email"]]
        let model = ModelBuilder.model(account)
        let url = try PostgreSQLTestServer.makeDatabase()
        let container = try Self.container(url, model: model)
        let admin = try PostgreSQLConnection(url: url)
        // Another writer holds the store's lock while it commits the same email.
        try admin.execute("SELECT pg_advisory_lock(hashtext('OpenCoreData:' || current_schema()))")
        let context = container.newBackgroundContext()
        let finished = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var outcome: (any Error)?
        context.perform {
            let duplicate = NSEntityDescription.insertNewObject(forEntityName: "Account", into: context)
            duplicate.setValue("ada@example.org", forKey: "email")
            do { try context.save() } catch { outcome = error }
            finished.signal()
        }
        // The save waits for the lock instead of checking now.
        #expect(finished.wait(timeout: .now() + 0.5) == .timedOut)
        try admin.execute(
            "INSERT INTO ZACCOUNT (Z_PK, Z_ENT, Z_OPT, ZEMAIL) VALUES (nextval('ZACCOUNT_Z_PK_SEQ'), 1, 1, 'ada@example.org')"
        )
        try admin.execute("SELECT pg_advisory_unlock(hashtext('OpenCoreData:' || current_schema()))")
        #expect(finished.wait(timeout: .now() + 10) == .success)
        // It then saw the committed row: a constraint conflict, and one account in the store.
        #expect((outcome as NSError?)?.code == NSManagedObjectConstraintMergeError)
        #expect(try admin.execute("SELECT count(*) FROM ZACCOUNT").integer(0, 0) == 1)
    }

    @Test func aMissingServerOrDatabaseFailsToOpenWithTheReason() throws {
        let missing = try #require(URL(string: "postgres://nobody@127.0.0.1:1/none"))
        #expect {
            _ = try Self.container(missing)
        } throws: { error in
            let error = error as NSError
            return error.code == NSPersistentStoreOpenError && error.localizedDescription.contains("127.0.0.1")
        }
    }
}
