import Foundation
import OpenCoreData
import Testing

/// Lightweight migration as a store of any engine must run it when it opens under a newer
/// model with `NSMigratePersistentStoresAutomaticallyOption` and
/// `NSInferMappingModelAutomaticallyOption`: every object carried over with its values and
/// relationships, renamed things followed, new keys after the old ones, a migration that
/// fails leaving the store as it was, rows it would drop refused. Each engine's test target
/// runs every case on its stores (`@Test(arguments: MigrationBehaviour.allCases)`).
public enum MigrationBehaviour: String, CaseIterable, Sendable {
    case addedAttributesAndEntitiesKeepEveryObject
    case renamedEntitiesAndAttributesCarryTheirValues
    case aToOneBecomingAManyToManyKeepsItsLinks
    case aToOneBecomingAnOrderedManyToManyKeepsItsLinksInKeyOrder
    case aFailingMigrationLeavesTheStoreAsItWas
    case droppingRowsIsRefusedUnlessAllowed
    case historyRecordedBeforeFollowsTheMigration

    /// Runs the case on stores of `engine`.
    public func run(on engine: StoreUnderTest) throws {
        let suite = Suite(engine: engine, url: try engine.location("Migration"))
        switch self {
        case .addedAttributesAndEntitiesKeepEveryObject: try suite.addedAttributesAndEntities()
        case .renamedEntitiesAndAttributesCarryTheirValues: try suite.renamedEntitiesAndAttributes()
        case .aToOneBecomingAManyToManyKeepsItsLinks: try suite.toOneBecomesManyToMany()
        case .aToOneBecomingAnOrderedManyToManyKeepsItsLinksInKeyOrder: try suite.toOneBecomesOrderedManyToMany()
        case .aFailingMigrationLeavesTheStoreAsItWas: try suite.failingMigrationChangesNothing()
        case .droppingRowsIsRefusedUnlessAllowed: try suite.droppingRowsIsRefused()
        case .historyRecordedBeforeFollowsTheMigration: try suite.historyFollowsTheMigration()
        }
    }

    /// The options of automatic migration with an inferred mapping.
    public static var migrating: [AnyHashable: Any] {
        [
            NSMigratePersistentStoresAutomaticallyOption: true as NSNumber,
            NSInferMappingModelAutomaticallyOption: true as NSNumber,
        ]
    }

    /// What a later version changes in ``library(_:)``.
    public enum Change: Sendable {
        /// Author gains a required `nickname` with default "none"; a new entity Shelf (room).
        case nicknameAndShelf
        /// Author is renamed Writer, its `name` `fullName` (renaming identifiers).
        case renames
        /// Book's to-one `author` becomes a many-to-many `authors` ⟷ `books`.
        case manyToMany
        /// As `manyToMany`, with Author's `books` ordered.
        case orderedManyToMany
        /// Author's `born` becomes required, without a default.
        case bornRequired
        /// Tag is gone.
        case noTag
    }

    /// Version 1 (no changes): Author (name, born) ⟷ Book (title, pages), Author.books
    /// to-many, Book.author to-one; Tag (label). Later versions apply `changes`.
    public static func library(_ changes: Set<Change> = []) -> NSManagedObjectModel {
        let author = ModelBuilder.entity(changes.contains(.renames) ? "Writer" : "Author", className: "NSManagedObject")
        if changes.contains(.renames) { author.renamingIdentifier = "Author" }
        let book = ModelBuilder.entity("Book", className: "NSManagedObject")
        let tag = ModelBuilder.entity("Tag", className: "NSManagedObject")
        let toMany = changes.contains(.manyToMany) || changes.contains(.orderedManyToMany)
        let (books, bookAuthor) = ModelBuilder.pair(
            "books", from: author, toMany: true, toMany ? "authors" : "author", to: book, toMany: toMany,
            ordered: changes.contains(.orderedManyToMany))
        let name = ModelBuilder.attribute(changes.contains(.renames) ? "fullName" : "name", .stringAttributeType)
        if changes.contains(.renames) { name.renamingIdentifier = "name" }
        author.properties = [
            name, ModelBuilder.attribute("born", .dateAttributeType, optional: !changes.contains(.bornRequired)), books,
        ]
        if changes.contains(.nicknameAndShelf) {
            author.properties.append(
                ModelBuilder.attribute("nickname", .stringAttributeType, optional: false, defaultValue: "none"))
        }
        book.properties = [
            ModelBuilder.attribute("title", .stringAttributeType),
            ModelBuilder.attribute("pages", .integer64AttributeType), bookAuthor,
        ]
        tag.properties = [ModelBuilder.attribute("label", .stringAttributeType)]
        var entities = [author, book]
        if !changes.contains(.noTag) { entities.append(tag) }
        if changes.contains(.nicknameAndShelf) {
            let shelf = ModelBuilder.entity("Shelf", className: "NSManagedObject")
            shelf.properties = [ModelBuilder.attribute("room", .stringAttributeType)]
            entities.append(shelf)
        }
        let model = NSManagedObjectModel()
        model.entities = entities
        return model
    }
}

