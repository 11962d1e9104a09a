import Foundation
@testable import OpenCoreDataCore
import OpenCoreDataTestSupport
import Testing

/// The issue's model test: from random data, 10,000 random steps; after each, what a table
/// view and a diffable list built from the reported changes hold equals a fresh fetch.
@Suite struct FetchedResultsRandomTests {
    typealias Photos = FetchedResultsControllerTests

    /// The kinds of step, drawn with these weights.
    enum Step: CaseIterable {
        case insert, delete, rank, group, title, crossPredicate, save, backgroundInsert, batchDelete, batchUpdate, undo,
            redo, refreshAll

        var weight: Int {
            switch self {
            case .insert, .delete, .rank: 3
            case .group, .title, .crossPredicate, .save, .undo: 2
            default: 1
            }
        }
    }

    @Test func randomChangesKeepTheReportedResultsEqualToAFreshFetch() throws {
        let session = try Session()
        try session.context.performAndWait { try session.run(steps: 10_000) }
    }

    /// The state of one run; its methods run on the context's queue.
    final class Session {
        var random = SplitMix64(seed: 20261125)
        let context: NSManagedObjectContext
        let writer: NSManagedObjectContext
        let groups = ["a", "b", "c", "d", "e"]
        var nextRank = 0

        init() throws {
            context = try makeContext(Photos.model(), url: temporaryStoreURL("RandomPhotos"))
            writer = siblingContext(of: context)
        }

        /// Distinct ranks, so a fresh fetch's order is defined; the sign decides the predicate.
        func freshRank() -> Int {
            nextRank += 1
            return Int.random(in: 0...1, using: &random) == 0 ? nextRank : -nextRank
        }

        func group() -> String { groups[Int.random(in: 0..<groups.count, using: &random)] }

        /// A saved photo's ID (batch requests and the writer work with those).
        func savedID() throws -> NSManagedObjectID? {
            let ids = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Photo")).map(\.objectID).filter {
                !$0.isTemporaryID
            }
            return ids.isEmpty ? nil : ids[Int.random(in: 0..<ids.count, using: &random)]
        }

        func run(steps count: Int) throws {
            let steps = Step.allCases.flatMap { Array(repeating: $0, count: $0.weight) }
            context.undoManager = UndoManager()
            for index in 0..<40 { Photos.insert("p\(index)", group: group(), rank: freshRank(), into: context) }
            try context.save()
            let (table, tableRecorder) = try FetchedResultsControllerMergeTests.follow(context)
            let list = NSFetchedResultsController(
                fetchRequest: Photos.request(), managedObjectContext: context, sectionNameKeyPath: "group",
                cacheName: nil)
            let differences = DifferenceRecorder()
            list.delegate = differences
            try list.performFetch()
            differences.ids = list.fetchedObjects?.map(\.objectID) ?? []
            var counts: [String: Int] = [:]

            for index in 0..<count {
                let step = steps[Int.random(in: 0..<steps.count, using: &random)]
                let all = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Photo"))
                let some = all.isEmpty ? nil : all[Int.random(in: 0..<all.count, using: &random)]
                counts["\(step)", default: 0] += 1
                tableRecorder.events = []
                try apply(step, index: index, count: all.count, to: some)
                context.processPendingChanges()

                let fresh = NSFetchedResultsController(
                    fetchRequest: Photos.request(), managedObjectContext: context, sectionNameKeyPath: "group",
                    cacheName: nil)
                try fresh.performFetch()
                let expected = (fresh.sections ?? []).map {
                    ($0.name, ($0.objects ?? []).map { ObjectIdentifier($0 as AnyObject) })
                }
                let tableMatches =
                    tableRecorder.sections.map(\.name) == expected.map(\.0)
                    && tableRecorder.sections.map(\.rows) == expected.map(\.1)
                let listMatches = differences.ids == (fresh.fetchedObjects ?? []).map(\.objectID)
                let controllerMatches =
                    table.fetchedObjects?.map(ObjectIdentifier.init) == fresh.fetchedObjects?.map(ObjectIdentifier.init)
                #expect(
                    tableMatches && listMatches && controllerMatches,
                    "step \(index) (\(step)): table \(tableRecorder.sections.map { "\($0.name):\($0.rows.count)" }) vs \(expected.map { "\($0.0):\($0.1.count)" }), events \(tableRecorder.events.suffix(12))"
                )
                if !(tableMatches && listMatches && controllerMatches) { break }
            }
            #expect(
                differences.calls > count / 10 && differences.otherCalls == 0,
                "a delegate with the difference callback gets only that")
            #expect(
                Step.allCases.allSatisfy { counts["\($0)", default: 0] > count / 100 },
                "every kind of step ran: \(counts)")
        }

        private func apply(_ step: Step, index: Int, count: Int, to some: NSManagedObject?) throws {
            switch step {
            case .insert: if count < 80 { Photos.insert("n\(index)", group: group(), rank: freshRank(), into: context) }
            case .delete: if let some { context.delete(some) }
            case .rank: some?.setValue(abs(freshRank()), forKey: "rank")
            case .group: some?.setValue(group(), forKey: "group")
            case .title: some?.setValue("t\(index)", forKey: "title")
            case .crossPredicate: some.map { $0.setValue(-(($0.value(forKey: "rank") as? Int) ?? 0), forKey: "rank") }
            case .save: try context.save()
            case .backgroundInsert:
                let (rank, group, writer) = (freshRank(), group(), writer)
                let log = NotificationLog(.NSManagedObjectContextDidSave, writer)
                try writer.performAndWait {
                    Photos.insert("bg\(index)", group: group, rank: rank, into: writer)
                    try writer.save()
                }
                if let info = log.last {
                    context.mergeChanges(
                        fromContextDidSave: Notification(
                            name: .NSManagedObjectContextDidSave, object: writer, userInfo: info))
                }
            case .batchDelete:
                guard let victim = try savedID() else { break }
                let writer = writer
                let deleted = try writer.performAndWait {
                    let request = NSBatchDeleteRequest(objectIDs: [victim])
                    request.resultType = .resultTypeObjectIDs
                    return try (writer.execute(request) as? NSBatchDeleteResult)?.result as? [NSManagedObjectID] ?? []
                }
                NSManagedObjectContext.mergeChanges(
                    fromRemoteContextSave: [NSDeletedObjectsKey: deleted], into: [context])
            case .batchUpdate:
                guard let target = try savedID() else { break }
                let (rank, writer) = (freshRank(), writer)
                let updated = try writer.performAndWait {
                    let request = NSBatchUpdateRequest(entityName: "Photo")
                    request.predicate = NSPredicate(format: "SELF == %@", target)
                    request.propertiesToUpdate = ["rank": rank]
                    request.resultType = .updatedObjectIDsResultType
                    return try (writer.execute(request) as? NSBatchUpdateResult)?.result as? [NSManagedObjectID] ?? []
                }
                NSManagedObjectContext.mergeChanges(
                    fromRemoteContextSave: [NSUpdatedObjectsKey: updated], into: [context])
            case .undo: context.undoManager?.undo()
            case .redo: context.undoManager?.redo()
            case .refreshAll:
                // The writer saves a change the context has not merged; refreshing everything reads it.
                guard let target = try savedID() else { break }
                let (group, writer) = (group(), writer)
                try writer.performAndWait {
                    try writer.existingObject(with: target).setValue(group, forKey: "group")
                    try writer.save()
                }
                context.refreshAllObjects()
            }
        }
    }
}
