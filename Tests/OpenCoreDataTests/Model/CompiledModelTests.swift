import GRDB
@testable import OpenCoreDataCore
@testable import OpenCoreDataSQLite
import OpenCoreDataTestSupport
import Testing

/// Compiled models (`.mom`, `.momd`, the model a store caches) read from keyed archives.
///
/// The fixtures are made by `Fixtures/Compiled/make_compiled_fixtures.py` with the class
/// names and keys Core Data archives (Xcode's compiler does not run here).
@Suite struct CompiledModelTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/Compiled")

    private func library() throws -> NSManagedObjectModel {
        try NSManagedObjectModel.load(contentsOf: Self.fixtures.appendingPathComponent("Library.mom"))
    }

    @Test func entitiesInheritanceAndFlags() throws {
        let model = try library()
        #expect(model.entities.map(\.name) == ["Author", "Book", "Ebook", "Tag"])
        let entities = model.entitiesByName
        let book = try #require(entities["Book"])
        let ebook = try #require(entities["Ebook"])
        #expect(ebook.superentity === book)
        #expect(book.subentities.map(\.name) == ["Ebook"])
        #expect(ebook.managedObjectClassName == "NSManagedObject")
        #expect(book.managedObjectClassName == "Book")
        #expect(
            ebook.propertiesByName.keys.sorted() == [
                "author", "cover", "fileSize", "identifier", "isbn", "pages", "price", "rating", "scratch", "tags",
                "title",
            ])
        #expect(
            ebook.propertiesByName["title"]?.entity === book, "an inherited property is the superentity's, not a copy")
        #expect(book.versionHashModifier == "b2")
        #expect(entities["Tag"]?.renamingIdentifier == "Label")
        #expect(entities["Tag"]?.uniquenessConstraints.map { $0.compactMap { $0 as? String } } == [["name"]])
        #expect(entities["Author"]?.userInfo?["table"] as? String == "writers")
        #expect(model.versionIdentifiers == ["v1"])
        #expect(model.configurations == ["Catalog", "Labels"])
        #expect(model.entities(forConfigurationName: "Labels")?.map(\.name) == ["Tag"])
    }

    @Test func attributesAndRelationships() throws {
        let model = try library()
        let book = try #require(model.entitiesByName["Book"])
        let attributes = book.attributesByName
        #expect(attributes["title"]?.attributeType == .stringAttributeType)
        #expect(attributes["title"]?.isOptional == false)
        #expect(attributes["pages"]?.attributeType == .integer32AttributeType)
        #expect(attributes["pages"]?.defaultValue as? Int32 == 0)
        #expect(attributes["rating"]?.defaultValue as? Double == 2.5)
        #expect(attributes["cover"]?.allowsExternalBinaryDataStorage == true)
        #expect(attributes["isbn"]?.isIndexed == true)
        #expect(attributes["scratch"]?.isTransient == true)
        #expect(attributes["identifier"]?.attributeType == .UUIDAttributeType)
        #expect(
            attributes["price"]?.defaultValue as? Decimal == Decimal(string: "19.99"), "an archived NSDecimalNumber")
        let fetched = try #require(
            model.entitiesByName["Author"]?.propertiesByName["namesakeBooks"] as? NSFetchedPropertyDescription)
        #expect(fetched.fetchRequest?.predicate?.predicateFormat == "author.name == $FETCH_SOURCE.name")
        fetched.fetchRequest?.fetchLimit = 99
        #expect(fetched.fetchRequest?.fetchLimit == 0, "the description hands out copies")
        #expect(
            model.entitiesByName["Author"]?.attributesByName["name"]?.userInfo?["display"] as? String == "Full name")

        let books = try #require(model.entitiesByName["Author"]?.relationshipsByName["books"])
        #expect(books.isToMany && books.isOrdered && books.deleteRule == .cascadeDeleteRule)
        #expect(books.destinationEntity === book)
        #expect(books.inverseRelationship === book.relationshipsByName["author"])
        let tags = try #require(book.relationshipsByName["tags"])
        #expect(tags.isToMany && !tags.isOrdered)
        #expect(tags.inverseRelationship?.name == "books" && tags.inverseRelationship?.entity.name == "Tag")
        #expect(book.relationshipsByName["author"]?.isToMany == false)
    }

    @Test func aFetchedPropertysResultsStayInTheContextThatFetchedThem() throws {
        let model = try library()
        let context = try makeContext(model)
        let authorID = try context.performAndWait {
            let author = NSEntityDescription.insertNewObject(forEntityName: "Author", into: context)
            author.setValue("Ann", forKey: "name")
            let book = NSEntityDescription.insertNewObject(forEntityName: "Book", into: context)
            book.setValue("Notes", forKey: "title")
            book.setValue(author, forKey: "author")
            try context.save()
            #expect((author.value(forKey: "namesakeBooks") as? [NSManagedObject])?.count == 1)
            author.setValue("Ann", forKey: "name")
            try context.save()  // the saved snapshot goes to the row cache
            return author.objectID
        }
        // Another context fires its fault from that cached snapshot: the results it reads
        // must be its own objects, fetched for it, not the first context's.
        let other = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        other.persistentStoreCoordinator = context.persistentStoreCoordinator
        try other.performAndWait {
            let author = try other.existingObject(with: authorID)
            let namesakes = try #require(author.value(forKey: "namesakeBooks") as? [NSManagedObject])
            #expect(namesakes.count == 1)
            #expect(namesakes.allSatisfy { $0.managedObjectContext === other })
        }
    }

    @Test func validationRulesAndTemplatesWork() throws {
        let model = try library()
        let context = try makeContext(model)
        try context.performAndWait {
            let author = NSEntityDescription.insertNewObject(forEntityName: "Author", into: context)
            author.setValue("Ann", forKey: "name")
            let book = NSEntityDescription.insertNewObject(forEntityName: "Ebook", into: context)
            book.setValue("", forKey: "title")
            book.setValue(author, forKey: "author")
            let short = #expect(throws: NSError.self) { try context.save() }
            #expect(short?.code == NSValidationStringTooShortError)
            #expect(short?.localizedDescription.contains("string is too short") == true)

            book.setValue("Notes", forKey: "title")
            book.setValue("12x", forKey: "isbn")
            let pattern = #expect(throws: NSError.self) { try context.save() }
            #expect(pattern?.code == NSValidationStringPatternMatchingError)
            #expect(pattern?.localizedDescription.contains("ISBN digits and dashes only") == true)

            book.setValue("1-23", forKey: "isbn")
            try context.save()
            let second = NSEntityDescription.insertNewObject(forEntityName: "Book", into: context)
            second.setValue("Zebras", forKey: "title")
            second.setValue(author, forKey: "author")
            try context.save()
            let request = try #require(
                model.fetchRequestFromTemplate(withName: "BooksByAuthor", substitutionVariables: ["NAME": "Ann"]))
            #expect(request.fetchLimit == 25)
            #expect(
                request.sortDescriptors?.map(\.key) == ["title"] && request.sortDescriptors?.first?.ascending == false)
            #expect(
                (try context.fetch(request) as! [NSManagedObject]).map { $0.value(forKey: "title") as? String } == [
                    "Zebras", "Notes",
                ])
            let namesakes = author.value(forKey: "namesakeBooks") as? [NSManagedObject]
            #expect(
                Set(namesakes?.compactMap { $0.value(forKey: "title") as? String } ?? []) == ["Notes", "Zebras"],
                "$FETCH_SOURCE.name is the author's name")

            let tag = NSEntityDescription.insertNewObject(forEntityName: "Tag", into: context)
            tag.setValue("a", forKey: "name")
            let tooShort = #expect(throws: NSError.self) { try context.save() }
            #expect(tooShort?.code == NSValidationStringTooShortError, "NSMinValueName bounds a string's length")
            tag.setValue("thirteen char", forKey: "name")
            let tooLong = #expect(throws: NSError.self) { try context.save() }
            #expect(tooLong?.code == NSValidationStringTooLongError)
            tag.setValue("fiction", forKey: "name")
            try context.save()
            let none = try #require(
                model.fetchRequestFromTemplate(withName: "BooksByAuthor", substitutionVariables: ["NAME": "Bob"]))
            #expect(try context.fetch(none).isEmpty)
        }
    }

    @Test func sharedSubtreesCannotBlowUpLoading() throws {
        let error = #expect(throws: ModelLoadingError.self) {
            try NSManagedObjectModel.load(contentsOf: Self.fixtures.appendingPathComponent("SharedPredicateBomb.mom"))
        }
        #expect(
            error?.description.contains("more than \(ArchivedPredicateDecoder.nodeBudget) predicate and value nodes")
                == true)
    }

    @Test func compiledBundleLoadsItsCurrentVersion() throws {
        let bundle = Self.fixtures.appendingPathComponent("Library.momd")
        let current = try #require(NSManagedObjectModel(contentsOf: bundle))
        #expect(current.entitiesByName["Book"]?.attributesByName["subtitle"]?.versionHashModifier == "v2")
        let versions = try NSManagedObjectModel.versions(in: bundle)
        #expect(versions.versionNames == ["Library", "Library 2"])
        #expect(versions.currentVersionName == "Library 2")
        #expect(versions.modelsByVersionName["Library"]?.entitiesByName["Book"]?.attributesByName["subtitle"] == nil)
        #expect(versions.modelsByVersionName["Library"]?.entityVersionHashesByName != current.entityVersionHashesByName)
    }

    @Test func cachedModelIsTheArchiveCompressed() throws {
        let cached = try Data(contentsOf: Self.fixtures.appendingPathComponent("Library.modelcache"))
        let archive = try Data(contentsOf: Self.fixtures.appendingPathComponent("Library.mom"))
        #expect(try RawDeflate.inflate(cached) == archive)
    }

    @Test func damagedArchivesThrowNamingTheFile() throws {
        let archive = try Data(contentsOf: Self.fixtures.appendingPathComponent("Library.mom"))
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "CompiledModelTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent("Broken.mom")

        try archive.prefix(archive.count / 2).write(to: file)
        let truncated = #expect(throws: ModelLoadingError.self) { try NSManagedObjectModel.load(contentsOf: file) }
        #expect(truncated?.description.hasPrefix("Broken.mom: ") == true)
        #expect(NSManagedObjectModel(contentsOf: file) == nil)

        let plainList = try PropertyListSerialization.data(
            fromPropertyList: ["root": "not a model"], format: .binary, options: 0)
        try plainList.write(to: file)
        let notArchive = #expect(throws: ModelLoadingError.self) { try NSManagedObjectModel.load(contentsOf: file) }
        #expect(notArchive?.description.contains("not a keyed archive") == true)

        // Bytes flipped anywhere: an error or a model, never a crash.
        var random = SplitMix64(seed: 0x30D)
        var errors = 0
        for _ in 0..<1_500 {
            var damaged = archive
            for _ in 0..<(1 + random.below(3)) { damaged[random.below(damaged.count)] = UInt8(random.below(256)) }
            try damaged.write(to: file)
            do { _ = try NSManagedObjectModel.load(contentsOf: file) } catch { errors += 1 }
        }
        #expect(errors > 0)
    }

    /// A store keeps its model in Z_MODELCACHE; the library model compressed as Core Data
    /// compresses it is read back from a store.
    @Test func modelCachedInAStoreIsRecovered() throws {
        let model = try library()
        let url = temporaryStoreURL()
        _ = try makeContext(model, url: url)
        let own = try #require(
            try SQLiteModelCache.model(inStoreAt: url), "OpenCoreData caches the model of each store file it creates")
        #expect(own.entityVersionHashesByName == model.entityVersionHashesByName)

        let cached = try Data(contentsOf: Self.fixtures.appendingPathComponent("Library.modelcache"))
        let db = try DatabaseQueue(path: url.path)
        try db.write { try $0.execute(sql: "UPDATE Z_MODELCACHE SET Z_CONTENT = ?", arguments: [cached]) }
        let recovered = try #require(try SQLiteModelCache.model(inStoreAt: url))
        #expect(recovered.entityVersionHashesByName == model.entityVersionHashesByName)
        #expect(
            recovered.isConfiguration(
                withName: nil, compatibleWithStoreMetadata: try NSPersistentStore.metadataForPersistentStore(with: url))
        )

        try db.write { try $0.execute(sql: "UPDATE Z_MODELCACHE SET Z_CONTENT = ?", arguments: [cached.prefix(100)]) }
        let error = #expect(throws: ModelLoadingError.self) { try SQLiteModelCache.model(inStoreAt: url) }
        #expect(error?.description.contains("Z_MODELCACHE: holds no readable model") == true)
        try db.close()
    }
}
