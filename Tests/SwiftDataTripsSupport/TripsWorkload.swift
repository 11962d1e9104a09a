import OpenSwiftData

/// The three steps of the three-process migration run, one per process, on one store file:
/// ``create(at:)`` makes it with schema 1.0.0, ``migrateAndChange(at:)`` opens it with 2.0.0
/// and the migration plan (which migrates it) and changes data, ``verify(at:)`` opens it again
/// with 2.0.0 (nothing left to migrate) and checks everything the earlier steps did.
///
/// Each step makes its own container, as a separate launch of an app does; the worker
/// executable (`openswiftdata-trips-worker`) runs one step per process.
public enum TripsWorkload {
    /// The current schema (2.0.0), whose Core Data model the migrated store must match.
    public static var currentSchema: Schema { Schema(versionedSchema: TripsSchemaV2.self) }

    /// The first schema (1.0.0), which ``create(at:)`` writes.
    public static var firstSchema: Schema { Schema(versionedSchema: TripsSchemaV1.self) }

    /// The names of the trips ``verify(at:)`` expects, in order: the duplicate "Spring Break"
    /// renamed by the custom stage, "Weekend" deleted by ``migrateAndChange(at:)``.
    public static let expectedTripNames = ["Conference", "Spring Break", "Spring Break (2)"]

    /// Day `number` after the reference date: fixed dates, so durations are known.
    static func day(_ number: Int) -> Date { Date(timeIntervalSinceReferenceDate: Double(number) * 86_400) }

    /// Process 1: a new store at `url` with schema 1.0.0, filled with four trips (two share a
    /// name, which 1.0.0 allows), their accommodations, activities and destinations.
    ///
    /// - Returns: The line the worker prints.
    public static func create(at url: URL) throws -> String {
        typealias V1 = TripsSchemaV1
        let container = try ModelContainer(for: firstSchema, configurations: ModelConfiguration(url: url))
        let context = ModelContext(container)
        let paris = V1.Destination(city: "Paris", country: "France")
        let rome = V1.Destination(city: "Rome", country: "Italy")
        let oslo = V1.Destination(city: "Oslo", country: "Norway")
        for destination in [paris, rome, oslo] { context.insert(destination) }

        func trip(
            _ name: String, _ start: Int, _ days: Int, _ kind: TripKind, to destination: V1.Destination?,
            staying: (String, Int)?, doing activities: [(String, Double)]
        ) -> V1.Trip {
            let trip = V1.Trip(name: name, startDate: day(start), endDate: day(start + days), kind: kind)
            context.insert(trip)
            trip.destination = destination
            if let (place, nights) = staying {
                let accommodation = V1.Accommodation(placeName: place, nights: nights)
                context.insert(accommodation)
                trip.accommodation = accommodation
            }
            for (name, cost) in activities {
                let activity = V1.Activity(name: name, cost: cost)
                context.insert(activity)
                trip.activities.append(activity)
            }
            return trip
        }
        let spring = trip(
            "Spring Break", 9_000, 7, .leisure, to: paris, staying: ("Hotel Lumière", 7),
            doing: [("Louvre", 17), ("Seine cruise", 15.5)])
        spring.notes = "Bring a camera"
        _ = trip("Spring Break", 9_040, 3, .family, to: rome, staying: ("Casa Roma", 3), doing: [("Colosseum", 18)])
        let conference = trip("Conference", 9_100, 2, .business, to: oslo, staying: nil, doing: [])
        conference.notes = "Keynote on Tuesday"
        _ = trip("Weekend", 9_200, 2, .family, to: nil, staying: ("Cabin", 2), doing: [("Hike", 0)])
        try context.save()
        return "created \(try context.fetchCount(FetchDescriptor<V1.Trip>())) trips"
    }

