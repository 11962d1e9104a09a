// The workloads on Fluent (Vapor's ORM) over fluent-postgres-driver, written as a Fluent
// app writes them: models, query builders, eager loading, batch creation, transactions.
import FluentKit
import FluentPostgresDriver
import FluentSQL
import Foundation
import Logging
import NIOCore
import NIOPosix
import PostgresNIO

final class FluentContender: Contender {
    static let label = "Fluent"
    private let url: URL
    /// Rows per `INSERT` of a batch creation: PostgreSQL takes at most 65,535 parameters a
    /// statement, so an app creating many models creates them in chunks.
    private nonisolated static let chunkSize = 1_000

    init(url: URL) {
        self.url = url
    }

    /// Fluent's databases on `url`, one pooled connection, and the database handle to query.
    private func open(_ url: URL) async throws -> (Databases, any Database) {
        let fluent = Databases(threadPool: NIOThreadPool.singleton, on: MultiThreadedEventLoopGroup.singleton)
        fluent.use(try .postgres(url: url.absoluteString + "?tlsmode=disable"), as: .psql)
        guard
            let database = fluent.database(
                logger: BenchmarkDatabases.logger, on: MultiThreadedEventLoopGroup.singleton.any())
        else { throw BenchmarkError("Fluent gave no database") }
        // Opens the pool's connection untimed.
        _ = try await FluentItem.query(on: database).limit(1).all()
        return (fluent, database)
    }

    /// Connects untimed; the timed body runs `work` on the database.
    private func prepare(
        _ url: URL? = nil, check: (@Sendable (any Database) async throws -> Void)? = nil,
        _ work: @escaping @Sendable (any Database) async throws -> Int
    ) async throws -> PreparedRun {
        let (fluent, database) = try await open(url ?? self.url)
        var run = PreparedRun(body: { try await work(database) }, finish: { await fluent.shutdownAsync() })
        if let check { run.check = { try await check(database) } }
        return run
    }

    private static func entityNumber(_ name: String, _ database: any Database) async throws -> Int64 {
        guard let sql = database as? any SQLDatabase,
            let row = try await sql.raw("SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = \(bind: name)").first()
        else { throw BenchmarkError("no entity \(name) in Z_PRIMARYKEY") }
        return try row.decode(column: "z_ent", as: Int64.self)
    }

    /// The keys come from the tables' sequences, as a Fluent migration's auto-incrementing
    /// identifier would give them (Core Data's schema gives the columns no default).
    private static func defaultKeys(of tables: [String], _ database: any Database) async throws {
        guard let sql = database as? any SQLDatabase else { throw BenchmarkError("Fluent's database is not SQL") }
        for table in tables {
            try await sql.raw(
                "ALTER TABLE \(unsafeRaw: table) ALTER COLUMN z_pk SET DEFAULT nextval('\(unsafeRaw: table)_z_pk_seq')"
            ).run()
        }
    }

    func insert(_ items: [ItemValues]) async throws -> PreparedRun {
        let (fluent, database) = try await open(url)
        try await Self.defaultKeys(of: ["zitem"], database)
        let entity = try await Self.entityNumber("Item", database)
        await fluent.shutdownAsync()
        return try await prepare { database in
            try await database.transaction { transaction in
                for start in stride(from: 0, to: items.count, by: Self.chunkSize) {
                    let chunk = items[start..<min(start + Self.chunkSize, items.count)]
                    try await chunk.map { FluentItem($0, entity: entity) }.create(on: transaction)
                }
            }
            return items.count
        }
    }

    func fetchAndRead() async throws -> PreparedRun {
        try await prepare { database in
            let items = try await FluentItem.query(on: database)
                .filter(\.$amount >= BenchmarkData.fetchMinimumAmount)
                .sort(\.$number)
                .all()
            return BenchmarkData.checksum(of: items)
        }
    }

    /// Generic code's reading in Fluent's stack: SQLKit rows, every column decoded by name.
    func keyValueFetchAndRead() async throws -> PreparedRun {
        try await prepare { database in
            guard let sql = database as? any SQLDatabase else { throw BenchmarkError("Fluent's database is not SQL") }
            let rows = try await sql.select()
                .columns("z_pk", "zname", "znumber", "zamount", "zcreated", "zflag", "znote")
                .from("zitem")
                .where("zamount", .greaterThanOrEqual, BenchmarkData.fetchMinimumAmount)
                .orderBy("znumber")
                .all()
            var checksum = 0
            for row in rows {
                checksum &+= BenchmarkData.checksum(
                    name: try row.decode(column: "zname", as: String?.self),
                    number: try row.decode(column: "znumber", as: Int64.self),
                    amount: try row.decode(column: "zamount", as: Double.self),
                    created: Date(
                        timeIntervalSinceReferenceDate: try row.decode(column: "zcreated", as: Double?.self) ?? 0),
                    flag: try row.decode(column: "zflag", as: Int64.self) != 0,
                    note: try row.decode(column: "znote", as: String?.self)
                )
            }
            return checksum
        }
    }

