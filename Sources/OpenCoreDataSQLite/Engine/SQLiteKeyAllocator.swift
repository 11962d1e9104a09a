import OpenCoreDataCore
import OpenCoreDataSQL
internal import GRDB

/// Hands out primary keys for each inheritance tree (one table, one key sequence),
/// inside a transaction (the one reserving keys for a save, or a batch insert's).
///
/// The next key is past both the largest `Z_MAX` of the tree's entities and the largest
/// `Z_PK` in its table, and every entity of the tree records the new maximum: whether a
/// store's other writer (Core Data on a device) keeps the counter on the root entity or on
/// each entity, neither can hand out a key that is already taken.
struct SQLiteKeyAllocator {
    let db: Database
    let schema: SQLSchema
    private var next: [Int: Int64] = [:]

    init(db: Database, schema: SQLSchema) {
        self.db = db
        self.schema = schema
    }

    mutating func nextKey(for entity: NSEntityDescription) throws -> Int64 {
        let root = entity.facts.root
        let number = root.facts.entityNumber
        let current: Int64
        if let known = next[number] {
            current = known
        } else {
            let counter = try Int64.fetchOne(db, SQLPrimaryKeyStatements.largestCounter(ofTree: root)) ?? 0
            let used =
                try Int64.fetchOne(db, SQLPrimaryKeyStatements.largestKey(in: try schema.table(for: root).name)) ?? 0
            current = max(counter, used)
        }
        guard current < Int64.max else {
            throw CoreDataError.make(
                NSPersistentStoreSaveError,
                "The store has used up the primary keys of entity '\(root.name ?? "?")' (Z_MAX is \(current))")
        }
        next[number] = current + 1
        return current + 1
    }

    func flush() throws {
        for (number, max) in next {
            guard let root = schema.entities.first(where: { $0.facts.entityNumber == number }) else { continue }
            try db.execute(SQLPrimaryKeyStatements.raiseCounters(ofTree: root, to: max))
        }
    }
}
