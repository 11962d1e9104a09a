import Foundation
import OpenCoreData
import OpenCoreDataPostgreSQL
import OpenCoreDataStoreTestSupport
import OpenCoreDataTestSupport
import Testing

/// The SQLite engine's predicate equivalence suite, on PostgreSQL: the same seeded random
/// predicates over the same photo library must select exactly the objects in-memory
/// evaluation selects. A predicate the engine cannot run yet must be refused with the
/// unsupported-request error, never answered with other objects.
@Suite(
    .enabled(
        if: PostgreSQLTestServer.testsAreEnabled,
        "PostgreSQL server binaries not found (install postgresql, or set OPENCOREDATA_POSTGRES_URL)"))
struct PostgreSQLPredicateEquivalenceTests {
    /// A fresh context on a new PostgreSQL store holding the photo library.
    func libraryContext() throws -> NSManagedObjectContext {
        let model = PhotoLibraryFixture.model()
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(
            ofType: NSPostgreSQLStoreType, configurationName: nil, at: try PostgreSQLTestServer.makeDatabase())
        let writer = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        writer.persistentStoreCoordinator = coordinator
        try PhotoLibraryFixture.populate(writer)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    /// What the comparisons came to.
    struct Tally {
        var agreed = 0
        var refused = 0
        /// Refusals by the feature the error names.
        var refusedFeatures: [String: Int] = [:]
        var problems: [String] = []

        mutating func add(_ outcome: PredicateEquivalence.Outcome, _ predicate: NSPredicate, entity: String) {
            switch outcome {
            case .agreed:
                agreed += 1
            case .failed(let error as NSError) where error.code == NSPersistentStoreUnsupportedRequestTypeError:
                refused += 1
                refusedFeatures[error.localizedDescription, default: 0] += 1
            case .failed(let error):
                problems.append("\(entity) [\(predicate.predicateFormat)] threw: \(error.localizedDescription)")
            case .differed(let difference):
                problems.append("\(entity) [\(predicate.predicateFormat)]: \(difference)")
            }
        }
    }

    @Test func randomPredicatesSelectWhatMemorySelectsOrAreRefused() throws {
        let context = try libraryContext()
        let tally = try context.performAndWait {
            var objects: [String: [NSManagedObject]] = [:]
            for entity in ["Photo", "Photographer", "Tag"] {
                objects[entity] = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: entity))
            }
            // The SQLite suite's seed: the same 900 predicates.
            var generator = PredicateGenerator(random: SplitMix64(seed: 0x0CD_5EED), objects: objects)
            var tally = Tally()
            for index in 0..<900 {
                let entity = index % 3 == 0 ? "Photographer" : (index % 5 == 1 ? "Tag" : "Photo")
                let (format, arguments) = generator.predicate(for: entity)
                let predicate = NSPredicate(format: format, argumentArray: arguments)
                tally.add(
                    PredicateEquivalence.compare(predicate, entity: entity, in: context), predicate, entity: entity)
            }
            return tally
        }
        #expect(tally.problems.isEmpty, "\(tally.problems.count) problems, first: \(tally.problems.prefix(5))")
        #expect(tally.agreed + tally.refused + tally.problems.count == 900)
        print("PostgreSQL predicate equivalence: \(tally.agreed) agreed, \(tally.refused) refused of 900")
        for (feature, count) in tally.refusedFeatures.sorted(by: { $0.value > $1.value }) {
            print("  refused \(count): \(feature)")
        }
    }

    @Test func sortingAgreesWithMemory() throws {
        let context = try libraryContext()
        let result = try context.performAndWait { try SortEquivalence.compare(in: context) }
        #expect(result.problems.isEmpty, "\(result.problems.count) problems, first: \(result.problems.prefix(5))")
        #expect(result.sorts == SortEquivalence.sortCount)
    }

    @Test func handPickedCornersAgreeWithMemory() throws {
        let context = try libraryContext()
        let tally = try context.performAndWait {
            let photographers = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Photographer"))
            let tags = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Tag"))
            let photos = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Photo"))
            var tally = Tally()
            let cases = PredicateEquivalence.handPickedCases(photographers: photographers, tags: tags, photos: photos)
            for (entity, format, arguments) in cases {
                let predicate = NSPredicate(format: format, argumentArray: arguments)
                tally.add(
                    PredicateEquivalence.compare(predicate, entity: entity, in: context), predicate, entity: entity)
            }
            return tally
        }
        #expect(tally.problems.isEmpty, "\(tally.problems)")
        #expect(tally.refused == 0)
    }
}
