import Foundation
import GRDB
@testable import OpenCoreDataCore
@testable import OpenCoreDataSQL
@testable import OpenCoreDataSQLite
import Testing
import OpenCoreDataStoreTestSupport

/// Composite attributes in a SQLite store: one column per leaf element, values read,
/// written and faulted as dictionaries, and element key paths in SQL predicates, sorts,
/// dictionary fetches and batch requests.
@Suite struct CompositeSQLiteTests {
    private func insertSpot(
        _ name: String, _ location: [String: Any]?, into context: NSManagedObjectContext
    ) -> NSManagedObject {
        let spot = NSEntityDescription.insertNewObject(forEntityName: "Spot", into: context)
        spot.setValue(name, forKey: "name")
        spot.setValue(location, forKey: "location")
        return spot
    }

    /// Spots at latitudes 1…5 (label "L<n>" for odd n), and one without a location.
    private func spotsContext(_ url: URL = temporaryStoreURL("Spots")) throws -> NSManagedObjectContext {
        let context = try makeContext(CompositeTestModels.spots(), url: url)
        try context.performAndWait {
            for n in 1...5 {
                var location: [String: Any] = ["latitude": Double(n), "longitude": Double(-n)]
                if n % 2 == 1 { location["label"] = "L\(n)" }
                _ = insertSpot("spot\(n)", location, into: context)
            }
            _ = insertSpot("nowhere", nil, into: context)
            try context.save()
        }
        return context
    }

    /// The error fetching `request` throws, or `nil`.
    private func fetchError(_ request: NSFetchRequest<NSManagedObject>, in context: NSManagedObjectContext) -> NSError?
    {
        context.performAndWait {
            do { _ = try context.fetch(request); return nil } catch { return error as NSError }
        }
    }

    /// The error saving `context` throws, or `nil` (call on the context's queue).
    private func saveError(_ context: NSManagedObjectContext) -> NSError? {
        do { try context.save(); return nil } catch { return error as NSError }
    }

    private func names(
        _ request: NSFetchRequest<NSManagedObject>, in context: NSManagedObjectContext
    ) throws -> [String] {
        try context.performAndWait { try context.fetch(request).map { $0.value(forKey: "name") as? String ?? "?" } }
    }

    // MARK: Schema

    @Test func eachLeafElementHasAColumnNamedAfterItsPath() throws {
        let model = CompositeTestModels.parcels()
        let context = try makeContext(model, url: nil, type: NSInMemoryStoreType)
        let store = try #require(context.persistentStoreCoordinator?.persistentStores.first?.backend as? SQLiteStore)
        let address = try #require(model.entitiesByName["Parcel"]?.propertiesByName["address"])
        let columns = try #require(store.schema.compositeColumns(for: address))
        #expect(
            columns.map(\.name) == [
                "ZADDRESS_STREET", "ZADDRESS_CITY", "ZADDRESS_ZIP", "ZADDRESS_TAGS", "ZADDRESS_GEO_LAT",
                "ZADDRESS_GEO_LON",
            ])
        #expect(columns.map(\.path) == [["street"], ["city"], ["zip"], ["tags"], ["geo", "lat"], ["geo", "lon"]])
        #expect(store.schema.column(for: address) == nil)
        let table = try store.schema.table(for: try #require(model.entitiesByName["Parcel"]))
        let declared = Dictionary(uniqueKeysWithValues: table.columns.map { ($0.name, $0.type) })
        #expect(declared["ZADDRESS_ZIP"] == "INTEGER")
        #expect(declared["ZADDRESS_GEO_LAT"] == "FLOAT")
        #expect(declared["ZADDRESS_STREET"] == "VARCHAR")
        #expect(declared["ZADDRESS_TAGS"] == "BLOB")
        #expect(SQLSchema.compositeColumnName(attribute: "a", elementPath: ["b", "c"]) == "ZA_B_C")
    }