extension MigrationBehaviour {
    private struct Suite {
        let engine: StoreUnderTest
        let url: URL

        func open(
            _ model: NSManagedObjectModel, options: [AnyHashable: Any] = MigrationBehaviour.migrating
        ) throws
            -> NSManagedObjectContext
        {
            try engine.context(url, model: model, options: options)
        }

        /// Saves two authors (Zola with two books, Colette with none) and a tag with version 1.
        func seed() throws {
            let context = try open(MigrationBehaviour.library(), options: [:])
            try context.performAndWait {
                let zola = NSEntityDescription.insertNewObject(forEntityName: "Author", into: context)
                zola.setValue("Zola", forKey: "name")
                zola.setValue(Date(timeIntervalSinceReferenceDate: -3_000_000_000), forKey: "born")
                for (title, pages) in [("Germinal", 591), ("Nana", 470)] {
                    let book = NSEntityDescription.insertNewObject(forEntityName: "Book", into: context)
                    book.setValue(title, forKey: "title")
                    book.setValue(Int64(pages), forKey: "pages")
                    book.setValue(zola, forKey: "author")
                }
                let colette = NSEntityDescription.insertNewObject(forEntityName: "Author", into: context)
                colette.setValue("Colette", forKey: "name")
                let tag = NSEntityDescription.insertNewObject(forEntityName: "Tag", into: context)
                tag.setValue("classic", forKey: "label")
                try context.save()
            }
        }

        func fetch(
            _ entity: String, sortedBy key: String, in context: NSManagedObjectContext
        ) throws
            -> [NSManagedObject]
        {
            try context.fetchAll(entity, sortedBy: key)
        }

