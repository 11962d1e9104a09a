// The trips model layer as Apple's SwiftData samples write it, in three schema versions, and
// the plan that migrates a store from the first to the last:
//
// - 1.0.0: trips with a name (not yet unique), dates, a `Codable` enum kind and optional notes;
//   an optional accommodation and activities (both cascade), a destination shared by trips
//   (nullify).
// - 1.1.0 (lightweight stage): `Accommodation.placeName` renamed `name` (`originalName:`),
//   `Trip.budget` and `Activity.isBooked` added with defaults.
// - 2.0.0 (custom stage): `Trip.name` unique, which duplicate names would break, so
//   `willMigrate` renames duplicates first; `Trip.durationDays` added, which `didMigrate` fills
//   from the dates the trips already had.
//
// The model types are internal: the worker and the tests reach them through TripsWorkload.
import OpenSwiftData
import Synchronization

/// What kind of trip: a `Codable` enum attribute, stored as its raw value.
enum TripKind: String, Codable, CaseIterable {
    case leisure, business, family
}

/// The first version of the trips schema.
enum TripsSchemaV1: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(1, 0, 0) }
    static var models: [any PersistentModel.Type] { [Trip.self, Accommodation.self, Activity.self, Destination.self] }

    @Model final class Trip {
        var name: String
        var startDate: Date
        var endDate: Date
        var kind: TripKind = TripKind.leisure
        var notes: String?
        @Relationship(deleteRule: .cascade, inverse: \Accommodation.trip) var accommodation: Accommodation?
        @Relationship(deleteRule: .cascade, inverse: \Activity.trip) var activities: [Activity] = []
        var destination: Destination?

        init(name: String, startDate: Date, endDate: Date, kind: TripKind) {
            self.name = name
            self.startDate = startDate
            self.endDate = endDate
            self.kind = kind
        }
    }

    @Model final class Accommodation {
        var placeName: String
        var nights: Int
        var trip: Trip?

        init(placeName: String, nights: Int) {
            self.placeName = placeName
            self.nights = nights
        }
    }

    @Model final class Activity {
        var name: String
        var cost: Double
        var trip: Trip?

        init(name: String, cost: Double) {
            self.name = name
            self.cost = cost
        }
    }

    @Model final class Destination {
        var city: String
        var country: String
        @Relationship(deleteRule: .nullify, inverse: \Trip.destination) var trips: [Trip] = []

        init(city: String, country: String) {
            self.city = city
            self.country = country
        }
    }
}

/// The second version: a rename and two added attributes, all a lightweight migration infers.
enum TripsSchemaV1_1: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(1, 1, 0) }
    static var models: [any PersistentModel.Type] { [Trip.self, Accommodation.self, Activity.self, Destination.self] }

    @Model final class Trip {
        var name: String
        var startDate: Date
        var endDate: Date
        var budget: Double = 0
        var kind: TripKind = TripKind.leisure
        var notes: String?
        @Relationship(deleteRule: .cascade, inverse: \Accommodation.trip) var accommodation: Accommodation?
        @Relationship(deleteRule: .cascade, inverse: \Activity.trip) var activities: [Activity] = []
        var destination: Destination?

        init(name: String, startDate: Date, endDate: Date, kind: TripKind) {
            self.name = name
            self.startDate = startDate
            self.endDate = endDate
            self.kind = kind
        }
    }

    @Model final class Accommodation {
        @Attribute(originalName: "placeName") var name: String
        var nights: Int
        var trip: Trip?

        init(name: String, nights: Int) {
            self.name = name
            self.nights = nights
        }
    }

    @Model final class Activity {
        var name: String
        var cost: Double
        var isBooked: Bool = false
        var trip: Trip?

        init(name: String, cost: Double) {
            self.name = name
            self.cost = cost
        }
    }

    @Model final class Destination {
        var city: String
        var country: String
        @Relationship(deleteRule: .nullify, inverse: \Trip.destination) var trips: [Trip] = []

        init(city: String, country: String) {
            self.city = city
            self.country = country
        }
    }
}