    func count() async throws -> PreparedRun {
        try await prepare { database in
            try await FluentItem.query(on: database)
                .filter(\.$number >= BenchmarkData.countNumberRange.lower)
                .filter(\.$number < BenchmarkData.countNumberRange.upper)
                .filter(\.$flagValue == 1)
                .count()
        }
    }

    /// Batching by hand: the sorted keys first, then each touched batch of 50 models by key.
    func batchedFetch() async throws -> PreparedRun {
        try await prepare { database in
            // `name` breaks ties, so every contender touches the same items.
            let keys = try await FluentItem.query(on: database).sort(\.$number).sort(\.$name).field(\.$id).all()
                .compactMap(\.id)
            let batchSize = BenchmarkData.batchSize
            var loaded: [Int64: FluentItem] = [:]
            var checksum = 0
            for position in BenchmarkData.touchedPositions(count: keys.count) {
                if loaded[keys[position]] == nil {
                    let start = position / batchSize * batchSize
                    let batch = Array(keys[start..<min(start + batchSize, keys.count)])
                    for item in try await FluentItem.query(on: database).filter(\.$id ~~ batch).all() {
                        loaded[item.id!] = item
                    }
                }
                guard let item = loaded[keys[position]] else { throw BenchmarkError("row \(keys[position]) vanished") }
                checksum &+= Int(item.number) &+ (item.name?.utf8.count ?? 0)
            }
            return checksum
        }
    }

    /// Every model read, changed and updated in one transaction (Fluent writes the changed
    /// field only, with no version check: it has no optimistic locking).
    func update() async throws -> PreparedRun {
        try await prepare { database in
            try await database.transaction { transaction in
                let items = try await FluentItem.query(on: transaction).all()
                for item in items {
                    item.amount += 1
                    try await item.update(on: transaction)
                }
                return items.reduce(0) { $0 &+ Int(($1.amount * 100).rounded()) }
            }
        }
    }

    func insertFamilies(_ families: [FamilyValues]) async throws {
        let (fluent, database) = try await open(url)
        try await Self.defaultKeys(of: ["zparent", "zchild"], database)
        let parentEntity = try await Self.entityNumber("Parent", database)
        let childEntity = try await Self.entityNumber("Child", database)
        try await database.transaction { transaction in
            for family in families {
                let parent = FluentParent()
                parent.entity = parentEntity
                parent.version = 1
                parent.name = family.name
                try await parent.create(on: transaction)
                let children = family.childValues.map { value in
                    let child = FluentChild()
                    child.entity = childEntity
                    child.version = 1
                    child.value = value
                    child.$parent.id = parent.id
                    return child
                }
                try await parent.$children.create(children, on: transaction)
            }
        }
        await fluent.shutdownAsync()
    }

    /// Parents with their children eager-loaded (Fluent's second query, by parent keys).
    func sumChildren() async throws -> PreparedRun {
        try await prepare { database in
            let parents = try await FluentParent.query(on: database).with(\.$children).all()
            var total = parents.count
            for parent in parents {
                for child in parent.children { total &+= Int(child.value) }
            }
            return total
        }
    }

    /// One `DELETE … WHERE` from the query builder; Fluent reports no row count, so the run
    /// returns the count of the rows it had to delete, read before, and checks after that none is left.
    func batchDelete(scratch: URL) async throws -> PreparedRun {
        let (fluent, database) = try await open(scratch)
        let matching = try await FluentItem.query(on: database).filter(\.$number < BenchmarkData.deleteNumberLimit)
            .count()
        await fluent.shutdownAsync()
        return try await prepare(
            scratch,
            check: { database in
                let left = try await FluentItem.query(on: database)
                    .filter(\.$number < BenchmarkData.deleteNumberLimit).count()
                guard left == 0 else { throw BenchmarkError("Fluent's delete left \(left) items") }
            }
        ) { database in
            try await FluentItem.query(on: database).filter(\.$number < BenchmarkData.deleteNumberLimit).delete()
            return matching
        }
    }
}
