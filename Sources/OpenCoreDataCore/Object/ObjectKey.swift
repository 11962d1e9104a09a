/// An object ID's identity for lookups inside one process: the store's number, the
/// table's root entity number and the key; for a temporary ID, store 0, table -1 and
/// its token. Sixteen bytes: the registry and the row cache hold one per object, and
/// hashing and comparing it costs a few instructions, where `NSObject` equality boxes
/// its argument and hashes the store's UUID string.
struct ObjectKey: Hashable {
    /// ``NSPersistentStore``'s process-unique `number`; 0 for temporary IDs.
    let owner: UInt32
    let table: Int32
    let primaryKey: Int64

    /// Whether this is a temporary ID's key (store 0, which no store has: store numbers start at 1).
    var isTemporary: Bool { owner == 0 }

    init(owner: UInt32, table: Int, primaryKey: Int64) {
        self.owner = owner
        self.table = Int32(truncatingIfNeeded: table)
        self.primaryKey = primaryKey
    }
}
