import Foundation
import OpenCoreData
import OpenSwiftData
import Testing

/// `#Predicate` translated to `NSPredicate`: the format string it gives, and what the SQLite
/// store returns for it (the five trips of `PredicateTranslationFixture`).
@Suite struct PredicateTranslationTests {
    let fixture: PredicateTranslationFixture

    init() throws {
        fixture = try PredicateTranslationFixture()
    }

    /// Translates `predicate`, checks its format and the trips the store returns.
    func check(
        _ predicate: Predicate<PTTrip>, _ format: String, _ expected: Set<String>,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let translated = try fixture.translate(predicate)
        #expect(translated.predicateFormat == format, sourceLocation: sourceLocation)
        #expect(try fixture.names("Trip", translated) == expected, sourceLocation: sourceLocation)
    }

    // MARK: Comparisons and logic

    @Test func equalityAndOrder() throws {
        try check(#Predicate { $0.name == "Rome" }, #"name == "Rome""#, ["Rome"])
        try check(#Predicate { $0.name != "Rome" }, #"name != "Rome""#, ["Paris", "Tokyo", "Oslo", "Café Crawl"])
        try check(#Predicate { $0.budget > 2500 }, "budget > 2500.0", ["Tokyo"])
        try check(#Predicate { $0.budget >= 2500 }, "budget >= 2500.0", ["Paris", "Tokyo"])
        try check(#Predicate { $0.nights < 3 }, "nights < 3", ["Café Crawl"])
        try check(#Predicate { $0.nights <= 3 }, "nights <= 3", ["Oslo", "Café Crawl"])
        try check(#Predicate { 5 < $0.nights }, "5 < nights", ["Paris", "Tokyo"])
    }

    @Test func conjunctionDisjunctionNegation() throws {
        try check(
            #Predicate { $0.budget > 1000 && $0.nights <= 7 }, "budget > 1000.0 AND nights <= 7", ["Rome", "Paris"])
        try check(
            #Predicate { $0.budget < 1000 || $0.isFavorite }, "budget < 1000.0 OR isFavorite == YES",
            ["Oslo", "Café Crawl", "Rome", "Tokyo"])
        try check(#Predicate { !($0.nights > 3) }, "NOT nights > 3", ["Oslo", "Café Crawl"])
        try check(#Predicate { $0.isFavorite == false }, "isFavorite == NO", ["Paris", "Oslo", "Café Crawl"])
        try check(
            #Predicate { $0.nights > 2 && $0.nights < 10 && $0.budget > 1000 },
            "nights > 2 AND nights < 10 AND budget > 1000.0", ["Rome", "Paris"])
    }

    @Test func constantsKnownNowAreFolded() throws {
        let tokyo = try #require(fixture.trips["Tokyo"])
        let limit = 1000.0
        try check(#Predicate { $0.name == tokyo.name }, #"name == "Tokyo""#, ["Tokyo"])
        try check(#Predicate { $0.budget > limit * 2 }, "budget > 2000.0", ["Paris", "Tokyo"])
        try check(#Predicate { limit > 5000 || $0.nights == 3 }, "nights == 3", ["Oslo"])
        try check(
            #Predicate { limit < 5000 || $0.nights == 3 }, "TRUEPREDICATE",
            ["Rome", "Paris", "Tokyo", "Oslo", "Café Crawl"])
    }

    // MARK: Constants of every kind

    @Test func dateUUIDDataAndEnumConstants() throws {
        let cutoff = PredicateTranslationFixture.date("2024-06-01")
        let rome = PredicateTranslationFixture.romeID
        let photo = Data([1, 2, 3])
        let planned = PTStatus.planned
        let cutoffPredicate = try fixture.translate(#Predicate<PTTrip> { $0.startDate > cutoff })
        #expect(try fixture.names("Trip", cutoffPredicate) == ["Paris", "Tokyo"])
        #expect(try fixture.names("Trip", #Predicate<PTTrip> { $0.tripID == rome }) == ["Rome"])
        #expect(try fixture.names("Trip", #Predicate<PTTrip> { $0.photo == photo }) == ["Rome"])
        try check(#Predicate { $0.status == planned }, #"status == "planned""#, ["Rome", "Oslo"])
    }

    @Test func capturedCollectionsBecomeIN() throws {
        let wanted = ["Rome", "Oslo", "Atlantis"]
        try check(#Predicate { wanted.contains($0.name) }, #"name IN {"Rome", "Oslo", "Atlantis"}"#, ["Rome", "Oslo"])
        let statuses: Set<PTStatus> = [.done]
        try check(#Predicate { statuses.contains($0.status) }, #"status IN {"done"}"#, ["Tokyo", "Café Crawl"])
    }

    @Test func modelConstantsBecomeObjectIDs() throws {
        let rome = try #require(fixture.trips["Rome"])
        let fjord = try #require(fixture.activities["Fjord"])
        #expect(
            try fixture.names("Activity", #Predicate<PTActivity> { $0.trip == rome }) == [
                "Colosseum", "Vatican", "Food tour",
            ])
        #expect(
            try fixture.names("Activity", #Predicate<PTActivity> { $0.trip != rome }) == [
                "Louvre", "Eiffel", "Fjord", "Espresso",
            ])
        #expect(try fixture.names("Trip", #Predicate<PTTrip> { $0.activities.contains(fjord) }) == ["Oslo"])
    }

    @Test func persistentIdentifiersNameTheObjectItself() throws {
        let rome = try #require(fixture.trips["Rome"]).persistentModelID
        let fjord = try #require(fixture.activities["Fjord"]).persistentModelID
        #expect(try fixture.names("Trip", #Predicate<PTTrip> { $0.persistentModelID == rome }) == ["Rome"])
        let tripIsRome = try fixture.translate(#Predicate<PTActivity> { $0.trip?.persistentModelID == rome })
        #expect(tripIsRome.predicateFormat.hasPrefix("trip == "), "\(tripIsRome.predicateFormat)")
        #expect(try fixture.names("Activity", tripIsRome) == ["Colosseum", "Vatican", "Food tour"])
        #expect(
            try fixture.names("Trip", #Predicate<PTTrip> { $0.activities.contains { $0.persistentModelID == fjord } })
                == ["Oslo"])
    }

    // MARK: Optionals

    @Test func nilComparisons() throws {
        try check(#Predicate { $0.nickname == nil }, "nickname == nil", ["Paris", "Oslo"])
        try check(#Predicate { $0.nickname != nil }, "nickname != nil", ["Rome", "Tokyo", "Café Crawl"])
        try check(#Predicate { $0.destination == nil }, "destination == nil", ["Oslo"])
    }

    @Test func nilIsUnequalToEveryValueAsInSwift() throws {
        let others: Set = ["Paris", "Tokyo", "Oslo", "Café Crawl"]
        try check(#Predicate { $0.nickname != "Roma" }, #"nickname != "Roma""#, others)
        try check(#Predicate { !($0.nickname == "Roma") }, #"NOT nickname == "Roma""#, others)
        try check(#Predicate { $0.rating != 4 }, "rating != 4", others)
        try check(#Predicate { !($0.destination?.name == "Italy") }, #"NOT destination.name == "Italy""#, others)
    }

    @Test func optionalChainsReadThroughToOneRelationships() throws {
        try check(
            #Predicate { $0.destination?.name == "France" }, #"destination.name == "France""#, ["Paris", "Café Crawl"])
        try check(#Predicate { $0.destination?.country == nil }, "destination.country == nil", ["Tokyo", "Oslo"])
        #expect(
            try fixture.names("Activity", #Predicate<PTActivity> { $0.trip?.destination?.name == "France" })
                == ["Louvre", "Eiffel", "Espresso"])
    }

    @Test func nilCoalescingForcedUnwrapAndIfLet() throws {
        try check(
            #Predicate { ($0.nickname ?? "none") == "none" }, #"TERNARY(nickname == nil, "none", nickname) == "none""#,
            ["Paris", "Oslo"])
        try check(
            #Predicate { $0.destination!.latitude > 40 }, "destination.latitude > 40.0",
            ["Rome", "Paris", "Café Crawl"])
        try check(
            #Predicate { if let place = $0.destination { place.latitude < 40 } else { false } },
            "NOT destination == nil AND destination.latitude < 40.0", ["Tokyo"])
        try check(
            #Predicate { if let place = $0.destination { place.latitude < 40 } else { true } },
            "(NOT destination == nil AND destination.latitude < 40.0) OR destination == nil", ["Tokyo", "Oslo"])
        try check(
            #Predicate { $0.rating.flatMap { $0 > 3 } == true }, "NOT rating == nil AND rating > 3", ["Rome", "Paris"])
        try check(
            #Predicate { ($0.rating ?? 0) < 3 }, "TERNARY(rating == nil, 0, rating) < 3",
            ["Tokyo", "Oslo", "Café Crawl"])
        try check(
            #Predicate { ($0.destination?.trips.count ?? 0) > 1 },
            "TERNARY(destination == nil, 0, destination.trips.@count) > 1", ["Paris", "Café Crawl"])
    }

    // MARK: Arithmetic and conditionals

    @Test func arithmetic() throws {
        try check(#Predicate { $0.nights * 2 + 1 > 11 }, "nights * 2 + 1 > 11", ["Paris", "Tokyo"])
        try check(#Predicate { $0.nights - 3 == 0 }, "nights - 3 == 0", ["Oslo"])
        try check(#Predicate { $0.budget / 2 > 1000 }, "budget / 2.0 > 1000.0", ["Paris", "Tokyo"])
        try check(#Predicate { $0.nights / 2 == 3 }, "trunc:(nights / 2) == 3", ["Paris"])
        try check(#Predicate { $0.nights % 2 == 1 }, "modulus:by:(nights, 2) == 1", ["Rome", "Paris", "Oslo"])
        try check(#Predicate { -$0.budget < -2000 }, "0 - budget < -2000.0", ["Paris", "Tokyo"])
    }

    @Test func conditionals() throws {
        try check(
            #Predicate { ($0.isFavorite ? $0.budget : 0) > 1000 }, "TERNARY(isFavorite == YES, budget, 0.0) > 1000.0",
            ["Rome", "Tokyo"])
        try check(
            #Predicate { $0.isFavorite ? $0.nights > 5 : $0.nights < 3 },
            "(isFavorite == YES AND nights > 5) OR (NOT isFavorite == YES AND nights < 3)", ["Tokyo", "Café Crawl"])
    }

    // MARK: Strings

    @Test func stringSearches() throws {
        try check(#Predicate { $0.name.contains("o") }, #"name CONTAINS "o""#, ["Rome", "Tokyo", "Oslo"])
        try check(#Predicate { $0.name.starts(with: "Pa") }, #"name BEGINSWITH "Pa""#, ["Paris"])
        try check(
            #Predicate { $0.name.localizedStandardContains("CAFE") }, #"name CONTAINS[cd] "CAFE""#, ["Café Crawl"])
        try check(#Predicate { $0.name.count == 5 }, "length:(name) == 5", ["Paris", "Tokyo"])
        try check(
            #Predicate { $0.nickname?.isEmpty == false }, #"NOT nickname == nil AND NOT nickname == """#,
            ["Rome", "Tokyo", "Café Crawl"])
    }

    @Test func stringComparisons() throws {
        let same = ComparisonResult.orderedSame
        let before = ComparisonResult.orderedAscending
        let after = ComparisonResult.orderedDescending
        try check(#Predicate { $0.name.caseInsensitiveCompare("ROME") == same }, #"name ==[c] "ROME""#, ["Rome"])
        try check(
            #Predicate { $0.name.caseInsensitiveCompare("oslo") != same }, #"NOT name ==[c] "oslo""#,
            ["Rome", "Paris", "Tokyo", "Café Crawl"])
        try check(#Predicate { $0.name.localizedCompare("P") == before }, #"name < "P""#, ["Oslo", "Café Crawl"])
        try check(
            #Predicate { $0.name.caseInsensitiveCompare("p") == after }, #"name >[c] "p""#, ["Paris", "Rome", "Tokyo"])
    }

    @Test func capturedRegex() throws {
        let pattern = /ok+y/
        try check(#Predicate { $0.name.contains(pattern) }, #"name MATCHES "(?s).*(?:ok+y).*""#, ["Tokyo"])
    }

    // MARK: Ranges

    @Test func ranges() throws {
        let closed = 1000.0...2500.0
        let halfOpen = 1000.0..<2500.0
        let from = 2000.0...
        try check(#Predicate { closed.contains($0.budget) }, "budget BETWEEN {1000.0, 2500.0}", ["Rome", "Paris"])
        try check(#Predicate { halfOpen.contains($0.budget) }, "budget >= 1000.0 AND budget < 2500.0", ["Rome"])
        try check(#Predicate { from.contains($0.budget) }, "budget >= 2000.0", ["Paris", "Tokyo"])
        try check(#Predicate { ($0.nights...8).contains(6) }, "6 >= nights AND 6 <= 8", ["Rome", "Oslo", "Café Crawl"])
    }

    // MARK: To-many relationships

    @Test func countAndIsEmpty() throws {
        try check(#Predicate { $0.activities.count >= 2 }, "activities.@count >= 2", ["Rome", "Paris"])
        try check(#Predicate { $0.activities.isEmpty }, "activities.@count == 0", ["Tokyo"])
        try check(
            #Predicate { !$0.activities.isEmpty }, "NOT activities.@count == 0",
            ["Rome", "Paris", "Oslo", "Café Crawl"])
    }

    @Test func containsWhereAllSatisfyAndFilter() throws {
        try check(
            #Predicate { $0.activities.contains { $0.cost > 50 } },
            "SUBQUERY(activities, $v1, $v1.cost > 50.0).@count > 0", ["Rome", "Oslo"])
        try check(
            #Predicate { $0.activities.allSatisfy { $0.cost < 30 } },
            "SUBQUERY(activities, $v1, NOT $v1.cost < 30.0).@count == 0", ["Paris", "Tokyo", "Café Crawl"])
        try check(
            #Predicate { $0.activities.filter { $0.cost >= 20 }.count >= 2 },
            "SUBQUERY(activities, $v1, $v1.cost >= 20.0).@count >= 2", ["Rome"])
    }

    @Test func nestedSubqueriesReadTheEnclosingElement() throws {
        let predicate = #Predicate<PTDestination> { place in
            place.trips.contains { trip in trip.activities.contains { $0.cost > trip.budget / 100 } }
        }
        let translated = try fixture.translate(predicate)
        #expect(
            translated.predicateFormat
                == "SUBQUERY(trips, $v1, SUBQUERY($v1.activities, $v2, $v2.cost > $v1.budget / 100.0).@count > 0).@count > 0"
        )
        #expect(try fixture.names("Destination", translated) == ["Italy"])
    }

    @Test func closuresOverCapturedCollections() throws {
        let wanted = ["Rome", "Paris"]
        try check(
            #Predicate { trip in wanted.contains { $0 == trip.name } }, #""Rome" == name OR "Paris" == name"#,
            ["Rome", "Paris"])
        try check(
            #Predicate { _ in wanted.contains { $0 == "Rome" } }, "TRUEPREDICATE",
            ["Rome", "Paris", "Tokyo", "Oslo", "Café Crawl"])
    }
}
