// The workloads on raw postgres-nio: the practical limit for the same SQL work from Swift.
// Each runs the statements OpenCoreData's PostgreSQL store runs (same tables, columns and
// indexes; keys from the same sequences), as prepared statements on one connection, in one
// transaction where it writes, and reads rows into plain Swift structs.
import Foundation
import PostgresNIO

/// An item row as a hand-written app holds it (columns as the Core Data schema stores them).
struct RawItem: ItemAttributes {
    var id: Int64
    var version: Int64
    var name: String?
    var number: Int64
    var amount: Double
    var createdSeconds: Double?
    var flagValue: Int64
    var note: String?

    var created: Date? { createdSeconds.map(Date.init(timeIntervalSinceReferenceDate:)) }
    var flag: Bool { flagValue != 0 }

    /// The item columns, in the order `init(row:)` reads them.
    static let columns = "Z_PK, Z_OPT, ZNAME, ZNUMBER, ZAMOUNT, ZCREATED, ZFLAG, ZNOTE"

    init(row: PostgresRow) throws {
        (id, version, name, number, amount, createdSeconds, flagValue, note) = try row.decode(
            (Int64, Int64, String?, Int64, Double, Double?, Int64, String?).self)
    }

    /// Generic code's reading: each column looked up by its name.
    init(columnsOf row: PostgresRow) throws {
        let cells = row.makeRandomAccess()
        id = try cells["z_pk"].decode(Int64.self)
        version = try cells["z_opt"].decode(Int64.self)
        name = try cells["zname"].decode(String?.self)
        number = try cells["znumber"].decode(Int64.self)
        amount = try cells["zamount"].decode(Double.self)
        createdSeconds = try cells["zcreated"].decode(Double?.self)
        flagValue = try cells["zflag"].decode(Int64.self)
        note = try cells["znote"].decode(String?.self)
    }
}

/// The raw contender's statements, prepared once per connection by postgres-nio.
enum RawStatements {
    struct InsertItem: PostgresPreparedStatement {
        static let sql =
            "INSERT INTO ZITEM (Z_PK, Z_ENT, Z_OPT, ZNAME, ZNUMBER, ZAMOUNT, ZCREATED, ZFLAG, ZNOTE) VALUES (nextval('ZITEM_Z_PK_SEQ'), $1, 1, $2, $3, $4, $5, $6, $7)"
        typealias Row = ()
        let entity: Int64
        let item: ItemValues

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 7)
            bindings.append(entity)
            bindings.append(item.name)
            bindings.append(item.number)
            bindings.append(item.amount)
            bindings.append(item.created.timeIntervalSinceReferenceDate)
            bindings.append(Int64(item.flag ? 1 : 0))
            bindings.append(item.note)
            return bindings
        }
        func decodeRow(_ row: PostgresRow) throws {}
    }

    struct FetchItems: PostgresPreparedStatement {
        static let sql = "SELECT \(RawItem.columns) FROM ZITEM WHERE ZAMOUNT >= $1 ORDER BY ZNUMBER"
        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 1)
            bindings.append(BenchmarkData.fetchMinimumAmount)
            return bindings
        }
        func decodeRow(_ row: PostgresRow) throws -> RawItem { try RawItem(row: row) }
    }

    /// `FetchItems`, its columns read by name.
    struct FetchItemsByName: PostgresPreparedStatement {
        static let sql = FetchItems.sql
        func makeBindings() throws -> PostgresBindings { try FetchItems().makeBindings() }
        func decodeRow(_ row: PostgresRow) throws -> RawItem { try RawItem(columnsOf: row) }
    }

    struct AllItems: PostgresPreparedStatement {
        static let sql = "SELECT \(RawItem.columns) FROM ZITEM"
        func makeBindings() throws -> PostgresBindings { PostgresBindings() }
        func decodeRow(_ row: PostgresRow) throws -> RawItem { try RawItem(row: row) }
    }

    struct CountItems: PostgresPreparedStatement {
        static let sql = "SELECT COUNT(*) FROM ZITEM WHERE ZNUMBER >= $1 AND ZNUMBER < $2 AND ZFLAG = $3"
        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 3)
            bindings.append(BenchmarkData.countNumberRange.lower)
            bindings.append(BenchmarkData.countNumberRange.upper)
            bindings.append(Int64(1))
            return bindings
        }
        func decodeRow(_ row: PostgresRow) throws -> Int64 { try row.decode(Int64.self) }
    }

    struct SortedKeys: PostgresPreparedStatement {
        /// `ZNAME` breaks ties, so every contender touches the same items.
        static let sql = "SELECT Z_PK FROM ZITEM ORDER BY ZNUMBER, ZNAME"
        func makeBindings() throws -> PostgresBindings { PostgresBindings() }
        func decodeRow(_ row: PostgresRow) throws -> Int64 { try row.decode(Int64.self) }
    }

    struct ItemsWithKeys: PostgresPreparedStatement {
        static let sql = "SELECT \(RawItem.columns) FROM ZITEM WHERE Z_PK = ANY($1)"
        let keys: [Int64]
        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 1)
            bindings.append(keys)
            return bindings
        }
        func decodeRow(_ row: PostgresRow) throws -> RawItem { try RawItem(row: row) }
    }

    struct UpdateAmount: PostgresPreparedStatement {
        /// Returns a row for the row it changed: the count of rows is the optimistic lock's check.
        static let sql =
            "UPDATE ZITEM SET Z_OPT = Z_OPT + 1, ZAMOUNT = $1 WHERE Z_PK = $2 AND Z_OPT = $3 RETURNING 1"
        typealias Row = ()
        let item: RawItem
        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 3)
            bindings.append(item.amount)
            bindings.append(item.id)
            bindings.append(item.version)
            return bindings
        }
        func decodeRow(_ row: PostgresRow) throws {}
    }

    struct InsertParent: PostgresPreparedStatement {
        static let sql = "INSERT INTO ZPARENT (Z_PK, Z_ENT, Z_OPT, ZNAME) VALUES ($1, $2, 1, $3)"
        typealias Row = ()
        let key: Int64, entity: Int64, name: String
        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 3)
            bindings.append(key)
            bindings.append(entity)
            bindings.append(name)
            return bindings
        }
        func decodeRow(_ row: PostgresRow) throws {}
    }

    struct InsertChild: PostgresPreparedStatement {
        static let sql = "INSERT INTO ZCHILD (Z_PK, Z_ENT, Z_OPT, ZVALUE, ZPARENT) VALUES ($1, $2, 1, $3, $4)"
        typealias Row = ()
        let key: Int64, entity: Int64, value: Int64, parent: Int64
        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 4)
            bindings.append(key)
            bindings.append(entity)
            bindings.append(value)
            bindings.append(parent)
            return bindings
        }
        func decodeRow(_ row: PostgresRow) throws {}
    }

    /// Parents joined with their children, one row per child.
    struct ParentsAndChildren: PostgresPreparedStatement {
        static let sql =
            "SELECT t0.Z_PK, t0.ZNAME, t1.ZVALUE FROM ZPARENT t0 JOIN ZCHILD t1 ON t1.ZPARENT = t0.Z_PK ORDER BY t0.Z_PK"
        func makeBindings() throws -> PostgresBindings { PostgresBindings() }
        func decodeRow(_ row: PostgresRow) throws -> (Int64, String?, Int64) {
            try row.decode((Int64, String?, Int64).self)
        }
    }

    enum DeleteItems {
        static let sql = "DELETE FROM ZITEM WHERE ZNUMBER < $1"
    }

    struct EntityNumber: PostgresPreparedStatement {
        static let sql = "SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = $1"
        let name: String
        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 1)
            bindings.append(name)
            return bindings
        }
        func decodeRow(_ row: PostgresRow) throws -> Int64 { try row.decode(Int64.self) }
    }
}

