import Foundation
import XCTest
#if canImport(SwiftData) && OPENCOREDATA_COMPATIBILITY_TEST
import SwiftData
#else
import OpenSwiftData
#endif

@Model
final class Ticket {
    @Attribute(.preserveValueOnDeletion) var code: String
    var seat: Int
    init(code: String, seat: Int) {
        self.code = code
        self.seat = seat
    }
}

final class HistoryDescriptorTests: XCTestCase {
    private func container() throws -> ModelContainer {
        try ModelContainer(for: Ticket.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
    }

    func testTransactionsListInsertsUpdatesAndDeletes() throws {
        let container = try container()
        let context = ModelContext(container)
        context.author = "importer"
        let ticket = Ticket(code: "A1", seat: 1)
        context.insert(ticket)
        try context.save()
        ticket.seat = 2
        try context.save()
        context.delete(ticket)
        try context.save()

        let transactions = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        XCTAssertEqual(transactions.count, 3)
        XCTAssertEqual(transactions.first?.author, "importer")
        guard transactions.count == 3 else { return }
        guard case .insert(let insert) = transactions[0].changes.first else { return XCTFail("an insert first") }
        XCTAssertEqual(insert.changedPersistentIdentifier.entityName, "Ticket")
        guard case .update(let update as DefaultHistoryUpdate<Ticket>) = transactions[1].changes.first else {
            return XCTFail("then an update")
        }
        XCTAssertEqual(update.updatedAttributes, [\Ticket.seat])
        guard case .delete(let delete as DefaultHistoryDelete<Ticket>) = transactions[2].changes.first else {
            return XCTFail("then a delete")
        }
        XCTAssertEqual(delete.tombstone[\.code], "A1", "preserved on deletion")
        XCTAssertNil(delete.tombstone[\.seat])
        XCTAssertTrue(transactions[0].token < transactions[2].token)
    }

    func testTokensSelectLaterTransactionsAndHistoryCanBeDeleted() throws {
        let container = try container()
        let context = ModelContext(container)
        for seat in 1...3 {
            context.insert(Ticket(code: "T\(seat)", seat: seat))
            try context.save()
        }
        let all = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        XCTAssertEqual(all.count, 3)
        let first = all[0].token
        let later = try context.fetchHistory(
            HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token > first }))
        XCTAssertEqual(later.map(\.transactionIdentifier), all.dropFirst().map(\.transactionIdentifier))

        let second = all[1].token
        try context.deleteHistory(
            HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token <= second }))
        XCTAssertEqual(
            try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).map(\.transactionIdentifier),
            [all[2].transactionIdentifier])
    }
}
