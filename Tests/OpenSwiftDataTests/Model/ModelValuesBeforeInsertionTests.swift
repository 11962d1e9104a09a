import Foundation
import OpenSwiftData
import Testing

enum PreInsertMood: String, Codable {
    case calm, busy
}

@Model
final class PreInsertShelf {
    var label: String
    var rank: Int = 7
    var note: String? = "default note"
    var mood: PreInsertMood = PreInsertMood.calm
    var opened: Date?
    @Relationship(deleteRule: .cascade, inverse: \PreInsertBook.shelf) var books: [PreInsertBook] = []
    @Transient var scratch = "transient"

    init(label: String) {
        self.label = label
    }
}

@Model
final class PreInsertBook {
    var title: String
    var shelf: PreInsertShelf?

    init(title: String, shelf: PreInsertShelf? = nil) {
        self.title = title
        self.shelf = shelf
    }
}

/// Used by one test only: no container has given it an entity before that test makes one.
@Model
final class PreInsertLoner {
    var name: String
    var count: Int = 1
    var memo: String?

    init(name: String) {
        self.name = name
    }
}

/// Values set on a model before it is in a context: kept in a Core Data object outside any
/// context (made with the entity of the container made last) or, before any container, in
/// pending values; and a fetched model's values never replaced by its declaration's defaults.
@Suite(.serialized) struct ModelValuesBeforeInsertionTests {
    private func container(_ url: URL? = nil) throws -> ModelContainer {
        let configuration = url.map { ModelConfiguration(url: $0) } ?? ModelConfiguration(isStoredInMemoryOnly: true)
        return try ModelContainer(for: PreInsertShelf.self, PreInsertBook.self, configurations: configuration)
    }

    private func fill(_ shelf: PreInsertShelf, book: PreInsertBook) {
        shelf.rank = 3
        shelf.note = nil
        shelf.mood = .busy
        shelf.opened = Date(timeIntervalSince1970: 1_000)
        shelf.books = [book]
    }

    private func checkStored(in container: ModelContainer) throws {
        let shelves = try ModelContext(container).fetch(FetchDescriptor<PreInsertShelf>())
        #expect(shelves.count == 1)
        let shelf = try #require(shelves.first)
        #expect(shelf.label == "Oak")
        #expect(shelf.rank == 3, "a fetched model keeps its stored value, not the declaration's default 7")
        #expect(shelf.note == nil, "nil set over a default is stored")
        #expect(shelf.mood == .busy)
        #expect(shelf.opened == Date(timeIntervalSince1970: 1_000))
        #expect(shelf.books.map(\.title) == ["Dune"])
        #expect(shelf.scratch == "transient")
    }

    @Test func valuesSetBeforeInsertionInTheLatestContainerAreSaved() throws {
        let container = try container()
        let shelf = PreInsertShelf(label: "Oak")
        let book = PreInsertBook(title: "Dune")
        fill(shelf, book: book)
        // Readable before insertion, from the object outside any context.
        #expect(shelf.rank == 3 && shelf.note == nil && shelf.mood == .busy && shelf.books.count == 1)
        let context = ModelContext(container)
        context.insert(shelf)
        try context.save()
        try checkStored(in: container)
    }

    @Test func aModelMadeForAnotherContainersEntityIsCopiedOnInsertion() throws {
        let first = try container()
        let shelf = PreInsertShelf(label: "Oak")
        let book = PreInsertBook(title: "Dune")
        fill(shelf, book: book)
        // A later container gives the types new entities; the model still goes into the first.
        let second = try container()
        let context = ModelContext(first)
        context.insert(shelf)
        try context.save()
        try checkStored(in: first)
        #expect(try ModelContext(second).fetchCount(FetchDescriptor<PreInsertShelf>()) == 0)
    }

    @Test func defaultsAndUnsetOptionalsOfANewModel() throws {
        let container = try container()
        let shelf = PreInsertShelf(label: "Pine")
        #expect(shelf.rank == 7 && shelf.note == "default note" && shelf.opened == nil && shelf.mood == .calm)
        let context = ModelContext(container)
        context.insert(shelf)
        try context.save()
        let fetched = try #require(try ModelContext(container).fetch(FetchDescriptor<PreInsertShelf>()).first)
        #expect(fetched.rank == 7 && fetched.note == "default note" && fetched.opened == nil && fetched.mood == .calm)
    }

    @Test func fetchedModelsOnAnotherThreadKeepTheirValues() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("PreInsert-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let container = try container(directory.appendingPathComponent("shelves.store"))
        let context = ModelContext(container)
        for number in 0..<50 {
            let shelf = PreInsertShelf(label: "S\(number)")
            shelf.rank = number
            context.insert(shelf)
        }
        try context.save()
        let ranks = try await Task.detached {
            try ModelContext(container).fetch(FetchDescriptor<PreInsertShelf>(sortBy: [SortDescriptor(\.rank)])).map(
                \.rank)
        }.value
        #expect(ranks == Array(0..<50))
    }

    @Test func aModelMadeBeforeAnyContainerKeepsItsValuesUntilInserted() throws {
        let loner = PreInsertLoner(name: "early")
        loner.count = 5
        loner.memo = "kept"
        #expect(loner.count == 5 && loner.memo == "kept")
        let container = try ModelContainer(
            for: PreInsertLoner.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        context.insert(loner)
        try context.save()
        let fetched = try #require(try ModelContext(container).fetch(FetchDescriptor<PreInsertLoner>()).first)
        #expect(fetched.name == "early" && fetched.count == 5 && fetched.memo == "kept")
    }
}