final class PostgresNIOContender: Contender {
    static let label = "postgres-nio"
    private let url: URL
    private let logger = BenchmarkDatabases.logger

    init(url: URL) {
        self.url = url
    }

    /// Connects untimed; the timed body runs `work` on the connection.
    private func prepare(
        _ url: URL? = nil, _ work: @escaping @Sendable (PostgresConnection) async throws -> Int
    ) async throws -> PreparedRun {
        let connection = try await connect(url ?? self.url)
        return PreparedRun(body: { try await work(connection) }, finish: { try? await connection.close() })
    }

    private func connect(_ url: URL) async throws -> PostgresConnection {
        try await PostgresConnection.connect(
            configuration: try BenchmarkDatabases.configuration(for: url), id: 2, logger: logger)
    }

    private func entityNumber(_ name: String, _ connection: PostgresConnection) async throws -> Int64 {
        for try await number in try await connection.execute(RawStatements.EntityNumber(name: name), logger: logger) {
            return number
        }
        throw BenchmarkError("no entity \(name) in Z_PRIMARYKEY")
    }

    /// Runs a statement and reads its rows to the end, returning how many there were.
    @discardableResult
    private static func run<Statement: PostgresPreparedStatement>(
        _ statement: Statement, on connection: PostgresConnection
    ) async throws -> Int where Statement.Row == () {
        var rows = 0
        for try await _ in try await connection.execute(statement, logger: BenchmarkDatabases.logger) { rows += 1 }
        return rows
    }

    func insert(_ items: [ItemValues]) async throws -> PreparedRun {
        try await prepare { connection in
            let entity = try await self.entityNumber("Item", connection)
            try await connection.query("BEGIN", logger: BenchmarkDatabases.logger)
            for item in items {
                try await Self.run(RawStatements.InsertItem(entity: entity, item: item), on: connection)
            }
            try await connection.query("COMMIT", logger: BenchmarkDatabases.logger)
            return items.count
        }
    }