/// The current version: unique trip names and a trip's length in days.
enum TripsSchemaV2: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(2, 0, 0) }
    static var models: [any PersistentModel.Type] { [Trip.self, Accommodation.self, Activity.self, Destination.self] }

    @Model final class Trip {
        @Attribute(.unique) var name: String
        var startDate: Date
        var endDate: Date
        var budget: Double = 0
        var durationDays: Int = 0
        var kind: TripKind = TripKind.leisure
        var notes: String?
        @Relationship(deleteRule: .cascade, inverse: \Accommodation.trip) var accommodation: Accommodation?
        @Relationship(deleteRule: .cascade, inverse: \Activity.trip) var activities: [Activity] = []
        var destination: Destination?

        init(name: String, startDate: Date, endDate: Date, kind: TripKind) {
            self.name = name
            self.startDate = startDate
            self.endDate = endDate
            self.kind = kind
            durationDays = TripsSchemaV2.days(from: startDate, to: endDate)
        }
    }

    @Model final class Accommodation {
        // The original name stays in later versions: Core Data matches properties across
        // versions by renaming identifier (the name when there is none), so without it
        // 1.1.0's `name` (identifier "placeName") would not match this one ("name").
        @Attribute(originalName: "placeName") var name: String
        var nights: Int
        var trip: Trip?

        init(name: String, nights: Int) {
            self.name = name
            self.nights = nights
        }
    }

    @Model final class Activity {
        var name: String
        var cost: Double
        var isBooked: Bool = false
        var trip: Trip?

        init(name: String, cost: Double) {
            self.name = name
            self.cost = cost
        }
    }

    @Model final class Destination {
        var city: String
        var country: String
        @Relationship(deleteRule: .nullify, inverse: \Trip.destination) var trips: [Trip] = []

        init(city: String, country: String) {
            self.city = city
            self.country = country
        }
    }

    /// Whole days between two dates: how `didMigrate` fills `durationDays` for old trips and
    /// how new trips get it.
    static func days(from start: Date, to end: Date) -> Int {
        Int((end.timeIntervalSince(start) / 86_400).rounded(.down))
    }
}

/// 1.0.0 → 1.1.0 lightweight, 1.1.0 → 2.0.0 custom.
enum TripsMigrationPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [TripsSchemaV1.self, TripsSchemaV1_1.self, TripsSchemaV2.self] }
    static var stages: [MigrationStage] { [migrateV1toV1_1, migrateV1_1toV2] }

    /// The stage closures that ran in this process, in order, so that a worker can tell
    /// whether opening a store migrated it.
    static let ran = Mutex<[String]>([])

    static let migrateV1toV1_1 = MigrationStage.lightweight(
        fromVersion: TripsSchemaV1.self, toVersion: TripsSchemaV1_1.self)

    static let migrateV1_1toV2 = MigrationStage.custom(
        fromVersion: TripsSchemaV1_1.self, toVersion: TripsSchemaV2.self,
        willMigrate: { context in
            // The earliest trip keeps a name; later ones get " (2)", " (3)", … so that the
            // unique constraint of 2.0.0 holds and no trip is lost.
            let trips = try context.fetch(FetchDescriptor<TripsSchemaV1_1.Trip>(sortBy: [SortDescriptor(\.startDate)]))
            var used = Set(trips.map(\.name))
            var seen = Set<String>()
            for trip in trips where !seen.insert(trip.name).inserted {
                var number = 2
                while used.contains("\(trip.name) (\(number))") { number += 1 }
                trip.name = "\(trip.name) (\(number))"
                used.insert(trip.name)
            }
            try context.save()
            ran.withLock { $0.append("willMigrate 1.1.0 → 2.0.0: \(trips.count) trips") }
        },
        didMigrate: { context in
            // The lightweight part gave every trip the default 0; the dates give the real value.
            let trips = try context.fetch(FetchDescriptor<TripsSchemaV2.Trip>())
            for trip in trips {
                trip.durationDays = TripsSchemaV2.days(from: trip.startDate, to: trip.endDate)
            }
            try context.save()
            ran.withLock { $0.append("didMigrate 1.1.0 → 2.0.0: \(trips.count) trips") }
        })
}
