import Foundation
import GRDB
@testable import OpenCoreDataCore
@testable import OpenCoreDataSQLite
import Testing
import OpenCoreDataStoreTestSupport

/// Lightweight migration of composite attributes: elements added (new columns, filled
/// with their defaults) or removed (columns dropped), composites added or removed.
@Suite struct CompositeMigrationTests {
    private func open(_ url: URL, _ model: NSManagedObjectModel) throws -> NSManagedObjectContext {
        try makeContext(
            model, url: url,
            options: [NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true])
    }

    /// A store of the first `Parcel` model holding one parcel per street.
    private func parcelsStore(_ streets: [String]) throws -> URL {
        let url = temporaryStoreURL("Parcels")
        let context = try open(url, CompositeTestModels.parcels())
        try context.performAndWait {
            for (index, street) in streets.enumerated() {
                let parcel = NSEntityDescription.insertNewObject(forEntityName: "Parcel", into: context)
                parcel.setValue(
                    ["street": street, "zip": index, "geo": ["lat": Double(index)]] as [String: Any], forKey: "address")
            }
            try context.save()
        }
        try closeStores(of: context)
        return url
    }

    private func addresses(_ context: NSManagedObjectContext) throws -> [[String: Any]] {
        try context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Parcel")
            request.sortDescriptors = [NSSortDescriptor(key: "address.street", ascending: true)]
            return try context.fetch(request).map { $0.value(forKey: "address") as? [String: Any] ?? [:] }
        }
    }

    private func columns(_ url: URL, table: String = "ZPARCEL") throws -> Set<String> {
        let db = try DatabaseQueue(path: url.path)
        defer { try? db.close() }
        return Set(try db.read { try $0.columns(in: table).map(\.name) })
    }

    @Test func anAddedElementGetsAColumnAndItsDefault() throws {
        let url = try parcelsStore(["a", "b"])
        #expect(try !columns(url).contains("ZADDRESS_FLOOR"))
        let context = try open(url, CompositeTestModels.parcels(withFloor: true))
        let migrated = try addresses(context)
        #expect(migrated.map { $0["street"] as? String } == ["a", "b"])
        #expect(migrated.map { $0["floor"] as? Int } == [1, 1])
        #expect(migrated.map { $0["zip"] as? Int } == [0, 1])
        #expect(migrated.map { ($0["geo"] as? [String: Any])?["lat"] as? Double } == [0, 1])
        try closeStores(of: context)
        #expect(try columns(url).contains("ZADDRESS_FLOOR"))
    }

    @Test func aRemovedElementLosesItsColumn() throws {
        let url = try parcelsStore(["a"])
        let context = try open(url, CompositeTestModels.parcels(withoutZip: true))
        let migrated = try addresses(context)
        #expect(migrated.count == 1)
        #expect(migrated.first?["zip"] == nil)
        #expect(migrated.first?["street"] as? String == "a")
        #expect((migrated.first?["geo"] as? [String: Any])?["lat"] as? Double == 0)
        try closeStores(of: context)
        #expect(try !columns(url).contains("ZADDRESS_ZIP"))
    }

    @Test func anOptionalCompositeThatWasNilStaysNilWhenAnElementIsAdded() throws {
        let url = temporaryStoreURL("Spots")
        let first = try open(url, CompositeTestModels.spots())
        try first.performAndWait {
            let spot = NSEntityDescription.insertNewObject(forEntityName: "Spot", into: first)
            spot.setValue("nowhere", forKey: "name")
            let other = NSEntityDescription.insertNewObject(forEntityName: "Spot", into: first)
            other.setValue("here", forKey: "name")
            other.setValue(["latitude": 1.0, "longitude": 2.0], forKey: "location")
            try first.save()
        }
        try closeStores(of: first)

        let model = CompositeTestModels.spots()
        let location = try #require(
            model.entitiesByName["Spot"]?.propertiesByName["location"] as? NSCompositeAttributeDescription)
        location.elements.append(CompositeTestModels.element("altitude", .doubleAttributeType, defaultValue: 100.0))
        let context = try open(url, model)
        try context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Spot")
            request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
            let spots = try context.fetch(request)
            #expect(spots.map { $0.value(forKey: "name") as? String } == ["here", "nowhere"])
            #expect(spots[0].value(forKeyPath: "location.altitude") as? Double == 100)
            #expect(spots[1].value(forKey: "location") == nil)
        }
    }

    @Test func aNewCompositeAttributeIsAddedToExistingRows() throws {
        let url = temporaryStoreURL("Spots")
        let plain = ModelBuilder.entity("Spot", className: "NSManagedObject")
        plain.properties = [ModelBuilder.attribute("name", .stringAttributeType)]
        let first = try open(url, ModelBuilder.model(plain))
        try first.performAndWait {
            NSEntityDescription.insertNewObject(forEntityName: "Spot", into: first).setValue("old", forKey: "name")
            try first.save()
        }
        try closeStores(of: first)
        let context = try open(url, CompositeTestModels.spots())
        try context.performAndWait {
            let spot = try #require(try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Spot")).first)
            #expect(spot.value(forKey: "name") as? String == "old")
            #expect(spot.value(forKey: "location") == nil)
            spot.setValue(["latitude": 3.0, "longitude": 4.0], forKey: "location")
            try context.save()
        }
        try closeStores(of: context)
        #expect(
            try columns(url, table: "ZSPOT").isSuperset(of: [
                "ZLOCATION_LATITUDE", "ZLOCATION_LONGITUDE", "ZLOCATION_LABEL",
            ]))
    }

    @Test func withoutMigrationAStoreRefusesAModelWhoseCompositeChanged() throws {
        let url = try parcelsStore(["a"])
        let error = #expect(throws: NSError.self) {
            try makeContext(CompositeTestModels.parcels(withFloor: true), url: url)
        }
        #expect(error?.code == NSPersistentStoreIncompatibleVersionHashError)
        // The same model as the store's opens as it is.
        let context = try makeContext(CompositeTestModels.parcels(), url: url)
        #expect(try addresses(context).count == 1)
    }

    @Test func aRequiredElementWithoutDefaultFailsTheMigration() throws {
        let url = try parcelsStore(["a"])
        let model = CompositeTestModels.parcels()
        let address = try #require(
            model.entitiesByName["Parcel"]?.propertiesByName["address"] as? NSCompositeAttributeDescription)
        address.elements.append(CompositeTestModels.element("recipient", .stringAttributeType, optional: false))
        let error = #expect(throws: NSError.self) { try open(url, model) }
        #expect(error?.localizedDescription.contains("required element 'address.recipient'") == true)
    }
}