    func fetchAndRead() async throws -> PreparedRun {
        try await prepare { connection in
            var items: [RawItem] = []
            for try await item in try await connection.execute(
                RawStatements.FetchItems(), logger: BenchmarkDatabases.logger)
            {
                items.append(item)
            }
            return BenchmarkData.checksum(of: items)
        }
    }

    func keyValueFetchAndRead() async throws -> PreparedRun {
        try await prepare { connection in
            var items: [RawItem] = []
            for try await item in try await connection.execute(
                RawStatements.FetchItemsByName(), logger: BenchmarkDatabases.logger)
            {
                items.append(item)
            }
            return BenchmarkData.checksum(of: items)
        }
    }

    func count() async throws -> PreparedRun {
        try await prepare { connection in
            for try await count in try await connection.execute(
                RawStatements.CountItems(), logger: BenchmarkDatabases.logger)
            {
                return Int(count)
            }
            throw BenchmarkError("COUNT returned no row")
        }
    }

    /// Core Data's batching by hand: the sorted keys first, then each touched batch of 50 rows by key.
    func batchedFetch() async throws -> PreparedRun {
        try await prepare { connection in
            var keys: [Int64] = []
            for try await key in try await connection.execute(
                RawStatements.SortedKeys(), logger: BenchmarkDatabases.logger)
            {
                keys.append(key)
            }
            let batchSize = BenchmarkData.batchSize
            var loaded: [Int64: RawItem] = [:]
            var checksum = 0
            for position in BenchmarkData.touchedPositions(count: keys.count) {
                if loaded[keys[position]] == nil {
                    let start = position / batchSize * batchSize
                    let batch = Array(keys[start..<min(start + batchSize, keys.count)])
                    for try await item in try await connection.execute(
                        RawStatements.ItemsWithKeys(keys: batch), logger: BenchmarkDatabases.logger)
                    {
                        loaded[item.id] = item
                    }
                }
                guard let item = loaded[keys[position]] else { throw BenchmarkError("row \(keys[position]) vanished") }
                checksum &+= Int(item.number) &+ (item.name?.utf8.count ?? 0)
            }
            return checksum
        }
    }

    func update() async throws -> PreparedRun {
        try await prepare { connection in
            var items: [RawItem] = []
            for try await item in try await connection.execute(
                RawStatements.AllItems(), logger: BenchmarkDatabases.logger)
            {
                items.append(item)
            }
            try await connection.query("BEGIN", logger: BenchmarkDatabases.logger)
            for index in items.indices {
                items[index].amount += 1
                let updated = try await Self.run(RawStatements.UpdateAmount(item: items[index]), on: connection)
                guard updated == 1 else { throw BenchmarkError("row \(items[index].id) changed underneath") }
                items[index].version += 1
            }
            try await connection.query("COMMIT", logger: BenchmarkDatabases.logger)
            return items.reduce(0) { $0 &+ Int(($1.amount * 100).rounded()) }
        }
    }

    func insertFamilies(_ families: [FamilyValues]) async throws {
        let connection = try await connect(url)
        let parentEntity = try await entityNumber("Parent", connection)
        let childEntity = try await entityNumber("Child", connection)
        try await connection.query("BEGIN", logger: logger)
        var childKey: Int64 = 0
        for (index, family) in families.enumerated() {
            let parentKey = Int64(index + 1)
            try await Self.run(
                RawStatements.InsertParent(key: parentKey, entity: parentEntity, name: family.name), on: connection)
            for value in family.childValues {
                childKey += 1
                try await Self.run(
                    RawStatements.InsertChild(key: childKey, entity: childEntity, value: value, parent: parentKey),
                    on: connection)
            }
        }
        try await connection.query(
            "SELECT setval('ZPARENT_Z_PK_SEQ', \(Int64(families.count))), setval('ZCHILD_Z_PK_SEQ', \(childKey))",
            logger: logger)
        try await connection.query("COMMIT", logger: logger)
        try await connection.close()
    }

    /// One SQL join over parents and children, summed per parent while reading.
    func sumChildren() async throws -> PreparedRun {
        try await prepare { connection in
            var parents: [(id: Int64, name: String?, childTotal: Int64)] = []
            for try await (id, name, value) in try await connection.execute(
                RawStatements.ParentsAndChildren(), logger: BenchmarkDatabases.logger)
            {
                if parents.last?.id != id { parents.append((id, name, 0)) }
                parents[parents.count - 1].childTotal += value
            }
            return parents.reduce(parents.count) { $0 &+ Int($1.childTotal) }
        }
    }

    func batchDelete(scratch: URL) async throws -> PreparedRun {
        try await prepare(scratch) { connection in
            // The row count of a command comes with the older query API (the prepared
            // statement's command tag fails a precondition in postgres-nio 1.33 when read).
            let result = try await connection.query(
                RawStatements.DeleteItems.sql, [PostgresData(int64: BenchmarkData.deleteNumberLimit)]
            ).get()
            return result.metadata.rows ?? -1
        }
    }
}
