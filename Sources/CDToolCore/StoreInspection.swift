import GRDB
import OpenCoreDataCore
import OpenCoreDataSQL
import OpenCoreDataSQLite

/// What `cdtool inspect` finds in a store: its entities and row counts, its metadata,
/// and how a model relates to it.
///
/// Reads the file read-only, never as a store a coordinator opens, so a store made by
/// another model version, or one the model does not fit, can still be looked at.
public struct StoreInspection {
    /// One entity of the store, from `Z_PRIMARYKEY`.
    public struct Entity: Equatable, Sendable {
        /// The entity's name.
        public let name: String
        /// Its `Z_ENT` number.
        public let number: Int
        /// Its parent entity's name, if it has one.
        public let parent: String?
        /// The table holding its rows (its root entity's).
        public let table: String
        /// How many rows of exactly this entity the table holds.
        public let rows: Int
    }

    /// How a model's version hashes compare with the store's.
    public struct Compatibility: Equatable, Sendable {
        /// What `isConfiguration(withName:compatibleWithStoreMetadata:)` answers.
        public let isCompatible: Bool
        /// Entities in both, with different version hashes.
        public let differing: [String]
        /// Entities of the model the store has no hash for.
        public let missingFromStore: [String]
        /// Entities the store has a hash for that the model lacks.
        public let missingFromModel: [String]

        /// Every entity named above: those whose hashes differ, then those either side lacks.
        public var mismatchedEntities: [String] { differing + missingFromStore + missingFromModel }
    }

    /// The store file.
    public let url: URL
    /// The store's metadata (the `Z_METADATA` plist, with its UUID); only the UUID when
    /// the plist is damaged (see ``metadataDamage``).
    public let metadata: [String: Any]
    /// Why the store's metadata property list could not be read, when it could not.
    public let metadataDamage: String?
    /// Its entities in `Z_ENT` order.
    public let entities: [Entity]
    /// Many-to-many join tables and their row counts, by name.
    public let joinTables: [(name: String, rows: Int)]
    /// The size of the compiled model in `Z_MODELCACHE`, when one is there.
    public let modelCacheBytes: Int?
    /// With a model: whether it fits the store.
    public let compatibility: Compatibility?
    /// Without a model: the one recovered from the store (see ``recoveredModel(ofStoreAt:)``).
    public let inferredModel: NSManagedObjectModel?
    /// Where ``inferredModel`` came from.
    public let inferredModelSource: RecoveredModelSource?

    /// Where a model recovered from a store came from.
    public enum RecoveredModelSource: Equatable, Sendable {
        /// The compiled model cached in `Z_MODELCACHE` (by Core Data, or OpenCoreData): real names and types.
        case modelCache
        /// The tables, because the store caches no model.
        case tables
        /// The tables, because the cached model could not be read (the reason).
        case tablesAfterUnreadableCache(String)
    }

    /// The store's model without a model file: the one Core Data cached in it, else one
    /// inferred from its tables (a damaged cache falls back to the tables, saying why).
    public static func recoveredModel(
        ofStoreAt url: URL
    ) throws -> (model: NSManagedObjectModel, source: RecoveredModelSource) {
        do {
            if let cached = try NSManagedObjectModel.cached(inStoreAt: url) { return (cached, .modelCache) }
            return (try NSManagedObjectModel.inferred(fromStoreAt: url), .tables)
        } catch let error as ModelLoadingError {
            return (try NSManagedObjectModel.inferred(fromStoreAt: url), .tablesAfterUnreadableCache(error.description))
        }
    }

    /// The store's UUID (the host of its object IDs' URIs).
    public var storeUUID: String? { metadata[NSStoreUUIDKey] as? String }

    /// Inspects the store at `url`, checking `model` against it or, without one,
    /// inferring a model from its tables.
    ///
    /// Throws a ``CDToolError`` for a missing file, a file that is not SQLite or not a
    /// Core Data store, and a store whose tables cannot be read. Damaged metadata is
    /// reported in ``metadataDamage``, and then no model is checked against it.
    public static func inspect(storeAt url: URL, model: NSManagedObjectModel?) throws -> StoreInspection {
        do {
            // Read-only, and without writing anything beside the store where nobody may.
            let database = try SQLiteStoreFile.openReadOnly(url)
            defer { try? database.close() }
            let (metadata, tables) = try database.read { db in
                (try SQLiteStoreFile.metadata(in: db, url: url), try Tables(SQLiteDatabaseAdapter(db)))
            }
            let recovered = model == nil ? try recoveredModel(ofStoreAt: url) : nil
            return StoreInspection(
                url: url, metadata: metadata.metadata, metadataDamage: metadata.damage, tables: tables, model: model,
                recovered: recovered)
        } catch {
            throw CDToolError(wrapping: error)
        }
    }

