// The workloads on the raw SQLite C API: the practical limit for the same SQL work.
// Each runs the statements OpenCoreData runs (same tables, columns and indexes), in
// one transaction where it writes, and reads rows into plain Swift structs.
import Foundation

/// An item row as a hand-written app holds it.
struct RawItem {
    var id: Int64
    var version: Int64
    var name: String?
    var number: Int64
    var amount: Double
    var created: Date?
    var flag: Bool
    var note: String?
}

/// A parent row with the sum of its children's values.
struct RawParentTotal {
    var id: Int64
    var name: String?
    var childTotal: Int64
}

final class RawSQLiteContender: Contender {
    static let label = "raw SQLite"
    private let storeURL: URL
    private let template: URL

    /// The item columns, in the order `readItem` expects them.
    private static let itemColumns =
        "t0.Z_PK, t0.Z_ENT, t0.Z_OPT, t0.ZNAME, t0.ZNUMBER, t0.ZAMOUNT, t0.ZCREATED, t0.ZFLAG, t0.ZNOTE"

    init(storeURL: URL, template: URL) {
        self.storeURL = storeURL
        self.template = template
    }

    /// Opens the store untimed; the timed body runs `work` on the connection.
    private func prepare(_ url: URL? = nil, _ work: @escaping (RawConnection) throws -> Int) throws -> PreparedRun {
        let db = try RawConnection(path: (url ?? storeURL).path)
        return PreparedRun(body: { try work(db) }, finish: { db.close() })
    }

    private static func readItem(_ statement: RawStatement) -> RawItem {
        RawItem(
            id: statement.int64(0), version: statement.int64(2), name: statement.string(3), number: statement.int64(4),
            amount: statement.double(5), created: statement.date(6), flag: statement.bool(7), note: statement.string(8)
        )
    }

    private static func readAll(_ statement: RawStatement) throws -> [RawItem] {
        var items: [RawItem] = []
        while try statement.step() { items.append(readItem(statement)) }
        return items
    }

    func insert(_ items: [ItemValues]) throws -> PreparedRun {
        try StoreFiles.copy(template, to: storeURL)
        return try prepare { db in
            let entity = try db.entityNumber("Item")
            try db.execute("BEGIN IMMEDIATE")
            let insert = try db.prepare(
                "INSERT INTO ZITEM (Z_PK, Z_ENT, Z_OPT, ZNAME, ZNUMBER, ZAMOUNT, ZCREATED, ZFLAG, ZNOTE) VALUES (?, ?, 1, ?, ?, ?, ?, ?, ?)"
            )
            for (index, item) in items.enumerated() {
                insert.bind(Int64(index + 1), at: 1)
                insert.bind(entity, at: 2)
                insert.bind(item.name, at: 3)
                insert.bind(item.number, at: 4)
                insert.bind(item.amount, at: 5)
                insert.bind(item.created, at: 6)
                insert.bind(item.flag, at: 7)
                insert.bind(item.note, at: 8)
                _ = try insert.step()
                insert.reset()
            }
            try db.execute("UPDATE Z_PRIMARYKEY SET Z_MAX = \(items.count) WHERE Z_ENT = \(entity)")
            try db.execute("COMMIT")
            return items.count
        }
    }

    func fetchAndRead() throws -> PreparedRun {
        try prepare { db in try Self.fetchAndRead(db) }
    }

    private static func fetchAndRead(_ db: RawConnection) throws -> Int {
        let select = try db.prepare(
            "SELECT \(itemColumns) FROM ZITEM t0 WHERE t0.ZAMOUNT >= ? ORDER BY t0.ZNUMBER ASC")
        select.bind(BenchmarkData.fetchMinimumAmount, at: 1)
        return BenchmarkData.checksum(of: try readAll(select))
    }

    /// The C API has no other way to write: workload 1's statements.
    func keyValueInsert(_ items: [ItemValues]) throws -> PreparedRun { try insert(items) }

    /// Two connections to the file, each read on a thread of its own.
    func concurrentFetchAndRead() throws -> PreparedRun {
        let connections = try (0..<2).map { _ in try RawConnection(path: storeURL.path) }
        return PreparedRun(
            body: {
                nonisolated(unsafe) let connections = connections
                return try BenchmarkData.checksumOfConcurrentRuns(connections.count) {
                    try Self.fetchAndRead(connections[$0])
                }
            },
            finish: { connections.forEach { $0.close() } })
    }

    /// The C API reads columns by index whatever the caller's style: workload 2's reading.
    func keyValueFetchAndRead() throws -> PreparedRun { try fetchAndRead() }

    /// Every item as a plain struct, held until `finish`.
    func fetchAndHold() throws -> PreparedRun {
        let held = HeldResult()
        let run = try prepare { db in
            let items = try Self.readAll(db.prepare("SELECT \(Self.itemColumns) FROM ZITEM t0"))
            let checksum = BenchmarkData.checksum(of: items)
            held.value = items
            return checksum
        }
        return run.finishing { held.value = nil }
    }

    func count() throws -> PreparedRun {
        try prepare { db in
            let count = try db.prepare(
                "SELECT COUNT(*) FROM ZITEM t0 WHERE t0.ZNUMBER >= ? AND t0.ZNUMBER < ? AND t0.ZFLAG = ?")
            count.bind(BenchmarkData.countNumberRange.lower, at: 1)
            count.bind(BenchmarkData.countNumberRange.upper, at: 2)
            count.bind(true, at: 3)
            guard try count.step() else { throw BenchmarkError("COUNT returned no row") }
            return Int(count.int64(0))
        }
    }

