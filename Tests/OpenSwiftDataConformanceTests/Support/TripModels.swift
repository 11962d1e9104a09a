// A model layer as Apple's SwiftData samples write theirs: trips with a unique name, an
// optional accommodation (cascade), activities (cascade), a destination shared by trips
// (nullify), and a Codable enum attribute.
import Foundation
#if canImport(SwiftData) && OPENCOREDATA_COMPATIBILITY_TEST
import SwiftData
#else
import OpenSwiftData
#endif

enum TripKind: String, Codable, CaseIterable {
    case leisure, business, family
}

@Model
final class Trip {
    #Unique<Trip>([\.name])
    @Attribute(.unique) var name: String
    var startDate: Date
    var endDate: Date
    var budget: Double = 0
    var kind: TripKind = TripKind.leisure
    var notes: String?
    @Relationship(deleteRule: .cascade, inverse: \Accommodation.trip)
    var accommodation: Accommodation?
    @Relationship(deleteRule: .cascade, inverse: \Activity.trip)
    var activities: [Activity] = []
    var destination: Destination?
    @Transient var isSelected = false

    init(
        name: String, startDate: Date = Date(timeIntervalSinceReferenceDate: 0),
        endDate: Date = Date(timeIntervalSinceReferenceDate: 86_400), kind: TripKind = .leisure
    ) {
        self.name = name
        self.startDate = startDate
        self.endDate = endDate
        self.kind = kind
    }
}

@Model
final class Accommodation {
    var placeName: String
    var nights: Int
    var trip: Trip?

    init(placeName: String, nights: Int) {
        self.placeName = placeName
        self.nights = nights
    }
}

@Model
final class Activity {
    var name: String
    var cost: Double
    var isBooked: Bool = false
    var trip: Trip?

    init(name: String, cost: Double) {
        self.name = name
        self.cost = cost
    }
}

@Model
final class Destination {
    var city: String
    var country: String
    var trips: [Trip] = []

    init(city: String, country: String) {
        self.city = city
        self.country = country
    }
}

/// A container of the trip models in memory only, as tests make them.
func makeTripContainer() throws -> ModelContainer {
    try ModelContainer(
        for: Trip.self, Accommodation.self, Activity.self, Destination.self,
        configurations: ModelConfiguration(isStoredInMemoryOnly: true))
}

/// A `Codable` struct property: stored as a composite attribute, one column per property.
struct Coordinates: Codable, Equatable {
    var latitude: Double
    var longitude: Double
    var label: String?
}

@Model
final class Landmark {
    var name: String
    var coordinates: Coordinates
    var tags: [String] = []
    var visited: Date?

    init(name: String, coordinates: Coordinates) {
        self.name = name
        self.coordinates = coordinates
    }
}