    @Test func aCompositeColumnTakingAnotherColumnsNameGetsANumber() throws {
        let spot = ModelBuilder.entity("Spot", className: "NSManagedObject")
        spot.properties = [
            ModelBuilder.attribute("location_label", .stringAttributeType),
            CompositeTestModels.composite("location", [CompositeTestModels.element("label", .stringAttributeType)]),
        ]
        let model = ModelBuilder.model(spot)
        let context = try makeContext(model, url: nil, type: NSInMemoryStoreType)
        let store = try #require(context.persistentStoreCoordinator?.persistentStores.first?.backend as? SQLiteStore)
        let plainAttribute = try #require(spot.propertiesByName["location_label"])
        let compositeAttribute = try #require(spot.propertiesByName["location"])
        let plain = try #require(store.schema.column(for: plainAttribute))
        let element = try #require(store.schema.compositeColumns(for: compositeAttribute)?.first?.name)
        #expect(Set([plain, element]) == ["ZLOCATION_LABEL", "ZLOCATION_LABEL1"])
        try context.performAndWait {
            let object = NSEntityDescription.insertNewObject(forEntityName: "Spot", into: context)
            object.setValue("plain", forKey: "location_label")
            object.setValue(["label": "inner"], forKey: "location")
            try context.save()
            context.reset()
            let fetched = try #require(try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Spot")).first)
            #expect(fetched.value(forKey: "location_label") as? String == "plain")
            #expect(fetched.value(forKeyPath: "location.label") as? String == "inner")
        }
    }

    // MARK: Reading and writing

