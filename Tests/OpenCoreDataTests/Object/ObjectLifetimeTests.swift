import Dispatch
import Foundation
import OpenCoreDataTestSupport
import Testing
@testable import OpenCoreDataCore
import OpenCoreDataStoreTestSupport

/// Uniquing and object lifetime: the registry and the row cache reference objects
/// and snapshots without owning them, and objects may die on any thread.
@Suite struct ObjectLifetimeTests {
    /// A saved store of `count` notes; the context is reset.
    private func seeded(_ count: Int) throws -> NSManagedObjectContext {
        let context = try makeContext(ModelBuilder.notesModel())
        try context.performAndWait {
            for index in 0..<count {
                let note = Note(context: context)
                note.text = "note \(index)"
                note.pages = Int16(index % 300)
            }
            try context.save()
            context.reset()
        }
        return context
    }

    @Test func theSameRowIsAlwaysTheSameObject() throws {
        let context = try seeded(40)
        try context.performAndWait {
            let first = try context.fetch(Note.fetchRequest())
            let second = try context.fetch(Note.fetchRequest())
            #expect(first.count == 40)
            #expect(zip(first, second).allSatisfy { $0 === $1 })
            #expect(first.allSatisfy { context.registeredObject(for: $0.objectID) === $0 })
            #expect(first.allSatisfy { context.object(with: $0.objectID) === $0 })

            // A new object is found under its temporary ID, then under its permanent one.
            let note = Note(context: context)
            let temporaryID = note.objectID
            #expect(context.registeredObject(for: temporaryID) === note)
            try context.save()
            #expect(!note.objectID.isTemporaryID)
            #expect(context.registeredObject(for: temporaryID) == nil)
            #expect(context.registeredObject(for: note.objectID) === note)
            #expect(try context.fetch(Note.fetchRequest()).contains { $0 === note })
        }
    }

