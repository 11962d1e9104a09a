// The workloads on GRDB.swift with Codable records (GRDBRecords.swift), as a GRDB
// app writes them, on the same Core Data tables.
import Foundation
import GRDB

final class GRDBContender: Contender {
    static let label = "GRDB"
    private let storeURL: URL
    private let template: URL

    init(storeURL: URL, template: URL) {
        self.storeURL = storeURL
        self.template = template
    }

    private func open(_ url: URL) throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA journal_mode = WAL") }
        return try DatabaseQueue(path: url.path, configuration: configuration)
    }

    /// Opens the store untimed; the timed body runs `work` on the queue.
    private func prepare(_ url: URL? = nil, _ work: @escaping (DatabaseQueue) throws -> Int) throws -> PreparedRun {
        let queue = try open(url ?? storeURL)
        return PreparedRun(body: { try work(queue) }, finish: { try? queue.close() })
    }

    private static func entityNumber(_ name: String, _ db: Database) throws -> Int64 {
        guard
            let number = try Int64.fetchOne(
                db, sql: "SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = ?", arguments: [name])
        else {
            throw BenchmarkError("no entity \(name) in Z_PRIMARYKEY")
        }
        return number
    }

    func insert(_ items: [ItemValues]) throws -> PreparedRun {
        try StoreFiles.copy(template, to: storeURL)
        return try prepare { queue in
            try queue.write { db in
                let entity = try Self.entityNumber("Item", db)
                for (index, values) in items.enumerated() {
                    try ItemRecord(
                        id: Int64(index + 1), entity: entity, version: 1, name: values.name, number: values.number,
                        amount: values.amount, created: values.created, flag: values.flag, note: values.note
                    ).insert(db)
                }
                try db.execute(
                    sql: "UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ?", arguments: [items.count, entity])
            }
            return items.count
        }
    }

    func fetchAndRead() throws -> PreparedRun {
        try prepare { queue in BenchmarkData.checksum(of: try queue.read(Self.fetchedItems)) }
    }

    /// Workload 2's records.
    private static func fetchedItems(_ db: Database) throws -> [ItemRecord] {
        try ItemRecord
            .filter(ItemRecord.Columns.amount >= BenchmarkData.fetchMinimumAmount)
            .order(ItemRecord.Columns.number)
            .fetchAll(db)
    }

    /// GRDB has no writing by key: workload 1's records.
    func keyValueInsert(_ items: [ItemValues]) throws -> PreparedRun { try insert(items) }

    /// A `DatabasePool`, GRDB's way to read at once: two of its readers, each on a thread of its own.
    func concurrentFetchAndRead() throws -> PreparedRun {
        var configuration = Configuration()
        configuration.maximumReaderCount = 2
        let pool = try DatabasePool(path: storeURL.path, configuration: configuration)
        return PreparedRun(
            body: {
                try BenchmarkData.checksumOfConcurrentRuns(2) { _ in
                    BenchmarkData.checksum(of: try pool.read(Self.fetchedItems))
                }
            },
            finish: { try? pool.close() })
    }

    /// GRDB's reading by name: database rows, every value by its column name.
    func keyValueFetchAndRead() throws -> PreparedRun {
        try prepare { queue in
            try queue.read { db in
                let rows =
                    try ItemRecord
                    .filter(ItemRecord.Columns.amount >= BenchmarkData.fetchMinimumAmount)
                    .order(ItemRecord.Columns.number)
                    .asRequest(of: Row.self)
                    .fetchAll(db)
                var checksum = 0
                for row in rows {
                    let created: Double? = row["ZCREATED"]
                    checksum &+= BenchmarkData.checksum(
                        name: row["ZNAME"], number: row["ZNUMBER"], amount: row["ZAMOUNT"],
                        created: created.map(Date.init(timeIntervalSinceReferenceDate:)) ?? .distantPast,
                        flag: row["ZFLAG"], note: row["ZNOTE"]
                    )
                }
                return checksum
            }
        }
    }

    /// Every item as a record, held until `finish`.
    func fetchAndHold() throws -> PreparedRun {
        let held = HeldResult()
        let run = try prepare { queue in
            let items = try queue.read { db in try ItemRecord.fetchAll(db) }
            let checksum = BenchmarkData.checksum(of: items)
            held.value = items
            return checksum
        }
        return run.finishing { held.value = nil }
    }

    func count() throws -> PreparedRun {
        try prepare { queue in
            try queue.read { db in
                let range = BenchmarkData.countNumberRange
                return
                    try ItemRecord
                    .filter(
                        ItemRecord.Columns.number >= range.lower && ItemRecord.Columns.number < range.upper
                            && ItemRecord.Columns.flag == true
                    )
                    .fetchCount(db)
            }
        }
    }

    /// Batching with records: the sorted keys first, then each touched batch of 50 records by key.
    func batchedFetch() throws -> PreparedRun {
        try prepare { queue in
            try queue.read { db in
                let ids = try ItemRecord.order(ItemRecord.Columns.number).select(
                    Column(ItemRecord.CodingKeys.id), as: Int64.self
                ).fetchAll(db)
                let batchSize = BenchmarkData.batchSize
                var loaded: [Int64: ItemRecord] = [:]
                var checksum = 0
                for position in BenchmarkData.touchedPositions(count: ids.count) {
                    if loaded[ids[position]] == nil {
                        let start = position / batchSize * batchSize
                        for item in try ItemRecord.fetchAll(db, keys: ids[start..<min(start + batchSize, ids.count)]) {
                            loaded[item.id] = item
                        }
                    }
                    guard let item = loaded[ids[position]] else {
                        throw BenchmarkError("row \(ids[position]) vanished")
                    }
                    checksum &+= Int(item.number) &+ (item.name?.utf8.count ?? 0)
                }
                return checksum
            }
        }
    }

    func update() throws -> PreparedRun {
        try prepare { queue in
            var items = try queue.read { db in try ItemRecord.fetchAll(db) }
            try queue.write { db in
                for index in items.indices {
                    items[index].amount += 1
                    items[index].version += 1
                    try items[index].update(
                        db, columns: [ItemRecord.CodingKeys.amount.rawValue, ItemRecord.CodingKeys.version.rawValue])
                }
            }
            return items.reduce(0) { $0 &+ Int(($1.amount * 100).rounded()) }
        }
    }

    func insertFamilies(_ families: [FamilyValues]) throws {
        let queue = try open(storeURL)
        defer { try? queue.close() }
        try queue.write { db in
            let parentEntity = try Self.entityNumber("Parent", db)
            let childEntity = try Self.entityNumber("Child", db)
            var childKey: Int64 = 0
            for (index, family) in families.enumerated() {
                let parentKey = Int64(index + 1)
                try ParentRecord(id: parentKey, entity: parentEntity, version: 1, name: family.name).insert(db)
                for value in family.childValues {
                    childKey += 1
                    try ChildRecord(id: childKey, entity: childEntity, version: 1, value: value, parent: parentKey)
                        .insert(db)
                }
            }
            try db.execute(
                sql: "UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ?", arguments: [families.count, parentEntity])
            try db.execute(
                sql: "UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ?", arguments: [childKey, childEntity])
        }
    }

    func sumChildren() throws -> PreparedRun {
        try prepare { queue in
            let parents = try queue.read { db in
                try ParentRecord.including(all: ParentRecord.children).asRequest(of: ParentWithChildren.self).fetchAll(
                    db)
            }
            var total = parents.count
            for parent in parents {
                for child in parent.children { total &+= Int(child.value) }
            }
            return total
        }
    }

    func batchDelete(scratch: URL) throws -> PreparedRun {
        try StoreFiles.copy(storeURL, to: scratch)
        let run = try prepare(scratch) { queue in
            try queue.write { db in
                try ItemRecord.filter(ItemRecord.Columns.number < BenchmarkData.deleteNumberLimit).deleteAll(db)
            }
        }
        return run.finishing { StoreFiles.remove(scratch) }
    }

}

extension ItemRecord: ItemAttributes {}