    /// What a store of any engine holds, read through `db` (the store's tables, in its
    /// schema), with its `metadata` already read; `recovered` is the store's own model,
    /// when it was recovered (no `model` was given). The database's errors are thrown as
    /// they are, so that its caller can tell a lost connection from a damaged store.
    package static func inspect(
        _ db: some SQLDatabase, url: URL, metadata: [String: Any], model: NSManagedObjectModel?,
        recovered: (model: NSManagedObjectModel, source: RecoveredModelSource)?
    ) throws -> StoreInspection {
        StoreInspection(
            url: url, metadata: metadata, metadataDamage: nil, tables: try Tables(db), model: model,
            recovered: recovered)
    }

    private init(
        url: URL, metadata: [String: Any], metadataDamage: String?, tables: Tables, model: NSManagedObjectModel?,
        recovered: (model: NSManagedObjectModel, source: RecoveredModelSource)?
    ) {
        self.url = url
        self.metadata = metadata
        self.metadataDamage = metadataDamage
        entities = tables.entities
        joinTables = tables.joinTables
        modelCacheBytes = tables.modelCacheBytes
        compatibility = metadataDamage == nil ? model.map { Self.compatibility(of: $0, with: metadata) } : nil
        inferredModel = recovered?.model
        inferredModelSource = recovered?.source
    }

    /// The entities, join tables and cached model's size, as any engine's database holds them.
    private struct Tables {
        let entities: [Entity]
        let joinTables: [(name: String, rows: Int)]
        let modelCacheBytes: Int?

        init(_ db: some SQLDatabase) throws {
            entities = try Self.entities(db)
            joinTables = try Self.joinTables(db)
            modelCacheBytes = try Self.modelCacheSize(db)
        }

        private static func entities(_ db: some SQLDatabase) throws -> [Entity] {
            guard let stored = try StoredEntity.all(in: db) else {
                throw CDToolError("the store has no Z_PRIMARYKEY table")
            }
            var names: [Int: String] = [:]
            var parents: [Int: Int] = [:]
            for entity in stored {
                names[entity.number] = entity.name
                parents[entity.number] = entity.parent
            }
            func root(_ number: Int) -> Int {
                var current = number
                var seen: Set<Int> = []
                while let parent = parents[current], names[parent] != nil, seen.insert(current).inserted {
                    current = parent
                }
                return current
            }
            var counts: [Int: Int] = [:]
            for table in Set(names.keys.map { "Z" + names[root($0)]!.uppercased() }).sorted()
            where try db.tableExists(table) {
                let name = db.dialect.quotedStoredName(table)
                try db.forEachRow("SELECT Z_ENT, COUNT(*) AS n FROM \(raw: name) GROUP BY Z_ENT") { row in
                    if let number = row["Z_ENT"].exactInteger.flatMap({ Int(exactly: $0) }) {
                        counts[number] = row["n"].exactInteger.flatMap { Int(exactly: $0) }
                    }
                }
            }
            return names.keys.sorted().map { number in
                Entity(
                    name: names[number]!,
                    number: number,
                    parent: parents[number].flatMap { names[$0] },
                    table: "Z" + names[root(number)]!.uppercased(),
                    rows: counts[number] ?? 0
                )
            }
        }

        /// Tables named `Z_` and a digit: Core Data's join tables of many-to-many relationships.
        private static func joinTables(_ db: some SQLDatabase) throws -> [(name: String, rows: Int)] {
            let tables = try db.tableNames().filter { name in
                name.uppercased().hasPrefix("Z_") && name.dropFirst(2).first.map { ("0"..."9").contains($0) } == true
            }
            return try tables.map { table in
                let count = try db.integer("SELECT COUNT(*) FROM \(raw: db.dialect.quotedStoredName(table))")
                return (table, count.flatMap { Int(exactly: $0) } ?? 0)
            }
        }

