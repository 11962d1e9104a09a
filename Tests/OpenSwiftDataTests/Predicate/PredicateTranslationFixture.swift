import OpenCoreDataTestSupport
import Foundation
import OpenCoreData
import OpenSwiftData
import Testing

// The fixture of the predicate translation tests: a Core Data model built in code (Trip,
// Destination, Activity), plain Swift classes mirroring it that serve only as `#Predicate`
// roots, the key-path table naming their properties, and a SQLite store seeded with five trips.

/// A model class as `@Model` makes them: a class, hashable by identity (and, so that tests
/// can capture one in a predicate, `Codable` and `Sendable`).
class PTModel: Hashable, Codable, @unchecked Sendable {
    init() {}
    static func == (lhs: PTModel, rhs: PTModel) -> Bool { lhs === rhs }
    func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
    /// Stands in for `PersistentIdentifier`: the key-path table names it `"self"`.
    var persistentModelID: PTIdentifier { PTIdentifier(object: Int(bitPattern: ObjectIdentifier(self))) }
}

/// A model's identity, as a value a predicate can capture.
struct PTIdentifier: Hashable, Codable, Sendable {
    let object: Int
}

enum PTStatus: String, Codable, Sendable {
    case planned, booked, done
}

final class PTTrip: PTModel, @unchecked Sendable {
    var name = ""
    var nickname: String?
    var startDate = Date()
    var budget = 0.0
    var nights = 0
    var status = PTStatus.planned
    var isFavorite = false
    var tripID = UUID()
    var photo: Data?
    var rating: Int?
    var destination: PTDestination?
    var activities: [PTActivity] = []
    /// An array attribute: one opaque value in the store.
    var tags: [String] = []
    /// Not stored: the key-path table does not name it.
    var summary: String { name }
}

final class PTDestination: PTModel, @unchecked Sendable {
    var name = ""
    var latitude = 0.0
    var country: String?
    var trips: [PTTrip] = []
}

final class PTActivity: PTModel, @unchecked Sendable {
    var name = ""
    var cost = 0.0
    var trip: PTTrip?
}

/// The store, its objects and a translator whose tables name the mirror classes' properties.
final class PredicateTranslationFixture {
    nonisolated(unsafe) static let keyNames: [AnyKeyPath: String] = [
        \PTTrip.name: "name", \PTTrip.nickname: "nickname", \PTTrip.startDate: "startDate",
        \PTTrip.budget: "budget", \PTTrip.nights: "nights", \PTTrip.status: "status",
        \PTTrip.isFavorite: "isFavorite", \PTTrip.tripID: "tripID", \PTTrip.photo: "photo",
        \PTTrip.rating: "rating", \PTTrip.destination: "destination", \PTTrip.activities: "activities",
        \PTTrip.persistentModelID: "self", \PTActivity.persistentModelID: "self", \PTTrip.tags: "tags",
        // Multi-step paths, which only sort descriptors carry.
        \PTTrip.destination?.name: "destination.name",
        \PTDestination.name: "name", \PTDestination.latitude: "latitude", \PTDestination.country: "country",
        \PTDestination.trips: "trips",
        \PTActivity.name: "name", \PTActivity.cost: "cost", \PTActivity.trip: "trip",
    ]

    let container: NSPersistentContainer
    /// A private-queue context: every use is inside `performAndWait`.
    let context: NSManagedObjectContext
    /// The managed object behind each mirror object, for model constants.
    private(set) var objectIDs: [ObjectIdentifier: NSManagedObjectID] = [:]
    /// Mirror objects of the seeded trips and destinations, by name.
    private(set) var trips: [String: PTTrip] = [:]
    private(set) var destinations: [String: PTDestination] = [:]
    private(set) var activities: [String: PTActivity] = [:]

    static func date(_ text: String) -> Date {
        ISO8601DateFormatter().date(from: text + "T12:00:00Z")!
    }

    static let romeID = UUID(uuidString: "11111111-2222-3333-4444-555555555555")!