    @Test func objectsReleasedOnAnotherThreadLeaveTheRegistryAndTheRowCache() throws {
        let context = try seeded(200)
        let coordinator = try #require(context.persistentStoreCoordinator)
        let handOff = HandOff()
        try context.performAndWait {
            handOff.objects = try context.fetch(Note.fetchRequest())
            _ = handOff.objects.map { $0.value(forKey: "text") }
            #expect(context.registeredObjects.count == 200)
        }
        // The last references go on another thread, as when an app drops a result there.
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            handOff.objects = []
            done.signal()
        }
        done.wait()
        context.performAndWait {
            #expect(context.registeredObjects.isEmpty)
            #expect(coordinator.cachedRowCount == 0)
        }
    }

    /// Objects die on another thread while the context fetches the same rows: every
    /// fetch must still hand out exactly one live object per row.
    @Test func fetchingWhileOtherThreadsReleaseObjectsKeepsOneObjectPerRow() throws {
        let context = try seeded(300)
        let releaser = DispatchQueue(label: "releaser")
        try context.performAndWait {
            for round in 0..<60 {
                let notes = try context.fetch(Note.fetchRequest())
                #expect(Set(notes.map(\.objectID)).count == notes.count)
                #expect(notes.allSatisfy { context.registeredObject(for: $0.objectID) === $0 })
                if round % 3 == 0 { _ = notes.map(\.text) }
                let handOff = HandOff()
                handOff.objects = notes
                releaser.async { handOff.objects = [] }
            }
        }
        releaser.sync {}
        context.performAndWait { #expect(context.registeredObjects.isEmpty) }
    }

    /// An object given a permanent ID by another context stays filed under the ID its
    /// own context can look it up by, and leaves that context's registry when it dies
    /// (an entry left under the old ID would point at freed memory).
    @Test func permanentIDsObtainedElsewhereRefileTheObjectInItsOwnContext() throws {
        let owner = try seeded(0)
        let other = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        other.persistentStoreCoordinator = owner.persistentStoreCoordinator
        let handOff = HandOff()
        let (temporaryID, permanentID) = try owner.performAndWait {
            let note = Note(context: owner)
            note.text = "filed"
            handOff.objects = [note]
            let temporaryID = note.objectID
            try other.performAndWait { try other.obtainPermanentIDs(for: [note]) }
            #expect(!note.objectID.isTemporaryID)
            #expect(owner.registeredObject(for: note.objectID) === note)
            #expect(owner.registeredObject(for: temporaryID) == nil)
            try owner.save()
            return (temporaryID, note.objectID)
        }
        handOff.objects = []
        owner.performAndWait {
            #expect(owner.registeredObject(for: permanentID) == nil)
            #expect(owner.registeredObject(for: temporaryID) == nil)
            #expect(owner.registeredObjects.isEmpty)
        }
    }

    /// With `retainsRegisteredObjects` the registry and its objects reference each other;
    /// the context's end must still free them.
    @Test func aContextRetainingItsObjectsFreesThemWhenItGoes() throws {
        weak var watched: NSManagedObject?
        do {
            let context = try seeded(3)
            context.performAndWait {
                context.retainsRegisteredObjects = true
                let notes = try? context.fetch(Note.fetchRequest())
                watched = notes?.first
            }
            context.performAndWait { #expect(context.registeredObjects.count == 3) }
            #expect(watched != nil, "the context keeps its objects alive")
        }
        #expect(watched == nil, "freed with the context")
    }

    /// Carries objects to the thread that drops the last references to them.
    private final class HandOff: @unchecked Sendable {
        var objects: [NSManagedObject] = []
    }

    /// Consecutive keys of several tables (a fetch of parents and their children) must
    /// not pile up: long runs make every lookup, and every removal as objects die, walk
    /// the run, which turned saves and prefetches quadratic.
    @Test func objectKeyTableKeepsConsecutiveKeysOfSeveralTablesApart() {
        var table = ObjectKeyTable<Int>()
        for entity in 1...3 {
            for key in 1...40_000 { table[ObjectKey(owner: 0, table: entity, primaryKey: Int64(key))] = key }
        }
        for token in 1...40_000 { table[ObjectKey(owner: 0, table: -1, primaryKey: Int64(token))] = token }
        #expect(table.count == 160_000)
        #expect(table.longestDisplacement < 64)
        // Removing in key order, as objects fetched in order die, leaves a sound table.
        for key in 1...40_000 { table[ObjectKey(owner: 0, table: 2, primaryKey: Int64(key))] = nil }
        #expect(table.count == 120_000)
        #expect(table[ObjectKey(owner: 0, table: 3, primaryKey: 40_000)] == 40_000)
        #expect(table[ObjectKey(owner: 0, table: 2, primaryKey: 1)] == nil)
    }

    /// Reserving room for a fetch's rows sizes the table to a power of two (its mask
    /// needs one): with 2,000 buckets, probing cycled without reaching an empty one.
    @Test(.timeLimit(.minutes(1)))
    func objectKeyTableReservesAPowerOfTwo() {
        var table = ObjectKeyTable<Int>()
        for key in 1...10 { table[ObjectKey(owner: 0, table: 1, primaryKey: Int64(key))] = key }
        table.reserveCapacity(1_000)
        for key in 11...1_000 { table[ObjectKey(owner: 0, table: 1, primaryKey: Int64(key))] = key }
        #expect(table.count == 1_000)
        #expect((1...1_000).allSatisfy { table[ObjectKey(owner: 0, table: 1, primaryKey: Int64($0))] == $0 })
        #expect(table[ObjectKey(owner: 0, table: 2, primaryKey: 1)] == nil)
        #expect(table.longestDisplacement < 64)
    }

    @Test func objectKeyTableAgreesWithADictionary() {
        var random = SplitMix64(seed: 0x7AB1E)
        var table = ObjectKeyTable<Int>()
        var model: [ObjectKey: Int] = [:]
        let owners: [UInt32] = [1, 2]
        // Few tables and nearby keys, so probe runs collide, merge and wrap around.
        func randomKey() -> ObjectKey {
            let owner = random.next() % 5 == 0 ? 0 : owners[Int(random.next() % 2)]
            return ObjectKey(owner: owner, table: Int(random.next() % 3) - 1, primaryKey: Int64(random.next() % 700))
        }
        for step in 0..<40_000 {
            let key = randomKey()
            switch random.next() % 12 {
            case 0..<3:
                table[key] = step
                model[key] = step
            case 3..<5:
                #expect(table.updateValue(step, forKey: key) == model.updateValue(step, forKey: key))
            case 5..<9:
                table[key] = nil
                model[key] = nil
            case 9..<11:
                // Decided from the value found: an odd one goes, an even one becomes odd, none stays none.
                let found = table.update(key) { entry -> Int? in
                    defer { entry = entry.flatMap { $0 % 2 == 0 ? $0 + 1 : nil } }
                    return entry
                }
                #expect(found == model[key])
                model[key] = model[key].flatMap { $0 % 2 == 0 ? $0 + 1 : nil }
            default:
                #expect(table[key] == model[key])
            }
            if step % 9_999 == 0 {
                let doomedTable = Int(random.next() % 3) - 1
                table.removeAll { $0.table == doomedTable }
                model = model.filter { $0.key.table != doomedTable }
            }
            if step % 1_000 == 0 {
                #expect(table.count == model.count)
                #expect(model.allSatisfy { table[$0.key] == $0.value })
                #expect(Array(table.values).sorted() == model.values.sorted())
            }
        }
        // Emptying the table shrinks it and leaves nothing behind.
        for key in model.keys { table[key] = nil }
        #expect(table.count == 0)
        #expect(Array(table.values).isEmpty)
    }
}
