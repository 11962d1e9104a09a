import Foundation
@testable import OpenCoreDataCore
import Testing

/// Composite attributes in the Binary and in-memory stores: the dictionary comes back
/// whole, nested composites and transformable elements included.
@Suite struct CompositeAtomicStoreTests {
    private func saveParcel(_ context: NSManagedObjectContext) throws {
        try context.performAndWait {
            let parcel = NSEntityDescription.insertNewObject(forEntityName: "Parcel", into: context)
            parcel.setValue(
                ["street": "Main", "zip": 9, "tags": ["a"], "geo": ["lat": 1.5]] as [String: Any], forKey: "address")
            try context.save()
        }
    }

    private func checkParcel(_ context: NSManagedObjectContext) throws {
        try context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Parcel")
            request.predicate = NSPredicate(format: "address.zip == 9 AND address.geo.lat > 1")
            let parcel = try #require(try context.fetch(request).first)
            let address = try #require(parcel.value(forKey: "address") as? [String: Any])
            #expect(address["street"] as? String == "Main")
            #expect(address["city"] == nil, "the dictionary set replaced the defaults")
            #expect(address.count == 4)
            #expect(address["tags"] as? [String] == ["a"])
            #expect(parcel.value(forKeyPath: "address.geo.lat") as? Double == 1.5)
            #expect((address["geo"] as? [String: Any])?["lon"] == nil)
        }
    }

    @Test func theBinaryStoreKeepsTheDictionaryAcrossARelaunch() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("Composite-\(UUID().uuidString).binary")
        defer { try? FileManager.default.removeItem(at: url) }
        let model = CompositeTestModels.parcels()
        let context = try makeContext(model, url: url, type: NSBinaryStoreType)
        try saveParcel(context)
        try closeStores(of: context)
        try checkParcel(try makeContext(model, url: url, type: NSBinaryStoreType))
    }

    @Test func theInMemoryStoreKeepsTheDictionary() throws {
        let context = try makeContext(CompositeTestModels.parcels(), url: nil, type: NSInMemoryStoreType)
        try saveParcel(context)
        try context.performAndWait { context.reset() }
        try checkParcel(context)
    }
}
