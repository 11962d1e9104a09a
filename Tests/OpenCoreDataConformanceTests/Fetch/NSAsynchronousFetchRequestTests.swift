import Foundation
import XCTest
#if canImport(CoreData) && OPENCOREDATA_COMPATIBILITY_TEST
import CoreData
#else
import OpenCoreData
#endif

/// What a completion block saw, written on the context's queue and read by the test.
final class AsynchronousFetchRecord<T>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [T]?
    private var calls = 0

    func record(_ values: [T]?) {
        lock.lock()
        defer { lock.unlock() }
        stored = values
        calls += 1
    }

    var values: [T]? {
        lock.lock()
        defer { lock.unlock() }
        return stored
    }

    var count: Int {
        lock.lock()
        defer { lock.unlock() }
        return calls
    }
}

/// `NSAsynchronousFetchRequest`: a fetch request run in the background of a context, its
/// results handed to a completion block.
final class NSAsynchronousFetchRequestTests: XCTestCase {
    /// A private-queue context on a /dev/null store holding the shared library.
    static func libraryContext() throws -> NSManagedObjectContext {
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = try ConformanceModel.coordinator()
        try context.performAndWait {
            try ConformanceModel.shelve([("Austen", ["Emma", "Persuasion"]), ("Eliot", ["Middlemarch"])], in: context)
        }
        return context
    }

    func testTheRequestKeepsItsFetchRequestAndEstimate() {
        let fetch = NSFetchRequest<Book>(entityName: "Book")
        let request = NSAsynchronousFetchRequest(fetchRequest: fetch) { _ in }
        XCTAssertTrue(request.fetchRequest === fetch)
        XCTAssertNotNil(request.completionBlock)
        XCTAssertEqual(request.estimatedResultCount, 0)
        request.estimatedResultCount = 25
        XCTAssertEqual(request.estimatedResultCount, 25)
        XCTAssertNil(NSAsynchronousFetchRequest(fetchRequest: fetch).completionBlock)
        let untyped: NSPersistentStoreRequest = request
        XCTAssertTrue(untyped is NSAsynchronousFetchRequest<Book>)
    }

    /// Runs `fetch` asynchronously in `context` and records the titles its completion block gets.
    private func titles(
        fetching fetch: NSFetchRequest<Book>, in context: NSManagedObjectContext
    ) throws -> AsynchronousFetchRecord<String> {
        let record = AsynchronousFetchRecord<String>()
        let done = expectation(description: "completion")
        let request = NSAsynchronousFetchRequest(fetchRequest: fetch) { result in
            record.record(result.finalResult?.map { $0.title ?? "" })
            done.fulfill()
        }
        try context.performAndWait { _ = try context.execute(request) }
        wait(for: [done], timeout: 10)
        return record
    }

    func testTheCompletionBlockGetsTheFetchedObjects() throws {
        let context = try Self.libraryContext()
        let fetch = NSFetchRequest<Book>(entityName: "Book")
        fetch.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
        let record = try titles(fetching: fetch, in: context)
        XCTAssertEqual(record.values, ["Emma", "Middlemarch", "Persuasion"])
        XCTAssertEqual(record.count, 1)
    }

    func testThePredicateAndLimitOfTheFetchRequestApply() throws {
        let context = try Self.libraryContext()
        let fetch = NSFetchRequest<Book>(entityName: "Book")
        fetch.predicate = NSPredicate(format: "author.name == %@", "Austen")
        fetch.sortDescriptors = [NSSortDescriptor(key: "title", ascending: false)]
        fetch.fetchLimit = 1
        let record = try titles(fetching: fetch, in: context)
        XCTAssertEqual(record.values, ["Persuasion"])
    }

    func testDictionaryResultsArriveAsDictionaries() throws {
        let context = try Self.libraryContext()
        let fetch = NSFetchRequest<NSDictionary>(entityName: "Author")
        fetch.resultType = .dictionaryResultType
        fetch.propertiesToFetch = ["name"]
        fetch.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
        let record = AsynchronousFetchRecord<String>()
        let done = expectation(description: "completion")
        let request = NSAsynchronousFetchRequest(fetchRequest: fetch) { result in
            record.record(result.finalResult?.compactMap { $0["name"] as? String })
            done.fulfill()
        }
        try context.performAndWait { _ = try context.execute(request) }
        wait(for: [done], timeout: 10)
        XCTAssertEqual(record.values, ["Austen", "Eliot"])
    }
}