    @Test func valuesSurviveARelaunchAsDictionaries() throws {
        let url = temporaryStoreURL("Parcels")
        let model = CompositeTestModels.parcels()
        let context = try makeContext(model, url: url)
        let id = try context.performAndWait {
            let parcel = NSEntityDescription.insertNewObject(forEntityName: "Parcel", into: context)
            parcel.setValue(
                [
                    "street": "1 Rue de Rivoli", "zip": 75001, "tags": ["fragile", "heavy"],
                    "geo": ["lat": 48.86, "lon": 2.33],
                ] as [String: Any], forKey: "address")
            try context.save()
            return parcel.objectID
        }
        try closeStores(of: context)

        let reopened = try makeContext(model, url: url)
        try reopened.performAndWait {
            let parcel = try reopened.existingObject(
                with: try #require(
                    reopened.persistentStoreCoordinator?.managedObjectID(forURIRepresentation: id.uriRepresentation())))
            let address = try #require(parcel.value(forKey: "address") as? [String: Any])
            // The dictionary set replaced the new object's defaults (city "Paris", zip 0) whole.
            #expect(Set(address.keys) == ["street", "zip", "tags", "geo"])
            #expect(address["street"] as? String == "1 Rue de Rivoli")
            #expect(address["zip"] as? NSNumber == 75001)
            #expect(address["tags"] as? [String] == ["fragile", "heavy"])
            #expect((address["geo"] as? [String: Any])?["lat"] as? Double == 48.86)
            #expect(parcel.value(forKeyPath: "address.geo.lon") as? Double == 2.33)
            #expect(parcel.value(forKeyPath: "address.zip") as? Int == 75001)
        }
    }

    @Test func anOptionalCompositeWithoutValuesReadsAsNil() throws {
        let context = try spotsContext()
        try context.performAndWait {
            context.reset()
            let request = NSFetchRequest<NSManagedObject>(entityName: "Spot")
            request.predicate = NSPredicate(format: "name == 'nowhere'")
            let spot = try #require(try context.fetch(request).first)
            #expect(spot.value(forKey: "location") == nil)
            #expect(spot.value(forKeyPath: "location.latitude") == nil)
        }
    }

    @Test func settingOneElementUpdatesItsColumn() throws {
        let context = try spotsContext()
        let recorder = SQLRecorder(context)
        try context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Spot")
            request.predicate = NSPredicate(format: "name == 'spot2'")
            let spot = try #require(try context.fetch(request).first)
            spot.setValue("renamed", forKeyPath: "location.label")
            #expect(spot.changedValues().keys.sorted() == ["location"])
            recorder.clear()
            try context.save()
            #expect(
                recorder.statements.contains { $0.hasPrefix("UPDATE ZSPOT SET") && $0.contains("ZLOCATION_LABEL = ?") })
            spot.setValue(nil, forKeyPath: "location.label")
            try context.save()
            context.reset()
            let again = try #require(try context.fetch(request).first)
            let location = try #require(again.value(forKey: "location") as? [String: Any])
            #expect(location["label"] == nil)
            #expect(location["latitude"] as? Double == 2)
        }
    }

    @Test func faultsAndBatchedFetchesFillTheDictionary() throws {
        let context = try spotsContext()
        let other = siblingContext(of: context)
        let ids = try context.performAndWait {
            try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Spot")).map(\.objectID)
        }
        try other.performAndWait {
            let fault = other.object(with: ids[0])
            #expect(fault.isFault)
            #expect((fault.value(forKey: "location") as? [String: Any])?["latitude"] as? Double == 1)
            let request = NSFetchRequest<NSManagedObject>(entityName: "Spot")
            request.sortDescriptors = [NSSortDescriptor(key: "location.latitude", ascending: false)]
            request.fetchBatchSize = 2
            let batched = try other.fetchBatched(request)
            #expect(batched.count == 6)
            #expect(batched.compactMap { $0.value(forKeyPath: "location.latitude") as? Double } == [5, 4, 3, 2, 1])
        }
    }

    // MARK: Predicates and sorts in SQL

    @Test func elementKeyPathsFilterAndSortInSQL() throws {
        let context = try spotsContext()
        let recorder = SQLRecorder(context)
        let request = NSFetchRequest<NSManagedObject>(entityName: "Spot")
        request.predicate = NSPredicate(format: "location.latitude > 2")
        request.sortDescriptors = [NSSortDescriptor(key: "location.longitude", ascending: true)]
        #expect(try names(request, in: context) == ["spot5", "spot4", "spot3"])
        let select = try #require(recorder.selects.last)
        #expect(select.contains("t0.ZLOCATION_LATITUDE > ?"), "\(select)")
        #expect(select.contains("ORDER BY t0.ZLOCATION_LONGITUDE ASC"), "\(select)")

        request.predicate = NSPredicate(format: "location.label BEGINSWITH 'L'")
        request.sortDescriptors = [NSSortDescriptor(key: "location.label", ascending: false)]
        #expect(try names(request, in: context) == ["spot5", "spot3", "spot1"])
        #expect(try #require(recorder.selects.last).contains("t0.ZLOCATION_LABEL COLLATE"))
    }

    @Test func aCompositeComparesWithNilInSQL() throws {
        let context = try spotsContext()
        let recorder = SQLRecorder(context)
        let request = NSFetchRequest<NSManagedObject>(entityName: "Spot")
        request.predicate = NSPredicate(format: "location == nil")
        #expect(try names(request, in: context) == ["nowhere"])
        #expect(try #require(recorder.selects.last).contains("ZLOCATION_LATITUDE IS NULL AND"))
        request.predicate = NSPredicate(format: "location != nil")
        request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
        #expect(try names(request, in: context) == ["spot1", "spot2", "spot3", "spot4", "spot5"])
    }

    @Test func unsavedObjectsMatchElementPredicatesInMemory() throws {
        let context = try spotsContext()
        try context.performAndWait {
            _ = insertSpot("unsaved", ["latitude": 10.0, "longitude": 0.0], into: context)
            let request = NSFetchRequest<NSManagedObject>(entityName: "Spot")
            request.predicate = NSPredicate(format: "location.latitude >= 5")
            request.sortDescriptors = [NSSortDescriptor(key: "location.latitude", ascending: true)]
            let fetched = try context.fetch(request)
            #expect(fetched.map { $0.value(forKey: "name") as? String } == ["spot5", "unsaved"])
        }
    }

    @Test func badKeyPathsAndWholeCompositeComparisonsThrow() throws {
        let context = try spotsContext()
        let request = NSFetchRequest<NSManagedObject>(entityName: "Spot")
        request.predicate = NSPredicate(format: "location.altitude > 2")
        let unknown = fetchError(request, in: context)
        #expect(
            unknown?.localizedDescription.contains("'altitude' is not an element of composite attribute 'location'")
                == true)
        request.predicate = nil
        request.sortDescriptors = [NSSortDescriptor(key: "location", ascending: true)]
        let sort = fetchError(request, in: context)
        #expect(sort?.localizedDescription.contains("sorting by composite attribute 'location'") == true)
    }

    // MARK: Dictionary fetches and batch requests

    @Test func dictionaryFetchesReturnTheCompositeAndSingleElements() throws {
        let context = try spotsContext()
        try context.performAndWait {
            let request = NSFetchRequest<NSDictionary>(entityName: "Spot")
            request.resultType = .dictionaryResultType
            request.propertiesToFetch = ["name", "location", "location.latitude"]
            request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
            let rows = try context.fetch(request)
            #expect(rows.count == 6)
            let nowhere = try #require(rows.first { $0["name"] as? String == "nowhere" })
            #expect(nowhere["location"] == nil)
            let first = try #require(rows.first { $0["name"] as? String == "spot1" })
            let location = try #require(first["location"] as? [String: Any])
            #expect(location["latitude"] as? Double == 1)
            #expect(location["label"] as? String == "L1")
            #expect(first["location.latitude"] as? Double == 1)
        }
    }

    @Test func batchUpdatesAndDeletesUseElementColumns() throws {
        let context = try spotsContext()
        try context.performAndWait {
            let update = NSBatchUpdateRequest(entityName: "Spot")
            update.predicate = NSPredicate(format: "location.latitude <= 2")
            update.propertiesToUpdate = ["location": ["latitude": 0.0, "longitude": 0.0, "label": "origin"]]
            update.resultType = .updatedObjectsCountResultType
            let updated = try context.execute(update) as? NSBatchUpdateResult
            #expect(updated?.result as? Int == 2)

            let delete = NSBatchDeleteRequest(
                fetchRequest: {
                    let request = NSFetchRequest<NSFetchRequestResult>(entityName: "Spot")
                    request.predicate = NSPredicate(format: "location.label == 'origin'")
                    return request
                }())
            delete.resultType = .resultTypeCount
            let deleted = try context.execute(delete) as? NSBatchDeleteResult
            #expect(deleted?.result as? Int == 2)
            context.reset()
            let count = try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Spot"))
            #expect(count == 4)
        }
    }

    @Test func batchInsertsSpreadTheDictionaryOverTheColumns() throws {
        let context = try makeContext(CompositeTestModels.spots())
        try context.performAndWait {
            let insert = NSBatchInsertRequest(
                entityName: "Spot",
                objects: [
                    ["name": "a", "location": ["latitude": 1.5, "longitude": 2.5]],
                    ["name": "b"],
                ])
            _ = try context.execute(insert)
            let request = NSFetchRequest<NSManagedObject>(entityName: "Spot")
            request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
            let spots = try context.fetch(request)
            #expect(spots.map { $0.value(forKeyPath: "location.longitude") as? Double } == [2.5, nil])
        }
    }

    // MARK: Defaults and validation

    @Test func defaultsComeFromTheCompositeAndItsElements() throws {
        let parcels = try makeContext(CompositeTestModels.parcels(), url: nil, type: NSInMemoryStoreType)
        try parcels.performAndWait {
            let parcel = NSEntityDescription.insertNewObject(forEntityName: "Parcel", into: parcels)
            let address = try #require(parcel.value(forKey: "address") as? [String: Any])
            #expect(address.count == 2)
            #expect(address["city"] as? String == "Paris")
            #expect(address["zip"] as? NSNumber == 0)
        }
        let spots = try makeContext(
            CompositeTestModels.spots(locationDefault: [String: Any]()), url: nil, type: NSInMemoryStoreType)
        try spots.performAndWait {
            let spot = NSEntityDescription.insertNewObject(forEntityName: "Spot", into: spots)
            #expect((spot.value(forKey: "location") as? [String: Any])?.isEmpty == true)
        }
    }

    @Test func aMissingRequiredElementFailsTheSaveNamingItsKeyPath() throws {
        let context = try makeContext(CompositeTestModels.parcels())
        try context.performAndWait {
            let parcel = NSEntityDescription.insertNewObject(forEntityName: "Parcel", into: context)
            let missing = saveError(context)
            #expect(missing?.code == NSValidationMissingMandatoryPropertyError)
            #expect(missing?.userInfo[NSValidationKeyErrorKey] as? String == "address.street")

            parcel.setValue(nil, forKey: "address")
            let whole = saveError(context)
            #expect(whole?.code == NSValidationMissingMandatoryPropertyError)
            #expect(whole?.userInfo[NSValidationKeyErrorKey] as? String == "address")

            parcel.setValue(["street": 12], forKey: "address")
            let wrongType = saveError(context)
            #expect(wrongType?.code == NSManagedObjectValidationError)
            #expect(wrongType?.userInfo[NSValidationKeyErrorKey] as? String == "address")

            parcel.setValue(["street": "x", "country": "FR"], forKey: "address")
            let unknown = saveError(context)
            #expect(unknown?.localizedDescription.contains("country") == true)

            parcel.setValue(["street": "1 Main St"], forKey: "address")
            try context.save()
        }
    }

    @Test func aModelFileWithACompositeSavesAndFetches() throws {
        let model = try ModelFixtures.load("Composite.xcdatamodel")
        let context = try makeContext(model)
        try context.performAndWait {
            let place = NSEntityDescription.insertNewObject(forEntityName: "Place", into: context)
            place.setValue("Office", forKey: "name")
            #expect((place.value(forKey: "address") as? [String: Any])?["zip"] as? Int == 0)
            place.setValue("Lyon", forKeyPath: "address.city")
            try context.save()
            context.reset()
            let request = NSFetchRequest<NSManagedObject>(entityName: "Place")
            request.predicate = NSPredicate(format: "address.city == 'Lyon'")
            let places = try context.fetch(request)
            #expect(places.map { $0.value(forKey: "name") as? String } == ["Office"])
        }
    }
}