    /// Process 2: opens the store with schema 2.0.0 and ``TripsMigrationPlan`` (the lightweight
    /// stage, then the custom one), then deletes a trip (its accommodation and activities go
    /// with it: cascade) and a destination (its trips stay: nullify), adds and books
    /// activities, changes a kind, and saves a new trip with a taken name (an upsert, now
    /// that names are unique).
    ///
    /// - Returns: The lines the worker prints: the stage closures that ran, then "changed".
    public static func migrateAndChange(at url: URL) throws -> [String] {
        typealias V2 = TripsSchemaV2
        let container = try ModelContainer(
            for: currentSchema, migrationPlan: TripsMigrationPlan.self,
            configurations: ModelConfiguration(url: url))
        let ran = TripsMigrationPlan.ran.withLock { $0 }
        let context = ModelContext(container)
        context.delete(try trip(named: "Weekend", in: context))
        let oslo = try context.fetch(FetchDescriptor<V2.Destination>(predicate: #Predicate { $0.city == "Oslo" }))
        guard let oslo = oslo.first else { throw TripsCheckFailure(["no destination Oslo after the migration"]) }
        context.delete(oslo)

        let rome = try trip(named: "Spring Break (2)", in: context)
        rome.kind = .leisure
        let opera = V2.Activity(name: "Opera", cost: 45)
        context.insert(opera)
        rome.activities.append(opera)
        for activity in try trip(named: "Spring Break", in: context).activities where activity.name == "Louvre" {
            activity.isBooked = true
        }

        let again = V2.Trip(name: "Conference", startDate: day(9_100), endDate: day(9_102), kind: .business)
        again.budget = 1_200
        // Set, not left nil: whether an upsert keeps a stored value the new model leaves nil is
        // not documented by Apple (here the nil is written over it).
        again.notes = "Keynote on Tuesday, room 4"
        context.insert(again)
        try context.save()
        return ran + ["changed"]
    }

    /// Process 3: opens the store with schema 2.0.0 and the plan again (no stage may run) and
    /// checks, without changing anything, what the earlier processes did.
    ///
    /// - Returns: The lines the worker prints.
    /// - Throws: ``TripsCheckFailure`` listing every check that failed.
    public static func verify(at url: URL) throws -> [String] {
        typealias V2 = TripsSchemaV2
        let container = try ModelContainer(
            for: currentSchema, migrationPlan: TripsMigrationPlan.self,
            configurations: ModelConfiguration(url: url))
        var failures: [String] = []
        func expect<T: Equatable>(_ actual: T, _ expected: T, _ what: String) {
            if actual != expected { failures.append("\(what): \(actual), expected \(expected)") }
        }
        expect(TripsMigrationPlan.ran.withLock { $0 }, [], "stages run when opening a store of the current version")

        let context = ModelContext(container)
        let trips = try context.fetch(FetchDescriptor<V2.Trip>(sortBy: [SortDescriptor(\.name)]))
        expect(trips.map(\.name), expectedTripNames, "trip names (the custom stage renamed the duplicate)")
        let byName = Dictionary(trips.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })

        // The custom stage's didMigrate filled durationDays from the dates of 1.0.0.
        expect(trips.map(\.durationDays), [2, 7, 3], "durationDays")
        // The Codable enum, including the change process 2 made.
        expect(trips.map(\.kind), [.business, .leisure, .leisure], "kinds")
        // Lightweight: budget added with its default; the upsert set the Conference's.
        expect(trips.map(\.budget), [1_200, 0, 0], "budgets")
        expect(
            trips.map(\.notes), ["Keynote on Tuesday, room 4", "Bring a camera", nil],
            "notes (the upsert's for the Conference)")

        if let spring = byName["Spring Break"] {
            expect(spring.accommodation?.name, "Hotel Lumière", "Spring Break's accommodation (placeName renamed name)")
            expect(spring.accommodation?.nights, 7, "Spring Break's nights")
            expect(spring.destination?.city, "Paris", "Spring Break's destination")
            let activities = spring.activities.sorted { $0.name < $1.name }
            expect(activities.map(\.name), ["Louvre", "Seine cruise"], "Spring Break's activities")
            expect(activities.map(\.isBooked), [true, false], "bookings (isBooked added with its default)")
            expect(activities.map(\.cost), [17, 15.5], "activity costs")
        }
        if let rome = byName["Spring Break (2)"] {
            expect(rome.accommodation?.name, "Casa Roma", "the renamed trip's accommodation")
            expect(rome.destination?.city, "Rome", "the renamed trip's destination")
            expect(rome.activities.map(\.name).sorted(), ["Colosseum", "Opera"], "the renamed trip's activities")
            expect(rome.startDate, day(9_040), "the renamed trip's start")
        }
        if let conference = byName["Conference"] {
            expect(conference.destination == nil, true, "the Conference's destination after Oslo was deleted (nullify)")
            expect(conference.accommodation == nil, true, "the Conference has no accommodation")
            expect(conference.activities.isEmpty, true, "the Conference has no activities")
        }

        // Weekend went with its accommodation and activity (cascade); Oslo went alone (nullify).
        let accommodations = try context.fetch(FetchDescriptor<V2.Accommodation>(sortBy: [SortDescriptor(\.name)]))
        expect(accommodations.map(\.name), ["Casa Roma", "Hotel Lumière"], "accommodations")
        let activities = try context.fetch(FetchDescriptor<V2.Activity>(sortBy: [SortDescriptor(\.name)]))
        expect(activities.map(\.name), ["Colosseum", "Louvre", "Opera", "Seine cruise"], "activities")
        expect(activities.filter { $0.trip == nil }.count, 0, "activities without a trip")
        let destinations = try context.fetch(FetchDescriptor<V2.Destination>(sortBy: [SortDescriptor(\.city)]))
        expect(destinations.map(\.city), ["Paris", "Rome"], "destinations")
        expect(
            destinations.map { $0.trips.map(\.name).sorted() }, [["Spring Break"], ["Spring Break (2)"]],
            "destinations' trips (inverse)")

        // Predicates over the migrated data run in SQL.
        let businessKind = TripKind.business
        let business = try context.fetchCount(
            FetchDescriptor<V2.Trip>(predicate: #Predicate { $0.kind == businessKind }))
        expect(business, 1, "business trips counted by a predicate on the enum")
        let long = try context.fetch(
            FetchDescriptor<V2.Trip>(predicate: #Predicate { $0.durationDays >= 3 }, sortBy: [SortDescriptor(\.name)]))
        expect(long.map(\.name), ["Spring Break", "Spring Break (2)"], "trips of 3 days or more")

        guard failures.isEmpty else { throw TripsCheckFailure(failures) }
        return ["verified \(trips.count) trips, \(activities.count) activities, \(destinations.count) destinations"]
    }

    /// The one trip named `name`.
    private static func trip(named name: String, in context: ModelContext) throws -> TripsSchemaV2.Trip {
        let found = try context.fetch(FetchDescriptor<TripsSchemaV2.Trip>(predicate: #Predicate { $0.name == name }))
        guard found.count == 1, let trip = found.first else {
            throw TripsCheckFailure(["\(found.count) trips named \(name), expected 1"])
        }
        return trip
    }
}

/// What a step of ``TripsWorkload`` found wrong: one sentence per failed check.
public struct TripsCheckFailure: Error, CustomStringConvertible {
    /// The failed checks.
    public let failures: [String]

    /// A failure listing `failures`.
    public init(_ failures: [String]) { self.failures = failures }

    /// The failed checks, one per line.
    public var description: String { failures.joined(separator: "\n") }
}
