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
            let cases: [(String, String, [Any])] = [
                ("Photo", "ALL tags.name BEGINSWITH 'n'", []),
                ("Photo", "NONE tags.name ==[c] 'nature'", []),
                ("Photo", "ANY tags.name == nil", []),
                ("Photo", "ALL tags.name != nil", []),
                ("Photo", "title == 'Cafe\u{301}'", []),
                ("Photo", "title ==[d] 'cafe'", []),
                ("Photo", "title BEGINSWITH 'Cafe'", []),
                ("Photo", "whoTook == %@", [photographers[0].objectID]),
                ("Photo", "SELF IN %@", [[photos[1], photos[2].objectID]]),
                ("Photo", "%@ IN tags", [tags[0]]),
                ("Photo", "tags CONTAINS %@", [tags[3].objectID]),
                ("Photo", "'nature' IN[c] tags.name", []),
                ("Photo", "title IN 'The sunset over Lake'", []),
                ("Photo", "SUBQUERY(tags, $t, SUBQUERY($t.photos, $p, $p.views > 5).@count > 1).@count > 0", []),
                ("Photo", "tags[FIRST].name == 'nature'", []),
                ("Photo", "whoTook.photos.@count == 0", []),
                ("Photo", "whoTook.photos == nil", []),
                ("Photo", "views < nil OR nil < views", []),
                ("Photo", "NOT (views > 10)", []),
                ("Photo", "NOT (title == 'Sunset')", []),
                ("Photo", "uploadDate > rating", []),
                ("Photo", "uploadDate != 5", []),
                ("Photo", "TRUEPREDICATE", []),
                ("Photo", "FALSEPREDICATE OR rating BETWEEN {2, 4}", []),
                ("Photographer", "photos.@count > 2", []),
                ("Photographer", "ALL photos.views > 1", []),
                ("Photographer", "favorites.@count == 0 AND photos.@count > 0", []),
                ("Photographer", "ANY favorites.name ==[cd] 'CAFE'", []),
                ("Photographer", "photos[LAST].title ==[c] 'zebra'", []),
                ("Photographer", "name < 'b'", []),
                ("Tag", "ANY photos.whoTook.name == nil", []),
                ("Tag", "photos.whoTook.@count > 1", []),
                ("Tag", "name ==[cd] 'CAFE'", []),
            ]
            for (entity, format, arguments) in cases {
                Self.check(try NSPredicate.parse(format: format, argumentArray: arguments), entity: entity, in: context)
            }
        }
    }

    @Test func sortingAgreesWithMemory() throws {
        let context = try libraryContext()
        try context.performAndWait {
            let selectors: [Selector] = [
                .compare, .caseInsensitiveCompare, .localizedCompare, .localizedCaseInsensitiveCompare,
                .localizedStandardCompare, Selector("unknownCompare:"),
            ]
            let keys = [
                ("Photo", "title"), ("Photo", "whoTook.name"), ("Photo", "views"), ("Photo", "rating"),
                ("Photo", "uploadDate"),
                ("Photo", "isPublic"), ("Photo", "uuid"), ("Photo", "whoTook"), ("Photo", "tags.@count"),
                ("Photo", "whoTook.photos.@count"),
                ("Photographer", "name"), ("Photographer", "born"), ("Photographer", "photos.@max.views"),
                ("Tag", "name"), ("Tag", "weight"),
            ]
            var sorts = 0
            for (entity, key) in keys {
                let all = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: entity))
                for selector in selectors {
                    for ascending in [true, false] {
                        var descriptors = [NSSortDescriptor(key: key, ascending: ascending, selector: selector)]
                        if key == "whoTook.name" {
                            descriptors.append(
                                NSSortDescriptor(key: "title", ascending: !ascending, selector: selector))
                        }
                        let request = NSFetchRequest<NSManagedObject>(entityName: entity)
                        request.sortDescriptors = descriptors
                        request.includesPendingChanges = false
                        let stored = try context.fetch(request)
                        sorts += 1
                        #expect(Set(stored) == Set(all))
                        for (a, b) in zip(stored, stored.dropFirst())
                        where NSSortDescriptor.compare(a, b, using: descriptors) == .orderedDescending {
                            Issue.record(
                                "\(entity) sorted by \(descriptors): \(a.value(forKeyPath: key) ?? "nil") came before \(b.value(forKeyPath: key) ?? "nil")"
                            )
                        }
                        // The in-memory sort of the store's result must not move anything that differs.
                        let resorted = stored.sorted(using: descriptors)
                        #expect(
                            zip(stored, resorted).allSatisfy {
                                NSSortDescriptor.compare($0, $1, using: descriptors) == .orderedSame
                            })
                    }
                }
            }
            #expect(sorts == keys.count * selectors.count * 2)
        }
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