    /// A store seeded with the trips, saved unless `saved` is false (then every object is a
    /// pending insert, and fetches evaluate predicates in memory).
    init(saved: Bool = true) throws {
        let url =
            testFilesFolder
            .appendingPathComponent("PredicateTranslationTests-\(UUID().uuidString)")
            .appendingPathComponent("Trips.sqlite")
        container = NSPersistentContainer(name: "Trips", managedObjectModel: Self.model())
        container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: url)]
        var loadError: Error?
        container.loadPersistentStores { _, error in loadError = error }
        if let loadError { throw loadError }
        context = container.newBackgroundContext()
        try context.performAndWait { try seed(save: saved) }
    }

    var translator: PredicateTranslator {
        PredicateTranslator(
            keyName: { Self.keyNames[$0] },
            constant: { [objectIDs] value in
                if let model = value as? PTModel {
                    guard let id = objectIDs[ObjectIdentifier(model)] else { throw CocoaError(.coderInvalidValue) }
                    return id
                }
                if let identifier = value as? PTIdentifier {
                    guard let id = objectIDs.first(where: { Int(bitPattern: $0.key) == identifier.object })?.value
                    else {
                        throw CocoaError(.coderInvalidValue)
                    }
                    return id
                }
                return value
            }
        )
    }

    /// The names of the mirror trips `predicate` selects when Swift evaluates it: what the
    /// store must return.
    func swiftNames(_ predicate: Predicate<PTTrip>) throws -> Set<String> {
        Set(try trips.values.filter { try predicate.evaluate($0) }.map(\.name))
    }

    /// The translated predicate.
    func translate<T>(_ predicate: Predicate<T>) throws -> NSPredicate {
        try translator.predicate(predicate)
    }

    /// The names of the `entity` objects the store returns for `predicate`, translated.
    func names<T>(_ entity: String, _ predicate: Predicate<T>) throws -> Set<String> {
        try names(entity, try translate(predicate))
    }

    /// The names of the `entity` objects the store returns for `predicate`.
    func names(_ entity: String, _ predicate: NSPredicate?) throws -> Set<String> {
        let request = NSFetchRequest<NSManagedObject>(entityName: entity)
        request.predicate = predicate
        return try context.performAndWait {
            Set(try context.fetch(request).map { $0.value(forKey: "name") as! String })
        }
    }

    /// The names of the `entity` objects in the order `sorts` gives.
    func orderedNames<T>(_ entity: String, _ sorts: [SortDescriptor<T>]) throws -> [String] {
        let request = NSFetchRequest<NSManagedObject>(entityName: entity)
        request.sortDescriptors = try translator.sortDescriptors(sorts)
        return try context.performAndWait {
            try context.fetch(request).map { $0.value(forKey: "name") as! String }
        }
    }

    // MARK: Model

    static func model() -> NSManagedObjectModel {
        func entity(_ name: String, _ attributes: [(String, NSAttributeType)]) -> NSEntityDescription {
            let entity = NSEntityDescription()
            entity.name = name
            entity.managedObjectClassName = "NSManagedObject"
            entity.properties = attributes.map { name, type in
                let attribute = NSAttributeDescription()
                attribute.name = name
                attribute.attributeType = type
                attribute.isOptional = true
                return attribute
            }
            return entity
        }
        func relate(
            _ source: NSEntityDescription, _ name: String, toMany: Bool,
            _ destination: NSEntityDescription, _ inverseName: String, inverseToMany: Bool
        ) {
            let forward = NSRelationshipDescription()
            forward.name = name
            forward.destinationEntity = destination
            forward.maxCount = toMany ? 0 : 1
            forward.isOptional = true
            let inverse = NSRelationshipDescription()
            inverse.name = inverseName
            inverse.destinationEntity = source
            inverse.maxCount = inverseToMany ? 0 : 1
            inverse.isOptional = true
            forward.inverseRelationship = inverse
            inverse.inverseRelationship = forward
            source.properties += [forward]
            destination.properties += [inverse]
        }
        let trip = entity(
            "Trip",
            [
                ("name", .stringAttributeType), ("nickname", .stringAttributeType), ("startDate", .dateAttributeType),
                ("budget", .doubleAttributeType), ("nights", .integer64AttributeType), ("status", .stringAttributeType),
                ("isFavorite", .booleanAttributeType), ("tripID", .UUIDAttributeType),
                ("photo", .binaryDataAttributeType),
                ("rating", .integer64AttributeType),
            ])
        let destination = entity(
            "Destination",
            [("name", .stringAttributeType), ("latitude", .doubleAttributeType), ("country", .stringAttributeType)])
        let activity = entity("Activity", [("name", .stringAttributeType), ("cost", .doubleAttributeType)])
        relate(trip, "destination", toMany: false, destination, "trips", inverseToMany: true)
        relate(trip, "activities", toMany: true, activity, "trip", inverseToMany: false)
        let model = NSManagedObjectModel()
        model.entities = [trip, destination, activity]
        return model
    }

    // MARK: Data

    private func seed(save: Bool) throws {
        func insert(_ entity: String, _ mirror: PTModel, _ values: [String: Any?]) -> NSManagedObject {
            let object = NSEntityDescription.insertNewObject(forEntityName: entity, into: context)
            for (key, value) in values {
                object.setValue(value, forKey: key)
            }
            return object
        }
        var destinationObjects: [String: NSManagedObject] = [:]
        var mirrors: [(PTModel, NSManagedObject)] = []
        for (name, latitude, country) in [
            ("Italy", 41.9, "IT"), ("France", 48.8, "FR"), ("Japan", 35.7, nil as String?),
        ] {
            let mirror = PTDestination()
            mirror.name = name
            mirror.latitude = latitude
            mirror.country = country
            destinations[name] = mirror
            let object = insert("Destination", mirror, ["name": name, "latitude": latitude, "country": country])
            destinationObjects[name] = object
            mirrors.append((mirror, object))
        }
        typealias TripRow = (
            name: String, nickname: String?, start: String, budget: Double, nights: Int, status: PTStatus,
            favorite: Bool, rating: Int?, destination: String?, activities: [(String, Double)]
        )
        let rows: [TripRow] = [
            (
                "Rome", "Roma", "2024-05-01", 1500, 5, .planned, true, 4, "Italy",
                [("Colosseum", 20), ("Vatican", 30), ("Food tour", 80)]
            ),
            ("Paris", nil, "2024-07-10", 2500, 7, .booked, false, 5, "France", [("Louvre", 17), ("Eiffel", 25)]),
            ("Tokyo", "東京", "2025-01-05", 4000, 10, .done, true, nil, "Japan", []),
            ("Oslo", nil, "2023-12-01", 900, 3, .planned, false, 2, nil, [("Fjord", 120)]),
            ("Café Crawl", "cafés", "2024-03-15", 300, 2, .done, false, nil, "France", [("Espresso", 3)]),
        ]
        for row in rows {
            let mirror = PTTrip()
            mirror.name = row.name
            mirror.nickname = row.nickname
            mirror.startDate = Self.date(row.start)
            mirror.budget = row.budget
            mirror.nights = row.nights
            mirror.status = row.status
            mirror.isFavorite = row.favorite
            mirror.tripID = row.name == "Rome" ? Self.romeID : UUID()
            mirror.photo = row.name == "Rome" ? Data([1, 2, 3]) : nil
            mirror.rating = row.rating
            mirror.destination = row.destination.flatMap { destinations[$0] }
            mirror.destination?.trips.append(mirror)
            trips[row.name] = mirror
            let trip = insert(
                "Trip", mirror,
                [
                    "name": row.name, "nickname": row.nickname, "startDate": Self.date(row.start), "budget": row.budget,
                    "nights": row.nights, "status": row.status.rawValue, "isFavorite": row.favorite,
                    "tripID": mirror.tripID, "photo": mirror.photo,
                    "rating": row.rating,
                ])
            trip.setValue(row.destination.flatMap { destinationObjects[$0] }, forKey: "destination")
            mirrors.append((mirror, trip))
            for (name, cost) in row.activities {
                let activityMirror = PTActivity()
                activityMirror.name = name
                activityMirror.cost = cost
                activityMirror.trip = mirror
                mirror.activities.append(activityMirror)
                activities[name] = activityMirror
                let activity = insert("Activity", activityMirror, ["name": name, "cost": cost])
                activity.setValue(trip, forKey: "trip")
                mirrors.append((activityMirror, activity))
            }
        }
        if save { try context.save() }
        for (mirror, object) in mirrors {
            objectIDs[ObjectIdentifier(mirror)] = object.objectID
        }
    }
}

/// The `SwiftDataError` `body` throws; records an issue when it throws nothing or another error.
func thrownSwiftDataError(
    _ body: () throws -> Void, sourceLocation: SourceLocation = #_sourceLocation
) -> SwiftDataError? {
    do {
        try body()
        Issue.record("no error thrown", sourceLocation: sourceLocation)
    } catch let error as SwiftDataError {
        return error
    } catch {
        Issue.record("threw \(error), not a SwiftDataError", sourceLocation: sourceLocation)
    }
    return nil
}
