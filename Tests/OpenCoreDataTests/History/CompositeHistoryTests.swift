import Foundation
@testable import OpenCoreDataCore
@testable import OpenCoreDataSQLite
import Testing

/// Persistent history of composite attributes: a change to any element is a change of
/// the composite, named in `updatedProperties`.
@Suite struct CompositeHistoryTests {
    @Test func changingAnElementRecordsTheComposite() throws {
        let context = try makeContext(
            CompositeTestModels.spots(), url: temporaryStoreURL("History"),
            options: [NSPersistentHistoryTrackingKey: true as NSNumber])
        try context.performAndWait {
            let spot = NSEntityDescription.insertNewObject(forEntityName: "Spot", into: context)
            spot.setValue("a", forKey: "name")
            spot.setValue(["latitude": 1.0, "longitude": 2.0], forKey: "location")
            try context.save()
            spot.setValue(5.0, forKeyPath: "location.latitude")
            try context.save()
            let result =
                try context.execute(
                    NSPersistentHistoryChangeRequest.fetchHistory(after: nil as NSPersistentHistoryToken?))
                as? NSPersistentHistoryResult
            let transactions = try #require(result?.result as? [NSPersistentHistoryTransaction])
            #expect(transactions.count == 2)
            let update = try #require(transactions.last?.changes?.first)
            #expect(update.changeType == .update)
            #expect(update.updatedProperties?.map(\.name) == ["location"])
        }
    }
}
