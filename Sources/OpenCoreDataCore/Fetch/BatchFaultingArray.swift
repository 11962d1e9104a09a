/// The result of a batched fetch: Core Data's batch-faulting array.
///
/// It holds the matching rows' keys only (8 bytes each). Reading an element loads
/// the whole batch around it (`fetchBatchSize` objects) with one query and keeps
/// that batch alive while you read through it; objects of batches you left are
/// released unless you keep them. So iterating a million-row result keeps memory
/// bounded. Read it on the context's queue, like the objects it returns.
///
/// On Apple platforms `fetch(_:)` returns such an array bridged to Swift; Swift on
/// Linux has no lazily bridged arrays, so ``NSManagedObjectContext/fetchBatched(_:)``
/// returns this collection instead (see docs/DEVIATIONS.md).
public struct BatchFaultingArray<Element>: RandomAccessCollection {
    private let storage: Storage

    init(objects: [NSManagedObject], batchSize: Int, returnsIDs: Bool) {
        storage = Storage(
            source: .objects(objects), batchSize: batchSize, context: nil, asFaults: true, returnsIDs: returnsIDs)
    }

    init(
        list: StoreObjectList, store: NSPersistentStore, batchSize: Int, context: NSManagedObjectContext,
        asFaults: Bool, returnsIDs: Bool
    ) {
        storage = Storage(
            source: .keys(list, store), batchSize: batchSize, context: context, asFaults: asFaults,
            returnsIDs: returnsIDs)
    }

    /// The number of objects the fetch matched.
    public var count: Int { storage.count }
    /// Always 0.
    public var startIndex: Int { 0 }
    /// The number of objects.
    public var endIndex: Int { storage.count }
    /// How many objects one read loads together.
    public var batchSize: Int { storage.batchSize }

    /// The saved rows' keys, when the result is read from the store (not computed in memory).
    var storeKeys: StoreObjectList? {
        guard case let .keys(list, _) = storage.source else { return nil }
        return list
    }

    /// The object at `position`, loading its batch when needed.
    public subscript(position: Int) -> Element {
        storage.element(at: position) as! Element
    }

    /// Loads and keeps one batch; reading an element of another batch releases it.
    final class Storage {
        enum Source {
            /// Objects already in memory (a fetch that had to merge unsaved changes).
            case objects([NSManagedObject])
            /// Keys of saved rows.
            case keys(StoreObjectList, NSPersistentStore)
        }

        let source: Source
        let batchSize: Int
        let context: NSManagedObjectContext?
        let asFaults: Bool
        let returnsIDs: Bool
        private var batchStart = -1
        private var batch: [NSManagedObject] = []

        init(source: Source, batchSize: Int, context: NSManagedObjectContext?, asFaults: Bool, returnsIDs: Bool) {
            self.source = source
            self.batchSize = Swift.max(1, batchSize)
            self.context = context
            self.asFaults = asFaults
            self.returnsIDs = returnsIDs
        }

        var count: Int {
            switch source {
            case let .objects(objects): return objects.count
            case let .keys(list, _): return list.count
            }
        }

        func element(at index: Int) -> Any {
            switch source {
            case let .objects(objects):
                return returnsIDs ? objects[index].objectID : objects[index]
            case let .keys(list, store):
                precondition(index >= 0 && index < list.count, "Index \(index) out of range 0..<\(list.count)")
                if returnsIDs { return list.objectID(at: index, store: store) }
                let start = index / batchSize * batchSize
                if start != batchStart { load(start, list: list, store: store) }
                return batch[index - start]
            }
        }

        /// Reads the batch beginning at `start`: registered objects as they are, the
        /// others with one query (rows the store no longer has come back as faults).
        private func load(_ start: Int, list: StoreObjectList, store: NSPersistentStore) {
            guard let context else { return }
            batch = []
            batchStart = start
            // Objects the context holds with their values (or rows) are used as they are;
            // the rest come from one query, and rows the store lost become faults.
            let ids = (start..<Swift.min(start + batchSize, list.count)).map { list.objectID(at: $0, store: store) }
            var objects = ids.map { id in
                context.registeredObject(for: id).flatMap { !$0.isFaultStorage || $0.snapshot != nil ? $0 : nil }
            }
            let missing = zip(ids, objects).compactMap { $1 == nil ? $0 : nil }
            // A batch the store fails to read leaves its objects plain faults: each then
            // reads its own row when used, and a failure there is reported for that object
            // (the context's `faultingErrors`; `existingObject(with:)` throws it), never
            // filled with made-up values.
            if !missing.isEmpty,
                let rows = try? context.persistentStoreCoordinator?.rows(
                    for: missing, at: context.readGeneration, by: context)
            {
                var loaded: [ObjectKey: NSManagedObject] = [:]
                for row in rows { loaded[row.key] = context.register(row, asFault: asFaults) }
                for index in objects.indices where objects[index] == nil { objects[index] = loaded[ids[index].key] }
            }
            batch = zip(ids, objects).map { $1 ?? context.object(with: $0) }
        }
    }
}
