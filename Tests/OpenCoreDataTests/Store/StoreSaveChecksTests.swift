import Foundation
@testable import OpenCoreDataCore
import Testing
import OpenCoreDataStoreTestSupport

/// The checks a save request carries down to its store (`StoreSaveChecks`), run against a
/// reader that answers what a store would, so the seam's rules are pinned apart from any
/// engine: which stored rows conflict, which the save itself releases, and what comes back.
@Suite struct StoreSaveChecksTests {
    /// Stands in for an engine's reads inside a save: candidate keys and versions as set,
    /// rows read through a real store, every query counted.
    final class Reader: StoreSaveCheckReader {
        let backend: any PersistentStoreBackend
        var candidates: [NSManagedObjectID] = []
        var versions: [Int64: Int64] = [:]
        var queries = 0

        init(backend: any PersistentStoreBackend) { self.backend = backend }

        func versions(ofKeys keys: [Int64], in entity: NSEntityDescription) throws -> [Int64: Int64] {
            versions.filter { keys.contains($0.key) }
        }

        func rows(for references: [StoreSaveRequest.RowReference]) throws -> [StoreRow] {
            let wanted = Set(references.map(\.primaryKey))
            return try backend.rows(for: candidates.filter { wanted.contains($0.primaryKey ?? -1) })
        }

        func objectIDs(
            of entity: NSEntityDescription, where properties: [NSPropertyDescription], equal values: [Any?]
        ) throws -> [NSManagedObjectID] {
            queries += 1
            return candidates
        }
    }

    /// Three saved notebooks and a reader over their store.
    private func fixture() throws -> (NSEntityDescription, [NSManagedObjectID], Reader, NSPersistentContainer) {
        let container = try openContainer(at: temporaryStoreURL(), model: ModelBuilder.notesModel())
        let context = container.viewContext
        let notebooks = (1...3).map { index in
            let notebook = Notebook(context: context)
            notebook.name = "Notebook \(index)"
            return notebook
        }
        try context.save()
        let ids = notebooks.map(\.objectID)
        let reader = Reader(backend: try #require(container.persistentStoreCoordinator.persistentStores.first?.backend))
        reader.candidates = ids
        return (notebooks[0].entity, ids, reader, container)
    }

    private func check(
        _ entity: NSEntityDescription, holders: [NSManagedObjectID], released: [NSManagedObjectID] = [],
        mayBeStored: Bool = true
    ) throws -> StoreSaveChecks.UniquenessCheck {
        let name = try #require(entity.propertiesByName["name"])
        return StoreSaveChecks.UniquenessCheck(
            entity: entity, properties: [name], values: ["Notebook"], mayBeStored: mayBeStored, holders: holders,
            released: StoreSaveChecks.ReleasedRows(deleted: Set(released.prefix(1)), changed: Set(released.dropFirst()))
        )
    }

    @Test func aStoredRowTheSaveDoesNotWriteIsAConflict() throws {
        let (entity, ids, reader, container) = try fixture()
        var checks = StoreSaveChecks()
        checks.uniqueness = [try check(entity, holders: [ids[0]], released: [ids[1]])]
        let conflicts = try #require(try checks.conflicts(of: StoreSaveRequest(), reading: reader))
        #expect(conflicts.stale.isEmpty)
        #expect(conflicts.duplicates.count == 1)
        #expect(conflicts.duplicates.first?.check == 0)
        #expect(
            conflicts.duplicates.first?.stored?.objectID == ids[2],
            "the one row neither holding the values nor released by the save")
        _ = container
    }

    @Test func rowsTheSaveHoldsDeletesOrMovesAreNoConflict() throws {
        let (entity, ids, reader, container) = try fixture()
        var checks = StoreSaveChecks()
        // ids[1] deleted by the save, ids[2] moved off the values by it.
        checks.uniqueness = [try check(entity, holders: [ids[0]], released: [ids[1], ids[2]])]
        #expect(try checks.conflicts(of: StoreSaveRequest(), reading: reader) == nil, "the save may write")
        _ = container
    }

    @Test func valuesSeveralObjectsOfTheSaveHoldConflictWithoutAStoredRow() throws {
        let (entity, ids, reader, container) = try fixture()
        var checks = StoreSaveChecks()
        checks.uniqueness = [try check(entity, holders: [ids[0], ids[1]], released: [ids[2]])]
        #expect(checks.uniqueness[0].isDuplicatedInSave)
        let conflicts = try #require(try checks.conflicts(of: StoreSaveRequest(), reading: reader))
        #expect(conflicts.duplicates.count == 1)
        #expect(conflicts.duplicates.first?.stored == nil)
        _ = container
    }

    @Test func valuesNoRowCanHoldAreNotLookedUp() throws {
        let (entity, ids, reader, container) = try fixture()
        var checks = StoreSaveChecks()
        checks.uniqueness = [try check(entity, holders: [ids[0]], mayBeStored: false)]
        #expect(try checks.conflicts(of: StoreSaveRequest(), reading: reader) == nil)
        #expect(reader.queries == 0, "a value no stored row can hold (an unsaved object) asks the store nothing")
        _ = container
    }

    @Test func staleAndVanishedRowsComeBackWithTheirCurrentState() throws {
        let (entity, ids, reader, container) = try fixture()
        var request = StoreSaveRequest()
        let row = try #require(try reader.backend.rows(for: [ids[0]]).first)
        let first = StoreSaveRequest.RowReference(entity: entity, primaryKey: try #require(ids[0].primaryKey))
        let second = StoreSaveRequest.RowReference(entity: entity, primaryKey: try #require(ids[1].primaryKey))
        let third = StoreSaveRequest.RowReference(entity: entity, primaryKey: try #require(ids[2].primaryKey))
        request.updates = [
            StoreSaveRequest.RowWrite(
                entity: entity, primaryKey: first.primaryKey, values: row.values, slots: [], expectedVersion: 1)
        ]
        request.deletes = [(second, 1), (third, 1)]
        // The first row was written again by someone else; the second is gone; the third is as read.
        reader.versions = [first.primaryKey: 2, third.primaryKey: 1]
        reader.candidates = [ids[0]]
        var checks = StoreSaveChecks()
        #expect(
            try checks.conflicts(of: request, reading: reader) == nil,
            "without version checks the write's own conditions decide")
        checks.versions = true
        let conflicts = try #require(try checks.conflicts(of: request, reading: reader))
        let stale = Dictionary(uniqueKeysWithValues: conflicts.stale.map { ($0.row, $0.current) })
        #expect(stale.count == 2)
        #expect(stale[first]??.objectID == ids[0], "a changed row comes back as it is now")
        #expect(stale[second] != nil && stale[second]! == nil, "a vanished row comes back as nil")
        #expect(stale[third] == nil, "a row at its expected version is no conflict")
        _ = container
    }
}