    /// Core Data's batching by hand: the sorted keys first, then each touched batch of 50 rows by key.
    func batchedFetch() throws -> PreparedRun {
        try prepare { db in
            let keys = try db.prepare("SELECT t0.Z_PK FROM ZITEM t0 ORDER BY t0.ZNUMBER ASC")
            var ids: [Int64] = []
            while try keys.step() { ids.append(keys.int64(0)) }
            let batchSize = BenchmarkData.batchSize
            let placeholders = Array(repeating: "?", count: batchSize).joined(separator: ", ")
            let batch = try db.prepare("SELECT \(Self.itemColumns) FROM ZITEM t0 WHERE t0.Z_PK IN (\(placeholders))")
            var loaded: [Int64: RawItem] = [:]
            var checksum = 0
            for position in BenchmarkData.touchedPositions(count: ids.count) {
                if loaded[ids[position]] == nil {
                    let start = position / batchSize * batchSize
                    for slot in 0..<batchSize {
                        if start + slot < ids.count {
                            batch.bind(ids[start + slot], at: Int32(slot + 1))
                        } else {
                            batch.bindNull(at: Int32(slot + 1))
                        }
                    }
                    for item in try Self.readAll(batch) { loaded[item.id] = item }
                    batch.reset()
                }
                guard let item = loaded[ids[position]] else { throw BenchmarkError("row \(ids[position]) vanished") }
                checksum &+= Int(item.number) &+ (item.name?.utf8.count ?? 0)
            }
            return checksum
        }
    }

    func update() throws -> PreparedRun {
        try prepare { db in
            var items = try Self.readAll(db.prepare("SELECT \(Self.itemColumns) FROM ZITEM t0"))
            try db.execute("BEGIN IMMEDIATE")
            let update = try db.prepare("UPDATE ZITEM SET Z_OPT = Z_OPT + 1, ZAMOUNT = ? WHERE Z_PK = ? AND Z_OPT = ?")
            for index in items.indices {
                items[index].amount += 1
                update.bind(items[index].amount, at: 1)
                update.bind(items[index].id, at: 2)
                update.bind(items[index].version, at: 3)
                _ = try update.step()
                guard db.changes == 1 else { throw BenchmarkError("row \(items[index].id) changed underneath") }
                update.reset()
                items[index].version += 1
            }
            try db.execute("COMMIT")
            return items.reduce(0) { $0 &+ Int(($1.amount * 100).rounded()) }
        }
    }

    func insertFamilies(_ families: [FamilyValues]) throws {
        let db = try RawConnection(path: storeURL.path)
        defer { db.close() }
        let parentEntity = try db.entityNumber("Parent")
        let childEntity = try db.entityNumber("Child")
        try db.execute("BEGIN IMMEDIATE")
        let parent = try db.prepare("INSERT INTO ZPARENT (Z_PK, Z_ENT, Z_OPT, ZNAME) VALUES (?, ?, 1, ?)")
        let child = try db.prepare("INSERT INTO ZCHILD (Z_PK, Z_ENT, Z_OPT, ZVALUE, ZPARENT) VALUES (?, ?, 1, ?, ?)")
        var childKey: Int64 = 0
        for (index, family) in families.enumerated() {
            let parentKey = Int64(index + 1)
            parent.bind(parentKey, at: 1)
            parent.bind(parentEntity, at: 2)
            parent.bind(family.name, at: 3)
            _ = try parent.step()
            parent.reset()
            for value in family.childValues {
                childKey += 1
                child.bind(childKey, at: 1)
                child.bind(childEntity, at: 2)
                child.bind(value, at: 3)
                child.bind(parentKey, at: 4)
                _ = try child.step()
                child.reset()
            }
        }
        try db.execute("UPDATE Z_PRIMARYKEY SET Z_MAX = \(families.count) WHERE Z_ENT = \(parentEntity)")
        try db.execute("UPDATE Z_PRIMARYKEY SET Z_MAX = \(childKey) WHERE Z_ENT = \(childEntity)")
        try db.execute("COMMIT")
    }

    /// One SQL join over parents and children, summed per parent while stepping.
    func sumChildren() throws -> PreparedRun {
        try prepare { db in
            let join = try db.prepare(
                "SELECT t0.Z_PK, t0.ZNAME, t1.Z_PK, t1.ZVALUE FROM ZPARENT t0 JOIN ZCHILD t1 ON t1.ZPARENT = t0.Z_PK ORDER BY t0.Z_PK"
            )
            var parents: [RawParentTotal] = []
            while try join.step() {
                let id = join.int64(0)
                if parents.last?.id != id {
                    parents.append(RawParentTotal(id: id, name: join.string(1), childTotal: 0))
                }
                parents[parents.count - 1].childTotal += join.int64(3)
            }
            return parents.reduce(parents.count) { $0 &+ Int($1.childTotal) }
        }
    }

    func batchDelete(scratch: URL) throws -> PreparedRun {
        try StoreFiles.copy(storeURL, to: scratch)
        let run = try prepare(scratch) { db in
            let delete = try db.prepare("DELETE FROM ZITEM WHERE ZNUMBER < ?")
            delete.bind(BenchmarkData.deleteNumberLimit, at: 1)
            _ = try delete.step()
            return db.changes
        }
        return run.finishing { StoreFiles.remove(scratch) }
    }

}

extension RawItem: ItemAttributes {}
