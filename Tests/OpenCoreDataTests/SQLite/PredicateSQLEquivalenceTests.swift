@testable import OpenCoreDataCore
@testable import OpenCoreDataPredicate
import OpenCoreDataStoreTestSupport
import OpenCoreDataTestSupport
import Testing

// A store fetch must return exactly the objects in-memory evaluation selects, and
// in the order in-memory sorting gives. Hundreds of predicates come from a seeded
// generator over the photo library (PhotoLibraryFixture); each is fetched from a
// fresh context (pending changes excluded) and evaluated on every object.

@Suite struct PredicateSQLEquivalenceTests {
    let model = PhotoLibraryFixture.model()

    /// A fresh context on a store holding the photo library.
    func libraryContext() throws -> NSManagedObjectContext {
        let url = temporaryStoreURL("Library")
        try PhotoLibraryFixture.populate(model, at: url)
        return try makeContext(model, url: url)
    }

    /// Fetches with `predicate` and compares with in-memory evaluation; records the
    /// predicate's format on any difference. Returns whether both agreed.
    @discardableResult
    static func check(
        _ predicate: NSPredicate, entity: String, in context: NSManagedObjectContext,
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> Bool {
        switch PredicateEquivalence.compare(predicate, entity: entity, in: context) {
        case .agreed:
            return true
        case .differed(let difference):
            Issue.record("\(entity) [\(predicate.predicateFormat)]: \(difference)", sourceLocation: sourceLocation)
        case .failed(let error):
            Issue.record(
                "\(entity) [\(predicate.predicateFormat)] threw: \(error.localizedDescription)",
                sourceLocation: sourceLocation)
        }
        return false
    }

    @Test func randomPredicatesAgreeWithMemory() throws {
        let context = try libraryContext()
        try context.performAndWait {
            var objects: [String: [NSManagedObject]] = [:]
            for entity in ["Photo", "Photographer", "Tag"] {
                objects[entity] = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: entity))
            }
            var generator = PredicateGenerator(random: SplitMix64(seed: 0x0CD_5EED), objects: objects)
            var checked = 0, agreed = 0, nonEmpty = 0
            for index in 0..<900 {
                let entity = index % 3 == 0 ? "Photographer" : (index % 5 == 1 ? "Tag" : "Photo")
                let (format, arguments) = generator.predicate(for: entity)
                let predicate: NSPredicate
                do {
                    predicate = try NSPredicate.parse(format: format, argumentArray: arguments)
                } catch {
                    Issue.record("generated an unparsable predicate: \(format): \(error)")
                    continue
                }
                checked += 1
                if Self.check(predicate, entity: entity, in: context) { agreed += 1 }
                let all = objects[entity]!
                if all.contains(where: { predicate.evaluate(with: $0) })
                    && !all.allSatisfy({ predicate.evaluate(with: $0) })
                {
                    nonEmpty += 1
                }
            }
            #expect(checked == 900)
            #expect(agreed == checked)
            // The generator must produce selective predicates, not mostly constant ones.
            #expect(nonEmpty > checked / 3, "only \(nonEmpty) of \(checked) predicates split the objects")
        }
    }

    /// Corners picked by hand: empty collections under ALL/NONE, nil elements,
    /// decomposed accents, objects versus IDs, nested SUBQUERY, ordered positions.
    @Test func handPickedCornersAgreeWithMemory() throws {
        let context = try libraryContext()
        try context.performAndWait {
            let photographers = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Photographer"))
            let tags = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Tag"))
            let photos = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Photo"))
            let cases = PredicateEquivalence.handPickedCases(photographers: photographers, tags: tags, photos: photos)
            for (entity, format, arguments) in cases {
                Self.check(try NSPredicate.parse(format: format, argumentArray: arguments), entity: entity, in: context)
            }
        }
    }

    @Test func sortingAgreesWithMemory() throws {
        let context = try libraryContext()
        let result = try context.performAndWait { try SortEquivalence.compare(in: context) }
        #expect(result.problems.isEmpty, "\(result.problems.count) problems, first: \(result.problems.prefix(5))")
        #expect(result.sorts == SortEquivalence.sortCount)
    }

    @Test func notAgreesWithMemoryOnNulls() throws {
        let context = try makeContext(ModelBuilder.notesModel())
        try context.performAndWait {
            for text in [nil, nil, "Bob"] as [String?] { Note(context: context).text = text }
            try context.save()
            let predicate = NSPredicate(format: "NOT (text == 'Bob')")
            let request = Note.fetchRequest()
            request.predicate = predicate
            let stored = try context.count(for: request)
            let all = try context.fetch(Note.fetchRequest())
            #expect(stored == all.filter { predicate.evaluate(with: $0) }.count)
            #expect(stored == 2)
        }
    }
}
