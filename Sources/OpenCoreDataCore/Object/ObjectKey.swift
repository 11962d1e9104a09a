/// An object ID's identity for lookups inside one coordinator: the store, the table's
/// root entity number and the key; for a temporary ID, table -1 and its token.
/// Hashing and comparing it costs a few instructions, where `NSObject` equality
/// boxes its argument and hashes the store's UUID string.
struct ObjectKey: Hashable {
    let owner: ObjectIdentifier?
    let table: Int
    let primaryKey: Int64
}