        func addedAttributesAndEntities() throws {
            try seed()
            let model = MigrationBehaviour.library([.nicknameAndShelf])
            let context = try open(model)
            try context.performAndWait {
                let authors = try fetch("Author", sortedBy: "name", in: context)
                #expect(authors.map { $0.value(forKey: "name") as? String } == ["Colette", "Zola"])
                #expect(authors.allSatisfy { $0.value(forKey: "nickname") as? String == "none" })
                #expect(
                    authors[1].value(forKey: "born") as? Date == Date(timeIntervalSinceReferenceDate: -3_000_000_000))
                let books = try #require(authors[1].value(forKey: "books") as? Set<NSManagedObject>)
                #expect(Set(books.compactMap { $0.value(forKey: "title") as? String }) == ["Germinal", "Nana"])
                // New objects get keys no migrated object has.
                let before = Set(try fetch("Book", sortedBy: "title", in: context).map(\.objectID))
                let added = NSEntityDescription.insertNewObject(forEntityName: "Book", into: context)
                added.setValue("Thérèse Raquin", forKey: "title")
                added.setValue(authors[1], forKey: "author")
                let shelfObject = NSEntityDescription.insertNewObject(forEntityName: "Shelf", into: context)
                shelfObject.setValue("study", forKey: "room")
                try context.save()
                #expect(!before.contains(added.objectID))
                #expect(try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Book")) == 3)
            }
            // Opened again, the store is the new version: nothing left to migrate.
            let again = try open(model, options: [:])
            #expect(
                try again.performAndWait { try again.count(for: NSFetchRequest<NSManagedObject>(entityName: "Shelf")) }
                    == 1)
        }

        func renamedEntitiesAndAttributes() throws {
            try seed()
            // The last author ever saved is deleted: its key is never handed out again.
            let old = try open(MigrationBehaviour.library(), options: [:])
            let deletedKey = try old.performAndWait { () throws -> Int in
                let doomed = NSEntityDescription.insertNewObject(forEntityName: "Author", into: old)
                doomed.setValue("Doomed", forKey: "name")
                try old.save()
                old.delete(doomed)
                try old.save()
                return Self.key(doomed.objectID)
            }
            let model = MigrationBehaviour.library([.renames])
            let context = try open(model)
            try context.performAndWait {
                let writers = try fetch("Writer", sortedBy: "fullName", in: context)
                #expect(writers.map { $0.value(forKey: "fullName") as? String } == ["Colette", "Zola"])
                let books = try fetch("Book", sortedBy: "title", in: context)
                #expect(
                    books.map { ($0.value(forKey: "author") as? NSManagedObject)?.value(forKey: "fullName") as? String }
                        == ["Zola", "Zola"])
                let added = NSEntityDescription.insertNewObject(forEntityName: "Writer", into: context)
                added.setValue("Maupassant", forKey: "fullName")
                try context.save()
                #expect(Self.key(added.objectID) > deletedKey)
            }
        }

        /// The primary key an object ID's URI names (`…/Entity/p<key>`).
        static func key(_ id: NSManagedObjectID) -> Int {
            Int(id.uriRepresentation().lastPathComponent.dropFirst()) ?? -1
        }

        func toOneBecomesManyToMany() throws {
            try seed()
            let model = MigrationBehaviour.library([.manyToMany])
            let context = try open(model)
            try context.performAndWait {
                let germinal = try #require(try fetch("Book", sortedBy: "title", in: context).first)
                let names = (germinal.value(forKey: "authors") as? Set<NSManagedObject>)?.compactMap {
                    $0.value(forKey: "name") as? String
                }
                #expect(names == ["Zola"])
                let zola = try #require(try fetch("Author", sortedBy: "name", in: context).last)
                #expect((zola.value(forKey: "books") as? Set<NSManagedObject>)?.count == 2)
            }
        }

        func toOneBecomesOrderedManyToMany() throws {
            try seed()
            let context = try open(MigrationBehaviour.library([.orderedManyToMany]))
            try context.performAndWait {
                let zola = try #require(try fetch("Author", sortedBy: "name", in: context).last)
                let books = try #require(zola.value(forKey: "books") as? NSOrderedSet)
                // No order was kept: the books come in the order of their keys (saved in that order).
                #expect(
                    books.array.compactMap { ($0 as? NSManagedObject)?.value(forKey: "title") as? String } == [
                        "Germinal", "Nana",
                    ])
                let nana = try #require(try fetch("Book", sortedBy: "title", in: context).last)
                #expect((nana.value(forKey: "authors") as? Set<NSManagedObject>)?.count == 1)
            }
        }

        func failingMigrationChangesNothing() throws {
            try seed()
            // Colette has no birth date: a required one without a default cannot be migrated.
            let model = MigrationBehaviour.library([.bornRequired])
            let error = try #require(throws: NSError.self) { try open(model) }
            #expect(error.code == NSMigrationError, "\(error)")
            #expect(error.localizedDescription.contains("born"), "\(error.localizedDescription)")
            // The store is still the old version, whole.
            let old = try open(MigrationBehaviour.library(), options: [:])
            try old.performAndWait {
                #expect(
                    try fetch("Author", sortedBy: "name", in: old).map { $0.value(forKey: "name") as? String } == [
                        "Colette", "Zola",
                    ])
                #expect(try old.count(for: NSFetchRequest<NSManagedObject>(entityName: "Book")) == 2)
                let book = NSEntityDescription.insertNewObject(forEntityName: "Book", into: old)
                book.setValue("L'Assommoir", forKey: "title")
                try old.save()
            }
        }

        func droppingRowsIsRefused() throws {
            try seed()
            let model = MigrationBehaviour.library([.noTag])
            let error = try #require(throws: NSError.self) { try open(model) }
            #expect(error.localizedDescription.contains("Tag"), "\(error.localizedDescription)")
            var allowing = MigrationBehaviour.migrating
            allowing[OpenCoreDataMigrationAllowsDataLossOption] = true as NSNumber
            let context = try open(model, options: allowing)
            #expect(
                try context.performAndWait {
                    try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Author"))
                } == 2)
        }

        /// History names entities by number and properties by slot: after Author becomes
        /// Writer (numbered after Book and Tag now), its changes still name it.
        func historyFollowsTheMigration() throws {
            var tracking = MigrationBehaviour.migrating
            tracking[NSPersistentHistoryTrackingKey] = true as NSNumber
            let old = try open(MigrationBehaviour.library(), options: tracking)
            try old.performAndWait {
                let author = NSEntityDescription.insertNewObject(forEntityName: "Author", into: old)
                author.setValue("Zola", forKey: "name")
                try old.save()
                author.setValue("Émile Zola", forKey: "name")
                try old.save()
            }
            let context = try open(MigrationBehaviour.library([.renames]), options: tracking)
            let transactions = try context.performAndWait {
                try #require(
                    (context.execute(
                        NSPersistentHistoryChangeRequest.fetchHistory(after: nil as NSPersistentHistoryToken?))
                        as? NSPersistentHistoryResult)?.result as? [NSPersistentHistoryTransaction])
            }
            #expect(transactions.count == 2)
            let changes = transactions.flatMap { $0.changes ?? [] }
            #expect(changes.map { $0.changedObjectID.entity.name } == ["Writer", "Writer"])
            #expect(changes.last?.updatedProperties?.map(\.name) == ["fullName"])
        }
    }
}
