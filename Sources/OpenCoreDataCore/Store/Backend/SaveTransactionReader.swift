/// Reads a store from inside a save's transaction, so the conflict checks of a save see
/// exactly the rows its write would change (no other writer can commit in between).
///
/// The key allocator a store hands to a save's request builder conforms when the store
/// can answer; a store that cannot leaves conflicts to its write's own checks.
package protocol SaveTransactionReader {
    /// The current version (`Z_OPT`) of each row of `entity`'s table among `keys`; rows
    /// that no longer exist are left out.
    func versions(ofKeys keys: [Int64], in entity: NSEntityDescription) throws -> [Int64: Int64]
    /// The current rows of these objects (any order; missing rows are left out).
    func rows(for objectIDs: [NSManagedObjectID]) throws -> [StoreRow]
    /// The IDs of stored rows of `entity` or its subentities whose `properties` equal
    /// `values` (attributes as stored values, to-ones as IDs of saved objects).
    func objectIDs(of entity: NSEntityDescription, where properties: [NSPropertyDescription], equal values: [Any?]) throws -> [NSManagedObjectID]
}
