import Foundation
import OpenCoreData
import Testing

/// A sorted fetch from a SQLite store gives the rows its sort descriptors leave tied in
/// primary-key order, either direction, indexed or not: the same order every time, so
/// windows of it (`fetchOffset`/`fetchLimit`) tile it without gaps or repeats.
@Suite struct SortTieTests {
    private func context(indexed: Bool) throws -> NSManagedObjectContext {
        let item = NSEntityDescription()
        item.name = "Item"
        let rank = NSAttributeDescription()
        rank.name = "rank"
        rank.attributeType = .integer16AttributeType
        rank.isIndexed = indexed
        let label = NSAttributeDescription()
        label.name = "label"
        label.attributeType = .stringAttributeType
        item.properties = [rank, label]
        let model = NSManagedObjectModel()
        model.entities = [item]
        let context = try makeContext(model)
        try context.performAndWait {
            for index in 0..<30 {
                let object = NSEntityDescription.insertNewObject(forEntityName: "Item", into: context)
                object.setValue(Int16(index % 3), forKey: "rank")
                object.setValue("item \(index)", forKey: "label")
            }
            try context.save()
            context.reset()
        }
        return context
    }

    @Test(arguments: [false, true])
    func tiesComeInPrimaryKeyOrderEitherWay(_ indexed: Bool) throws {
        let context = try context(indexed: indexed)
        try context.performAndWait {
            for ascending in [true, false] {
                let request = NSFetchRequest<NSManagedObject>(entityName: "Item")
                request.sortDescriptors = [NSSortDescriptor(key: "rank", ascending: ascending)]
                let labels = try context.fetch(request).map { $0.value(forKey: "label") as? String ?? "" }
                let ranks = ascending ? [0, 1, 2] : [2, 1, 0]
                let expected = ranks.flatMap { rank in
                    stride(from: rank, to: 30, by: 3).map { "item \($0)" }
                }
                #expect(labels == expected, "indexed \(indexed), ascending \(ascending)")

                var windows: [String] = []
                request.fetchLimit = 7
                for offset in stride(from: 0, to: 30, by: 7) {
                    request.fetchOffset = offset
                    windows += try context.fetch(request).map { $0.value(forKey: "label") as? String ?? "" }
                }
                #expect(windows == expected)
            }
        }
    }
}
