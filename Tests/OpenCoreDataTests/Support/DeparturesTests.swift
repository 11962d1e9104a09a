import Foundation
import Testing
@testable import OpenCoreDataCore
import OpenCoreDataStoreTestSupport

/// Objects and snapshots leave the registry and the row cache after they deallocate, all at
/// once when all of them went, and never taking a living entry with them.
@Suite struct DeparturesTests {
    private func key(_ primaryKey: Int64) -> ObjectKey { ObjectKey(owner: 1, table: 1, primaryKey: primaryKey) }

    @Test func aStrayDepartureIsNotKept() {
        var departures = Departures()
        let first = ObjectIdentifier(NSObject.self), second = ObjectIdentifier(NSString.self)
        departures.markStray(first)
        departures.note(key: key(1), identity: first)
        #expect(departures.isEmpty, "a stray's record names no entry")
        departures.note(key: key(2), identity: second)
        #expect(departures.records.map(\.key) == [key(2)])
        // Filed again, an object counts again.
        departures.markStray(first)
        departures.clearStray(first)
        departures.note(key: key(1), identity: first)
        #expect(departures.records.map(\.key) == [key(2), key(1)])
        departures.settled()
        #expect(departures.isEmpty)
        // Records past one chunk are all kept, in order.
        for index in 0..<3_000 { departures.note(key: key(Int64(index)), identity: second) }
        #expect(departures.count == 3_000)
        #expect(departures.records.map(\.key.primaryKey) == (0..<3_000).map(Int64.init))
        departures.settled()
        #expect(departures.isEmpty && Array(departures.records).isEmpty)
    }

    @Test func objectsDroppedTogetherOrInPartLeaveTheTablesAndTheSurvivorsStay() throws {
        let context = try seededNotes(40)
        let coordinator = try #require(context.persistentStoreCoordinator)
        try context.performAndWait {
            do { _ = try context.fetch(Note.fetchRequest()).map(\.text) }
            #expect(context.registeredObjects.isEmpty)
            #expect(coordinator.cachedRowCount == 0)

            let kept = try context.fetch(Note.fetchRequest()).enumerated().filter { $0.offset % 3 == 0 }.map(\.element)
            #expect(context.registeredObjects.count == kept.count)
            #expect(coordinator.cachedRowCount == kept.count)
            for note in kept { #expect(context.registeredObject(for: note.objectID) === note) }
            // Fetched again, the survivors are the objects returned.
            let again = try context.fetch(Note.fetchRequest())
            #expect(Set(kept.map(ObjectIdentifier.init)).isSubset(of: again.map(ObjectIdentifier.init)))
        }
    }

    /// A row another context's fetch replaced in the row cache dies with its object: its
    /// departure must not count as the replacement's, or the cache would be emptied while
    /// the replacement lives.
    @Test func aReplacedRowThatDiesLeavesItsReplacementCached() throws {
        let context = try seededNotes(1)
        let coordinator = try #require(context.persistentStoreCoordinator)
        let other = siblingContext(of: context)
        let third = siblingContext(of: context)
        let recorder = SQLRecorder(context)
        var held: [Note] = []
        var id: NSManagedObjectID?
        try context.performAndWait {
            var first: [Note]? = try context.fetch(Note.fetchRequest())
            id = first?.first?.objectID
            // The other context reads the row again: its row replaces the first one in the cache.
            held = try other.performAndWait { try other.fetch(Note.fetchRequest()) }
            let replaced = try #require(first?.first?.snapshot)
            #expect(held.first?.snapshot !== replaced, "two rows, the second one cached")
            first = nil
            withExtendedLifetime(first) {}
            #expect(context.registeredObjects.isEmpty, "the first row's object died")
        }
        #expect(coordinator.cachedRowCount == 1)
        let selects = recorder.selects.count
        let text = third.performAndWait { third.object(with: id!).value(forKey: "text") as? String }
        #expect(text == "note 0")
        #expect(recorder.selects.count == selects, "the fault fired from the cached replacement")
        withExtendedLifetime(held) {}
    }

    /// An object registered again while the one it replaces is deallocating (its `deinit`
    /// asks the context for its own ID, after resetting the context or not): the departing
    /// object's record must not take the new object's entry.
    @Test(arguments: [false, true])
    func anObjectRegisteredWhileItsPredecessorDeallocatesStaysRegistered(resetting: Bool) throws {
        let context = try ghostContext()
        try context.performAndWait {
            let permanentID = try savedGhost(in: context)
            let replacement = Replacement()
            var haunted: NSManagedObject? = context.object(with: permanentID)
            Haunted.onDeinit.value = {
                if resetting { context.reset() }
                replacement.object = context.object(with: permanentID)
            }
            haunted = nil
            withExtendedLifetime(haunted) {}
            Haunted.onDeinit.value = nil
            let registered = try #require(replacement.object)
            #expect(context.registeredObject(for: permanentID) === registered)
            #expect(context.registeredObjects.count == 1)
        }
    }
}

extension DeparturesTests {
    /// A row dropped from the cache (its object deleted by another context's save) dies
    /// later with the object still holding it, when the cache holds one other row.
    @Test func aRowDroppedFromTheCacheThatDiesLeavesTheOthersCached() throws {
        let context = try seededNotes(2)
        let coordinator = try #require(context.persistentStoreCoordinator)
        let other = siblingContext(of: context)
        try context.performAndWait {
            var notes: [Note]? = try context.fetch(Note.fetchRequest())
            let doomed = try #require(notes?.first?.objectID)
            let kept = try #require(notes?.last?.objectID)
            notes = notes?.filter { $0.objectID == doomed }
            #expect(coordinator.cachedRowCount == 1)
            let survivor = try other.performAndWait {
                other.delete(other.object(with: doomed))
                try other.save()
                return try other.existingObject(with: kept)
            }
            #expect(coordinator.cachedRowCount == 1, "the deleted row left the cache, the survivor's came in")
            notes = nil
            withExtendedLifetime(notes) {}
            #expect(coordinator.cachedRowCount == 1, "the surviving row stays cached")
            withExtendedLifetime(survivor) {}
        }
    }

    /// A context on a store whose one entity, `Ghost`, is made of ``Haunted`` objects.
    private func ghostContext() throws -> NSManagedObjectContext {
        let ghost = ModelBuilder.entity("Ghost", className: String(reflecting: Haunted.self))
        ghost.properties = [ModelBuilder.attribute("name", .stringAttributeType)]
        let model = NSManagedObjectModel()
        model.entities = [ghost]
        return try makeContext(model)
    }

    /// Inserts and saves a ghost, resets the context, and returns the ghost's ID.
    private func savedGhost(in context: NSManagedObjectContext) throws -> NSManagedObjectID {
        var inserted: NSManagedObject? = NSEntityDescription.insertNewObject(forEntityName: "Ghost", into: context)
        try context.save()
        let permanentID = try #require(inserted?.objectID)
        #expect(!permanentID.isTemporaryID)
        inserted = nil
        context.reset()
        return permanentID
    }
}

/// Holds the object a dying ``Haunted`` registered in its place.
private final class Replacement: @unchecked Sendable {
    var object: NSManagedObject?
}

/// An object whose `deinit` runs a test's closure (before its registry hears of it).
final class Haunted: NSManagedObject {
    final class Hook: @unchecked Sendable {
        var value: (() -> Void)?
    }
    static let onDeinit = Hook()

    deinit { Self.onDeinit.value?() }
}
