import Foundation
import OpenSwiftData
import Testing

@Model
final class BatchDeleteMergeItem {
    var name: String
    var number: Int

    init(name: String, number: Int) {
        self.name = name
        self.number = number
    }
}

/// `delete(model:where:)` deletes in SQL, then marks deleted exactly the saved models the
/// context holds whose rows went, judged by the store's values, not the models' unsaved ones.
@Suite struct BatchDeleteMergeTests {
    private func container() throws -> ModelContainer {
        try ModelContainer(
            for: BatchDeleteMergeItem.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
    }

    @Test func heldModelsWhoseRowsWentAreNoLongerRegistered() throws {
        let context = ModelContext(try container())
        let items = (0..<2500).map { BatchDeleteMergeItem(name: "item \($0)", number: $0) }
        for item in items { context.insert(item) }
        try context.save()
        let ids = items.map(\.persistentModelID)

        try context.delete(model: BatchDeleteMergeItem.self, where: #Predicate { $0.number < 1200 })

        // More held models than one survivor query asks about: every one is judged.
        let registered = ids.map { (context.registeredModel(for: $0) as BatchDeleteMergeItem?) != nil }
        #expect(registered.prefix(1200).allSatisfy { !$0 })
        #expect(registered.dropFirst(1200).allSatisfy { $0 })
        #expect(try context.fetchCount(FetchDescriptor<BatchDeleteMergeItem>()) == 1300)
    }

    @Test func theStoresValuesDecideNotUnsavedChanges() throws {
        let context = ModelContext(try container())
        let low = BatchDeleteMergeItem(name: "low", number: 1)
        let high = BatchDeleteMergeItem(name: "high", number: 100)
        context.insert(low)
        context.insert(high)
        try context.save()
        // Unsaved: `low` no longer matches in memory but its row does; `high` the reverse.
        low.number = 500
        high.number = 2

        try context.delete(model: BatchDeleteMergeItem.self, where: #Predicate { $0.number < 50 })

        #expect((context.registeredModel(for: low.persistentModelID) as BatchDeleteMergeItem?) == nil)
        #expect((context.registeredModel(for: high.persistentModelID) as BatchDeleteMergeItem?) === high)
        let names = try ModelContext(context.container).fetch(FetchDescriptor<BatchDeleteMergeItem>()).map(\.name)
        #expect(names == ["high"])
    }

    @Test func aContextHoldingNothingDeletesWithoutMerging() throws {
        let container = try container()
        let writer = ModelContext(container)
        for number in 0..<10 { writer.insert(BatchDeleteMergeItem(name: "n\(number)", number: number)) }
        try writer.save()
        let deleter = ModelContext(container)

        try deleter.delete(model: BatchDeleteMergeItem.self, where: #Predicate { $0.number >= 5 })

        #expect(deleter.deletedModelsArray.isEmpty)
        #expect(
            try deleter.fetch(FetchDescriptor<BatchDeleteMergeItem>(sortBy: [SortDescriptor(\.number)])).map(\.number)
                == [0, 1, 2, 3, 4])
    }
}