        private static func modelCacheSize(_ db: some SQLDatabase) throws -> Int? {
            guard try db.tableExists("Z_MODELCACHE") else { return nil }
            let bytes = try db.integer("SELECT SUM(LENGTH(Z_CONTENT)) FROM Z_MODELCACHE") ?? 0
            return bytes > 0 ? Int(exactly: bytes) : nil
        }
    }

    /// Compares `model`'s entity version hashes with those in `metadata`.
    public static func compatibility(of model: NSManagedObjectModel, with metadata: [String: Any]) -> Compatibility {
        let stored = (metadata[NSStoreModelVersionHashesKey] as? [String: Any] ?? [:]).compactMapValues { $0 as? Data }
        let current = model.entityVersionHashesByName
        return Compatibility(
            isCompatible: model.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata),
            differing: current.keys.filter { stored[$0] != nil && stored[$0] != current[$0] }.sorted(),
            missingFromStore: current.keys.filter { stored[$0] == nil }.sorted(),
            missingFromModel: stored.keys.filter { current[$0] == nil }.sorted()
        )
    }

    // MARK: Text

    /// The report `cdtool inspect` prints, ending with a newline.
    public var text: String {
        var lines = ["store \(url.path)"]
        lines.append("uuid \(storeUUID ?? "(none)")")
        lines.append("")
        lines.append("entities")
        let width = entities.map(\.name.count).max() ?? 0
        for entity in entities {
            let parent = entity.parent.map { ", parent \($0)" } ?? ""
            lines.append(
                "  \(entity.name.padding(toLength: width, withPad: " ", startingAt: 0))  \(entity.rows) rows (Z_ENT \(entity.number), table \(entity.table)\(parent))"
            )
        }
        if !joinTables.isEmpty {
            lines.append("join tables")
            for table in joinTables { lines.append("  \(table.name)  \(table.rows) rows") }
        }
        lines.append("")
        lines.append("metadata")
        if let metadataDamage {
            // What is left would look like a store whose metadata holds only its UUID.
            lines.append("  metadata damaged: \(metadataDamage)")
        }
        for key in metadata.keys.sorted() where metadataDamage == nil {
            if let hashes = metadata[key] as? [String: Any] {
                lines.append("  \(key)")
                for name in hashes.keys.sorted() { lines.append("    \(name)  \(Self.metadataText(hashes[name]!))") }
            } else {
                lines.append("  \(key)  \(Self.metadataText(metadata[key]!))")
            }
        }
        if let compatibility {
            lines.append("")
            lines += Self.lines(for: compatibility)
        }
        if let inferredModel {
            lines.append("")
            switch inferredModelSource {
            case .modelCache?:
                lines.append("model: the compiled model cached in Z_MODELCACHE (\(modelCacheBytes ?? 0) bytes):")
            case let .tablesAfterUnreadableCache(reason)?:
                lines.append(
                    "model: the cached model could not be read (\(reason)); inferred from the tables instead (names lower-cased):"
                )
            case .tables?, nil:
                lines.append("model inferred from the tables (names lower-cased; pass --model for the real one):")
            }
            lines.append(ModelDescription.text(of: inferredModel).trimmingCharacters(in: .newlines))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    static func lines(for compatibility: Compatibility) -> [String] {
        guard !compatibility.isCompatible else { return ["model: compatible with the store"] }
        var lines = ["model: NOT compatible with the store"]
        if !compatibility.differing.isEmpty {
            lines.append("  version hashes differ: \(compatibility.differing.joined(separator: ", "))")
        }
        if !compatibility.missingFromStore.isEmpty {
            lines.append("  not in the store: \(compatibility.missingFromStore.joined(separator: ", "))")
        }
        if !compatibility.missingFromModel.isEmpty {
            lines.append("  not in the model: \(compatibility.missingFromModel.joined(separator: ", "))")
        }
        return lines
    }

    /// A metadata value as text: data in base64, arrays joined by commas.
    static func metadataText(_ value: Any) -> String {
        switch value {
        case let data as Data: data.base64EncodedString()
        case let array as [Any]: array.map { metadataText($0) }.joined(separator: ", ")
        default: "\(value)"
        }
    }
}
