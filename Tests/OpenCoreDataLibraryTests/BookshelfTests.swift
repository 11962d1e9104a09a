//
//  BookshelfTests.swift
//  The library's own test suite, ported with the porting checklist's rewrites only.
//

import Foundation
import OpenCoreData
import XCTest

final class BookshelfTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("Bookshelf-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    private func seed(_ stack: BookshelfStack) throws {
        let context = stack.mainContext
        try context.performAndWait {
            let le = Writer(context: context)
            le.name = "Ursula K. Le Guin"
            le.born = 1929
            let calvino = Writer(context: context)
            calvino.name = "Italo Calvino"
            calvino.born = 1923
            for (title, pages, writer, read) in [
                ("The Dispossessed", 387, le, true), ("A Wizard of Earthsea", 183, le, false),
                ("The Lathe of Heaven", 184, le, true), ("Invisible Cities", 165, calvino, false),
                ("If on a winter's night a traveler", 260, calvino, false),
            ] {
                let volume = Volume(context: context)
                volume.title = title
                volume.pages = Int32(pages)
                volume.author = writer
                volume.isRead = read
                volume.rating = Double(pages) / 100
            }
            try context.save()
        }
    }

    private func titles(_ stack: BookshelfStack, _ format: String, _ arguments: CVarArg...) throws -> [String] {
        let request: NSFetchRequest<Volume> = Volume.fetchRequest()
        request.predicate = NSPredicate(format: format, argumentArray: arguments)
        request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
        return try stack.mainContext.performAndWait { try stack.mainContext.fetch(request).compactMap(\.title) }
    }

    // MARK: The compiled model

    func testTheCompiledModelIsFoundByItsMomdURL() throws {
        let url = try XCTUnwrap(Bundle.module.url(forResource: "Bookshelf", withExtension: "momd"))
        let model = try XCTUnwrap(NSManagedObjectModel(contentsOf: url))
        XCTAssertEqual(Set(model.entitiesByName.keys), ["Writer", "Volume"])
        // The current version is the second one: it has the rating and the template.
        XCTAssertNotNil(model.entitiesByName["Volume"]?.attributesByName["rating"])
        XCTAssertNotNil(model.fetchRequestTemplate(forName: "UnreadVolumes"))
        XCTAssertEqual(model.versionIdentifiers, ["2"])
        // Each version is compiled beside it, as Xcode lays a .momd out.
        let first = try XCTUnwrap(NSManagedObjectModel(contentsOf: url.appendingPathComponent("Bookshelf.mom")))
        XCTAssertNil(first.entitiesByName["Volume"]?.attributesByName["rating"])
        XCTAssertTrue(FileManager.default.fileExists(atPath: url.appendingPathComponent("VersionInfo.plist").path))
        // What the compiler wrote is the model the source describes.
        let source = try XCTUnwrap(Bundle.module.url(forResource: "Bookshelf", withExtension: "xcdatamodeld"))
        XCTAssertEqual(
            NSManagedObjectModel(contentsOf: source)?.entityVersionHashesByName, model.entityVersionHashesByName)
    }

    // MARK: Every store type the library offers

    func testEveryStoreTypeSavesFetchesAndCounts() throws {
        for kind: BookshelfStack.StoreKind in [
            .sqlite(directory.appendingPathComponent("Shelf.sqlite")), .inMemory,
            .binary(directory.appendingPathComponent("Shelf.binary")),
        ] {
            let stack = try BookshelfStack(kind: kind)
            try seed(stack)
            XCTAssertEqual(
                try titles(stack, "pages > %d", 180),
                [
                    "A Wizard of Earthsea", "If on a winter's night a traveler",
                    "The Dispossessed", "The Lathe of Heaven",
                ], "\(kind)")
            XCTAssertEqual(
                try titles(stack, "author.born < 1925 AND isRead == NO"),
                ["If on a winter's night a traveler", "Invisible Cities"], "\(kind)")
            let unread = try XCTUnwrap(
                stack.coordinator.managedObjectModel.fetchRequestTemplate(forName: "UnreadVolumes"))
            XCTAssertEqual(
                try stack.mainContext.performAndWait { try stack.mainContext.count(for: unread) }, 3, "\(kind)")
        }
    }

    func testFileStoresKeepTheirObjectsAcrossLaunches() throws {
        for kind: BookshelfStack.StoreKind in [
            .sqlite(directory.appendingPathComponent("Kept.sqlite")),
            .binary(directory.appendingPathComponent("Kept.binary")),
        ] {
            try seed(try BookshelfStack(kind: kind))
            let relaunched = try BookshelfStack(kind: kind)
            let writers: NSFetchRequest<Writer> = Writer.fetchRequest()
            writers.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
            let found = try relaunched.mainContext.performAndWait { try relaunched.mainContext.fetch(writers) }
            XCTAssertEqual(found.map(\.name), ["Italo Calvino", "Ursula K. Le Guin"], "\(kind)")
            XCTAssertEqual(found.map { $0.books?.count ?? 0 }, [2, 3], "\(kind)")
        }
    }

    func testAChildContextSavesThroughTheMainContext() throws {
        let stack = try BookshelfStack(kind: .binary(directory.appendingPathComponent("Child.binary")))
        let child = stack.newChildContext()
        try child.performAndWait {
            let volume = Volume(context: child)
            volume.title = "Kindred"
            volume.pages = 264
            try child.save()
        }
        try stack.save()
        XCTAssertEqual(
            try titles(BookshelfStack(kind: .binary(directory.appendingPathComponent("Child.binary"))), "pages == 264"),
            ["Kindred"])
    }

    func testAStoreOfTheFirstVersionMigrates() throws {
        let url = directory.appendingPathComponent("Old.sqlite")
        let modelURL = try XCTUnwrap(Bundle.module.url(forResource: "Bookshelf", withExtension: "momd"))
        let first = try XCTUnwrap(NSManagedObjectModel(contentsOf: modelURL.appendingPathComponent("Bookshelf.mom")))
        let old = try BookshelfStack(kind: .sqlite(url), model: first)
        try old.mainContext.performAndWait {
            let volume = NSEntityDescription.insertNewObject(forEntityName: "Volume", into: old.mainContext)
            volume.setValue("Solaris", forKey: "title")
            try old.mainContext.save()
        }
        let current = try BookshelfStack(kind: .sqlite(url))
        XCTAssertEqual(try titles(current, "rating == 0 AND isRead == NO"), ["Solaris"])
    }

    // MARK: Lists sectioned by a computed property

    func testListsAreSectionedByTheTitlesInitial() throws {
        let stack = try BookshelfStack(kind: .inMemory)
        try seed(stack)
        let controller = try stack.booksByInitial()
        XCTAssertEqual(controller.sections?.map(\.name), ["A", "I", "T"])
        XCTAssertEqual(controller.sections?.map(\.numberOfObjects), [1, 2, 2])
        XCTAssertEqual(controller.sectionIndexTitles, ["A", "I", "T"])
        let volume = try XCTUnwrap(controller.fetchedObjects?.first)
        XCTAssertEqual(volume.value(forKey: "titleInitial") as? String, "A")
        // Sorting fetched objects in memory by the computed key, as clients do.
        let sorted = (controller.fetchedObjects! as NSArray).sortedArray(using: [
            NSSortDescriptor(key: "titleInitial", ascending: false),
            NSSortDescriptor(key: "pages", ascending: true),
        ])
        XCTAssertEqual((sorted as! [Volume]).map(\.pages), [184, 387, 165, 260, 183])
    }

    // MARK: Apple's number types

    /// The library turns predicates into query descriptions for a web service and casts
    /// their constants, as code written for Apple's NSNumber does.
    func testPredicateConstantsCastAsNumbers() throws {
        let predicate = NSPredicate(format: "pages > 300 AND isRead == YES AND rating >= 2.5")
        let parts = try XCTUnwrap((predicate as? NSCompoundPredicate)?.subpredicates as? [NSComparisonPredicate])
        let constants = parts.map { $0.rightExpression.constantValue }
        XCTAssertEqual(constants[0] as? Int, 300)
        XCTAssertEqual(constants[1] as? Bool, true)
        XCTAssertEqual(constants[2] as? Double, 2.5)
        XCTAssertTrue(constants.allSatisfy { $0 is NSNumber })
        XCTAssertEqual(NSExpression(format: "(2 + 5) * 6").expressionValue(with: nil, context: nil) as? Int, 42)
        XCTAssertEqual(NSPredicate(format: "pages & 1 == 1").evaluate(with: ["pages": 387]), true)
    }

    func testAggregatesComeBackAsNumbers() throws {
        let stack = try BookshelfStack(kind: .sqlite(directory.appendingPathComponent("Sums.sqlite")))
        try seed(stack)
        let sum = NSExpressionDescription()
        sum.name = "total"
        sum.expression = NSExpression(forFunction: "sum:", arguments: [NSExpression(forKeyPath: "pages")])
        sum.expressionResultType = .integer64AttributeType
        let request = NSFetchRequest<NSDictionary>(entityName: "Volume")
        request.resultType = .dictionaryResultType
        request.propertiesToFetch = [sum]
        let row = try XCTUnwrap(try stack.mainContext.performAndWait { try stack.mainContext.fetch(request) }.first)
        XCTAssertEqual(row["total"] as? Int, 387 + 183 + 184 + 165 + 260)
    }
}
