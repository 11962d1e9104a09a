import Foundation
@testable import OpenCoreDataCore
@testable import OpenCoreDataSQLite
import Testing

// The exact SQL of relationshipKeyPathsForPrefetching: after the fetch, one SELECT per
// relationship reads the related rows of every fetched object at once, their keys bound
// as one JSON array. A change to a statement is a deliberate change to this file.

/// One prefetched relationship of the library model (see `libraryModel()` in
/// GeneratedSQLTests) with the statement that reads its destinations.
struct PrefetchCase: CustomTestStringConvertible, Sendable {
    let entity: String
    let key: String
    let prefetchSQL: String
    var testDescription: String { "\(entity).\(key)" }
}

private let bookColumns = "t0.Z_PK, t0.Z_ENT, t0.Z_OPT, t0.ZTITLE, t0.ZPAGES, t0.ZSHELF, t0.ZPUBLISHER"

let prefetchCases: [PrefetchCase] = [
    PrefetchCase(
        entity: "Author", key: "books",
        prefetchSQL:
            "SELECT j.Z_1AUTHORS, \(bookColumns) FROM Z_1BOOKS j JOIN ZBOOK t0 ON t0.Z_PK = j.Z_2BOOKS WHERE j.Z_1AUTHORS IN (SELECT value FROM json_each(?)) ORDER BY j.Z_1AUTHORS"
    ),
    PrefetchCase(
        entity: "Reader", key: "favorites",
        prefetchSQL:
            "SELECT t0.Z4FAVORITES, \(bookColumns) FROM ZBOOK t0 WHERE t0.Z4FAVORITES IN (SELECT value FROM json_each(?))"
    ),
    PrefetchCase(
        entity: "Shelf", key: "books",
        prefetchSQL:
            "SELECT t0.ZSHELF, \(bookColumns) FROM ZBOOK t0 WHERE t0.ZSHELF IN (SELECT value FROM json_each(?)) ORDER BY t0.ZSHELF, t0.Z_FOK_SHELF, t0.Z_PK"
    ),
    PrefetchCase(
        entity: "Publisher", key: "books",
        prefetchSQL:
            "SELECT t0.ZPUBLISHER, \(bookColumns) FROM ZBOOK t0 WHERE t0.ZPUBLISHER IN (SELECT value FROM json_each(?))"
    ),
    PrefetchCase(
        entity: "Book", key: "publisher",
        prefetchSQL:
            "SELECT t0.Z_PK, t0.Z_ENT, t0.Z_OPT, t0.ZNAME FROM ZPUBLISHER t0 WHERE t0.Z_PK IN (SELECT value FROM json_each(?))"
    ),
]

@Suite struct PrefetchSQLTests {
    /// A store holding one of each object, the book related to all the others, and a
    /// context on a second coordinator (whose row cache is empty) with a recorder.
    private func library() throws -> (NSManagedObjectContext, SQLRecorder) {
        let model = libraryModel()
        let url = temporaryStoreURL("Library")
        let writer = try makeContext(model, url: url)
        try writer.performAndWait {
            let book = NSEntityDescription.insertNewObject(forEntityName: "Book", into: writer)
            for name in ["Author", "Publisher", "Reader", "Shelf"] {
                let owner = NSEntityDescription.insertNewObject(forEntityName: name, into: writer)
                let key = name == "Reader" ? "favorites" : "books"
                if name == "Shelf" {
                    owner.mutableOrderedSetValue(forKey: key).add(book)
                } else {
                    owner.mutableSetValue(forKey: key).add(book)
                }
            }
            try writer.save()
        }
        let context = try makeContext(model, url: url)
        return (context, SQLRecorder(context))
    }

    @Test(arguments: prefetchCases) func prefetchingReadsTheRelatedRowsInOneStatement(
        _ relationship: PrefetchCase
    ) throws {
        let (context, recorder) = try library()
        try context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: relationship.entity)
            request.relationshipKeyPathsForPrefetching = [relationship.key]
            let fetched = try context.fetch(request)
            #expect(fetched.count == 1)
        }
        let statements = recorder.take()
        #expect(statements.count == 2)
        #expect(statements.first?.hasPrefix("SELECT t0.Z_PK, t0.Z_ENT, t0.Z_OPT") == true)
        #expect(statements.last == relationship.prefetchSQL)
    }
}
