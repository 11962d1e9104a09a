import Foundation
import OpenCoreData
import OpenSwiftData
import Testing

/// What cannot run in SQL throws, naming the construct; `SwiftDataError` compares by kind.
@Suite struct PredicateTranslationErrorTests {
    let translator = PredicateTranslator(keyName: { PredicateTranslationFixture.keyNames[$0] }, constant: { $0 })

    /// The error `body` throws, which must be a `SwiftDataError`.
    func error(_ body: () throws -> Void, sourceLocation: SourceLocation = #_sourceLocation) -> SwiftDataError? {
        thrownSwiftDataError(body, sourceLocation: sourceLocation)
    }

    @Test func unknownKeyPathsThrowUnsupportedKeyPath() throws {
        let thrown = error { _ = try translator.predicate(#Predicate<PTTrip> { $0.summary == "Rome" }) }
        #expect(thrown == .unsupportedKeyPath)
        #expect(
            thrown?.description.contains("PTTrip") == true,
            "the message names the key path: \(String(describing: thrown))")
    }

    @Test func unsupportedNodesAreNamed() throws {
        let subscripted = error { _ = try translator.predicate(#Predicate<PTTrip> { $0.activities[0].cost > 3 }) }
        #expect(subscripted == .unsupportedPredicate)
        #expect(
            subscripted?.localizedDescription.contains("PredicateExpressions.CollectionIndexSubscript") == true,
            "\(String(describing: subscripted?.localizedDescription))")

        let maximum = error { _ = try translator.predicate(#Predicate<PTTrip> { $0.tags.max() == "x" }) }
        #expect(maximum == .unsupportedPredicate)
        #expect(maximum?.description.contains("PredicateExpressions.SequenceMaximum") == true)
    }

    @Test func arrayAttributesCannotBeSearched() throws {
        let contains = error { _ = try translator.predicate(#Predicate<PTTrip> { $0.tags.contains("beach") }) }
        #expect(contains == .unsupportedPredicate)
        #expect(contains?.description.contains("PredicateExpressions.SequenceContains") == true)
        let count = error { _ = try translator.predicate(#Predicate<PTTrip> { $0.tags.count > 1 }) }
        #expect(count == .unsupportedPredicate)
    }

    @Test func filteringACapturedCollectionByTheObjectThrows() throws {
        let names = ["Rome"]
        let thrown = error {
            _ = try translator.predicate(#Predicate<PTTrip> { trip in names.filter { $0 == trip.name }.count > 0 })
        }
        #expect(thrown == .unsupportedPredicate)
        #expect(thrown?.description.contains("PredicateExpressions.Filter") == true)
    }

    @Test func subqueriesCannotReadTheFetchedObject() throws {
        let thrown = error {
            _ = try translator.predicate(
                #Predicate<PTTrip> { trip in trip.activities.contains { $0.cost * 10 > trip.budget } })
        }
        #expect(thrown == .unsupportedPredicate)
        #expect(thrown?.description.contains("contains(where:)") == true)
    }

    @Test func comparisonResultsNeedAConstant() throws {
        let thrown = error {
            _ = try translator.predicate(
                #Predicate<PTTrip> { $0.name.caseInsensitiveCompare("a") == $0.name.caseInsensitiveCompare("b") })
        }
        #expect(thrown == .unsupportedPredicate)
        #expect(thrown?.description.contains("PredicateExpressions.StringCaseInsensitiveCompare") == true)
    }

    @Test func unknownSortKeyPathsThrow() throws {
        let thrown = error { _ = try translator.sortDescriptors([SortDescriptor(\PTTrip.summary)]) }
        #expect(thrown == .unsupportedKeyPath)
    }

    @Test func errorsCompareByKind() {
        let explained = SwiftDataError.unsupportedPredicate.explained(
            "#Predicate uses `X` in a way SQL cannot express: because")
        #expect(explained == .unsupportedPredicate)
        #expect(explained != .unsupportedKeyPath)
        #expect(explained.hashValue == SwiftDataError.unsupportedPredicate.hashValue)
        #expect(SwiftDataError.unsupportedPredicate ~= explained)
        #expect(explained.localizedDescription == "#Predicate uses `X` in a way SQL cannot express: because")
        #expect(explained.description.hasPrefix("SwiftDataError.unsupportedPredicate: "))
        #expect(SwiftDataError.loadIssueModelContainer.description.contains("loadIssueModelContainer"))
    }
}

/// `SortDescriptor` translated to `NSSortDescriptor`, and the order the store gives.
@Suite struct PredicateTranslationSortTests {
    let fixture: PredicateTranslationFixture

    init() throws {
        fixture = try PredicateTranslationFixture()
    }

    @Test func keysOrdersAndSelectors() throws {
        let sorts = try fixture.translator.sortDescriptors([
            SortDescriptor(\PTTrip.budget, order: .reverse),
            SortDescriptor(\PTTrip.name),
            SortDescriptor(\PTTrip.nickname, comparator: .lexical),
        ])
        #expect(sorts.map(\.key) == ["budget", "name", "nickname"])
        #expect(sorts.map(\.ascending) == [false, true, true])
        #expect(sorts[2].selector == .compare)
    }

    @Test func theStoreSortsByThem() throws {
        #expect(
            try fixture.orderedNames("Trip", [SortDescriptor(\PTTrip.budget, order: .reverse)])
                == ["Tokyo", "Paris", "Rome", "Oslo", "Café Crawl"])
        #expect(
            try fixture.orderedNames("Trip", [SortDescriptor(\PTTrip.name, comparator: .lexical)])
                == ["Café Crawl", "Oslo", "Paris", "Rome", "Tokyo"])
        #expect(
            try fixture.orderedNames("Activity", [SortDescriptor(\PTActivity.cost)])
                == ["Espresso", "Louvre", "Colosseum", "Eiffel", "Vatican", "Food tour", "Fjord"])
    }

    @Test func multiStepKeyPathsSortThroughToOneRelationships() throws {
        #expect(
            try fixture.orderedNames("Trip", [SortDescriptor(\PTTrip.destination?.name), SortDescriptor(\PTTrip.name)])
                == ["Oslo", "Café Crawl", "Paris", "Rome", "Tokyo"])
    }
}

/// The string expressions OpenSwiftData adds for Linux still evaluate in memory.
@Suite struct PredicateTranslationInMemoryTests {
    @Test func addedStringExpressionsEvaluate() throws {
        let trip = PTTrip()
        trip.name = "Café Crawl"
        let same = ComparisonResult.orderedSame
        let before = ComparisonResult.orderedAscending
        #expect(try #Predicate<PTTrip> { $0.name.localizedStandardContains("cafe") }.evaluate(trip))
        #expect(try #Predicate<PTTrip> { $0.name.caseInsensitiveCompare("CAFÉ CRAWL") == same }.evaluate(trip))
        #expect(try #Predicate<PTTrip> { $0.name.localizedCompare("Oslo") == before }.evaluate(trip))
        #expect(try !#Predicate<PTTrip> { $0.name.localizedStandardContains("tokyo") }.evaluate(trip))
    }
}

/// Three evaluations agree: Swift's (`Predicate.evaluate` over the mirror objects), SQL's
/// (the translated predicate fetched from the store) and the in-memory `NSPredicate` one a fetch
/// uses for the context's unsaved objects (as Core Data does).
@Suite struct PredicateTranslationPendingChangesTests {
    @Test func swiftSQLAndInMemoryEvaluationAgree() throws {
        let saved = try PredicateTranslationFixture()
        let pending = try PredicateTranslationFixture(saved: false)
        let wanted = ["Rome", "Oslo"]
        let closed = 1000.0...2500.0
        let tripPredicates: [Predicate<PTTrip>] = [
            #Predicate { $0.name != "Rome" && $0.budget > 500 },
            #Predicate { $0.nickname != "Roma" },
            #Predicate { $0.destination?.name == "France" },
            #Predicate { if let place = $0.destination { place.latitude < 40 } else { true } },
            #Predicate { ($0.rating ?? 0) < 3 },
            #Predicate { $0.nights / 2 == 3 || $0.nights % 2 == 0 },
            #Predicate { ($0.isFavorite ? $0.budget : 0) > 1000 },
            #Predicate { $0.name.localizedStandardContains("CAFE") || $0.name.starts(with: "To") },
            #Predicate { $0.name.count == 5 },
            #Predicate { wanted.contains($0.name) },
            #Predicate { closed.contains($0.budget) },
            #Predicate { $0.activities.isEmpty || $0.activities.count > 2 },
            #Predicate { $0.activities.contains { $0.cost > 50 } },
            #Predicate { $0.activities.allSatisfy { $0.cost < 30 } },
            #Predicate { $0.activities.filter { $0.cost >= 20 }.count >= 2 },
            #Predicate { ($0.nickname?.count ?? 0) > 3 },
            #Predicate { $0.nickname?.contains("a") == true },
            #Predicate { $0.nickname?.contains("a") != true },
            #Predicate { ($0.destination?.trips.count ?? 0) > 1 },
            #Predicate { $0.rating.flatMap { $0 > 3 } ?? true },
            #Predicate { $0.rating != nil && $0.rating! >= 4 },
            #Predicate { -$0.budget < -2000 || $0.nights * 3 - 1 == 14 },
            #Predicate { $0.destination?.country != "FR" },
            #Predicate { $0.destination?.latitude ?? 0 > 40 },
            #Predicate { $0.isFavorite == ($0.nights > 4) },
            #Predicate { !($0.activities.contains { $0.name.starts(with: "E") }) },
        ]
        for (index, predicate) in tripPredicates.enumerated() {
            let inSwift = try saved.swiftNames(predicate)
            let inSQL = try saved.names("Trip", predicate)
            let inMemory = try pending.names("Trip", predicate)
            let format = try saved.translate(predicate).predicateFormat
            #expect(inSQL == inSwift, "predicate \(index) in SQL: \(format)")
            #expect(inMemory == inSwift, "predicate \(index) in memory: \(format)")
        }
        let nested = #Predicate<PTDestination> { place in
            place.trips.contains { trip in trip.activities.contains { $0.cost > trip.budget / 100 } }
        }
        let nestedInSQL = try saved.names("Destination", nested)
        #expect(try pending.names("Destination", nested) == nestedInSQL)
    }
}

/// What the store itself refuses (the table named a key the model lacks; a block predicate)
/// fails the fetch, never falls back to memory, and maps to SwiftData's errors.
@Suite struct PredicateTranslationStoreErrorTests {
    let fixture: PredicateTranslationFixture

    init() throws {
        fixture = try PredicateTranslationFixture()
    }

    /// The error a fetch of trips with `predicate` throws, mapped to a `SwiftDataError`.
    func storeError(_ predicate: NSPredicate) -> SwiftDataError? {
        do {
            _ = try fixture.names("Trip", predicate)
            Issue.record("the fetch did not throw")
            return nil
        } catch {
            return SwiftDataError.storeFetchError(error)
        }
    }

    @Test func keysTheModelLacksThrowUnsupportedKeyPath() throws {
        let translator = PredicateTranslator(
            keyName: { $0 == \PTTrip.summary ? "summary" : PredicateTranslationFixture.keyNames[$0] },
            constant: { $0 })
        let predicate = try translator.predicate(#Predicate<PTTrip> { $0.summary == "Rome" })
        let thrown = storeError(predicate)
        #expect(thrown == .unsupportedKeyPath)
        #expect(thrown?.localizedDescription.contains("summary") == true, "\(String(describing: thrown))")
    }

    @Test func blockPredicatesThrowUnsupportedPredicate() {
        let thrown = storeError(NSPredicate(block: { _, _ in true }))
        #expect(thrown == .unsupportedPredicate)
        #expect(thrown?.localizedDescription.contains("block predicates") == true, "\(String(describing: thrown))")
    }

    @Test func otherErrorsAreNotMapped() {
        #expect(SwiftDataError.storeFetchError(CocoaError(.fileNoSuchFile)) == nil)
    }
}
