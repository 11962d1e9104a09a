import OpenCoreDataCore
import OpenCoreDataSQL
internal import GRDB

extension NSManagedObjectModel {
    /// A model recovered from an SQLite store's tables, for reading a store whose model is
    /// not at hand (inspection tools, data recovery, exports).
    ///
    /// `Z_PRIMARYKEY` gives the entities, their numbers and parents. Each `Z<ENTITY>`
    /// table's columns give attributes, typed by their declared SQLite types (`INTEGER`
    /// becomes Integer 64, `FLOAT` Double, `TIMESTAMP` Date, `DECIMAL` Decimal, `VARCHAR`
    /// String, `BLOB` Binary Data). Relationships come from what the layout keeps of them:
    /// to-one foreign keys (recognized by their companion columns, an index together with
    /// a column name matching an entity, or keys that all exist in one entity's table),
    /// many-to-many join tables (`Z_<n><NAME>`, both sides and their inverses, ordered
    /// when `Z_FOK_` columns exist) and the hidden columns of to-manys without inverse.
    ///
    /// What the tables do not keep stays unknown: property names come back lower-cased
    /// (`ZCREATIONDATE` → `creationdate`), every property is optional, integer widths and
    /// Booleans read as Integer 64, UUIDs and transformables as Binary Data, a property of
    /// a subentity lands on the root unless rows show which entity fills it, and the
    /// to-many side of a one-to-many relationship (it has no column) is missing. A store
    /// Core Data wrote usually caches its real model: try ``cached(inStoreAt:)`` first.
    ///
    /// The model's version hashes differ from the store's, so open the store with it
    /// through `NSIgnorePersistentStoreVersioningOption` and, to be safe,
    /// `NSReadOnlyPersistentStoreOption`.
    ///
    /// Throws when the file is missing, is not an SQLite database, or is not a Core Data store.
    ///
    /// - Parameter url: The SQLite store file.
    /// - Returns: A model of the store's entities, for reading the store.
    /// - Throws: An `NSError` when the file is missing, not an SQLite database, or not a Core
    ///   Data store.
    public static func inferred(fromStoreAt url: URL) throws -> NSManagedObjectModel {
        try SQLiteStore.readFile(at: url) { db in
            var inference = SQLiteModelInference(db: db, url: url)
            return try inference.model()
        }
    }
}

/// Reads Core Data's layout back into entities and properties (see
/// ``/OpenCoreDataSQLite/OpenCoreDataModel/NSManagedObjectModel/inferred(fromStoreAt:)``): the inverse of `SQLSchema`,
/// as far as the tables allow.
struct SQLiteModelInference {
    let db: Database
    let url: URL

    private var entitiesByNumber: [Int: NSEntityDescription] = [:]
    private var parentNumber: [Int: Int] = [:]
    private var propertiesByNumber: [Int: [NSPropertyDescription]] = [:]
    /// Each root table's entity tree, by table name.
    private var treeByTable: [String: [Int]] = [:]

    init(db: Database, url: URL) {
        self.db = db
        self.url = url
    }

    mutating func model() throws -> NSManagedObjectModel {
        guard let stored = try StoredEntity.all(in: SQLiteDatabaseAdapter(db)) else {
            throw CoreDataError.make(
                NSFileReadCorruptFileErrorCode,
                "The file at \(url.path) is not a Core Data store (it has no Z_PRIMARYKEY table)",
                [NSFilePathErrorKey: url.path])
        }
        for row in stored {
            let entity = NSEntityDescription()
            entity.name = row.name
            entitiesByNumber[row.number] = entity
            parentNumber[row.number] = row.parent
        }
        // A damaged Z_SUPER may loop (an entity its own ancestor): such links are dropped,
        // or every later walk up the hierarchy, version hashes included, would never end.
        for number in entitiesByNumber.keys.sorted() {
            var seen: Set<Int> = [number]
            var current = parentNumber[number] ?? 0
            while current != 0, entitiesByNumber[current] != nil {
                guard seen.insert(current).inserted else { parentNumber[number] = 0; break }
                current = parentNumber[current] ?? 0
            }
        }
        let numbers = entitiesByNumber.keys.sorted()
        for number in numbers {
            let children = numbers.filter { parentNumber[$0] == number }
            if !children.isEmpty { entitiesByNumber[number]!.subentities = children.map { entitiesByNumber[$0]! } }
        }
        let tables = Set(try String.fetchAll(db, SQLCatalogStatements.tableNames))
        for root in numbers where entitiesByNumber[parentNumber[root] ?? 0] == nil {
            let table = "Z" + (entitiesByNumber[root]!.name ?? "").uppercased()
            treeByTable[table] = tree(of: root)
        }
        for (table, tree) in treeByTable.sorted(by: { $0.key < $1.key }) where tables.contains(table) {
            try readEntityTable(table, tree: tree)
        }
        for table in tables.sorted() where table.hasPrefix("Z_") && table.dropFirst(2).first?.isNumber == true {
            try readJoinTable(table)
        }
        for number in numbers {
            entitiesByNumber[number]!.properties = (propertiesByNumber[number] ?? []).sorted { $0.name < $1.name }
        }
        let model = NSManagedObjectModel()
        model.entities = numbers.map { entitiesByNumber[$0]! }
        return model
    }

    // MARK: Entity tables

    private mutating func readEntityTable(_ table: String, tree: [Int]) throws {
        let root = tree[0]
        let columns = try db.columns(in: table)
        let names = Set(columns.map(\.name))
        let indexed = Set(try db.indexes(on: table).filter { $0.columns.count == 1 }.map { $0.columns[0] })
        // Companions name the foreign key they belong to, without its leading "Z".
        var orderedKeys = Set<String>()
        var destinationNumbers: [String: Int] = [:]
        var hidden: [(column: String, owner: Int, name: String)] = []
        var companions = Set<String>()
        for column in columns {
            let name = column.name
            if name.hasPrefix("Z_FOK_"), names.contains("Z" + name.dropFirst(6)) {
                orderedKeys.insert(String(name.dropFirst(6)))
                companions.insert(name)
            } else if let (number, rest) = Self.numbered(name.dropFirst()), rest.hasPrefix("_") {
                if names.contains("Z" + rest.dropFirst()) {
                    destinationNumbers[String(rest.dropFirst())] = number
                    companions.insert(name)
                }
            } else if let (number, rest) = Self.numbered(name.dropFirst()), rest.first?.isLetter == true {
                hidden.append((name, number, rest))
                companions.insert(name)
            }
        }
        for column in columns
        where !["Z_PK", "Z_ENT", "Z_OPT"].contains(column.name) && !companions.contains(column.name) {
            let base = String(column.name.dropFirst(column.name.hasPrefix("Z") ? 1 : 0))
            let owner = try owningEntity(of: column.name, in: table, tree: tree) ?? root
            if Self.attributeType(forDeclaredType: column.type) == .integer64AttributeType,
                destinationNumbers[base] != nil || orderedKeys.contains(base) || indexed.contains(column.name),
                let destination = try destination(
                    ofKey: column.name, base: base, in: table, companion: destinationNumbers[base])
            {
                let relationship = NSRelationshipDescription()
                relationship.name = base.lowercased()
                relationship.destinationEntity = entitiesByNumber[destination]
                relationship.maxCount = 1
                propertiesByNumber[owner, default: []].append(relationship)
            } else {
                let attribute = NSAttributeDescription()
                attribute.name = base.lowercased()
                attribute.attributeType = Self.attributeType(forDeclaredType: column.type)
                attribute.isIndexed = indexed.contains(column.name)
                propertiesByNumber[owner, default: []].append(attribute)
            }
        }
        // A to-many without inverse keeps its owner's key in the destination's table.
        for (column, owner, name) in hidden where entitiesByNumber[owner] != nil {
            let relationship = NSRelationshipDescription()
            relationship.name = name.lowercased()
            relationship.destinationEntity =
                entitiesByNumber[try owningEntity(of: column, in: table, tree: tree) ?? root]
            relationship.maxCount = 0
            propertiesByNumber[owner, default: []].append(relationship)
        }
    }

    /// The destination entity of a foreign key column, or `nil` when it is likely an attribute.
    private func destination(ofKey column: String, base: String, in table: String, companion: Int?) throws -> Int? {
        if let companion, entitiesByNumber[companion] != nil { return companion }
        // A column named after an entity, whose keys (if any) are that entity's rows.
        let stem = String(base.reversed().drop { $0.isNumber }.reversed())
        if let named = entitiesByNumber.first(where: { ($0.value.name ?? "").uppercased() == stem })?.key,
            let rootTable = rootTable(of: named), try keys(of: column, in: table, allIn: rootTable)
        {
            return named
        }
        // Otherwise the one entity table holding every key the column has.
        guard try hasKeys(column, in: table) else { return nil }
        let candidates = try treeByTable.keys.sorted().filter { try keys(of: column, in: table, allIn: $0) }
        guard candidates.count == 1, let rootTable = candidates.first else { return nil }
        let referenced = try Int.fetchAll(
            db, SQLInferenceStatements.entitiesReferenced(by: column, table: table, in: rootTable))
        return commonAncestor(of: referenced) ?? treeByTable[rootTable]?.first
    }

    private func rootTable(of number: Int) -> String? {
        treeByTable.first { $0.value.contains(number) }?.key
    }

    private func hasKeys(_ column: String, in table: String) throws -> Bool {
        try Bool.fetchOne(db, SQLInferenceStatements.hasValues(column, table: table)) ?? false
    }

    /// Whether every non-null value of `column` is a `Z_PK` of `rootTable`.
    private func keys(of column: String, in table: String, allIn rootTable: String) throws -> Bool {
        let missing =
            try Bool.fetchOne(db, SQLInferenceStatements.hasValuesMissing(column, table: table, from: rootTable))
            ?? true
        return !missing
    }

    /// The entity of the tree that all rows filling `column` belong to; `nil` when no row
    /// fills it (or the tree is a single entity, where the answer is the root).
    private func owningEntity(of column: String, in table: String, tree: [Int]) throws -> Int? {
        guard tree.count > 1 else { return nil }
        let numbers = try Int.fetchAll(db, SQLInferenceStatements.entitiesFilling(column, table: table))
        return commonAncestor(of: numbers)
    }

    // MARK: Join tables

    /// A many-to-many join table: `Z_<n1><FIRST>` with a column of `n1`'s keys named
    /// after the inverse (`Z_<n1><SECOND>`) and one of the destinations' keys named after
    /// the relationship itself (`Z_<n2><FIRST>`, `…1` when the two names collide).
    private mutating func readJoinTable(_ table: String) throws {
        guard let (firstNumber, firstName) = Self.numbered(table.dropFirst(2)), !firstName.isEmpty else { return }
        let columns = try db.columns(in: table).map(\.name)
        let keyColumns = columns.filter { !$0.hasPrefix("Z_FOK_") }
        guard keyColumns.count == 2 else { return }
        let parsed = keyColumns.compactMap { name in
            Self.numbered(name.dropFirst(2)).map { (column: name, number: $0.0, name: $0.1) }
        }
        guard parsed.count == 2 else { return }
        // The destinations' column carries the relationship's own name: suffixed with "1"
        // when both columns would share one name and entity, else the one from another entity.
        let secondIndex: Int
        let sameName = parsed.indices.filter { parsed[$0].name == firstName }
        if let index = parsed.firstIndex(where: { $0.number == firstNumber && $0.name == firstName + "1" }) {
            secondIndex = index
        } else if sameName.count == 1 {
            secondIndex = sameName[0]
        } else if let index = sameName.first(where: { parsed[$0].number != firstNumber }) {
            secondIndex = index
        } else {
            return
        }
        let second = parsed[secondIndex], first = parsed[1 - secondIndex]
        guard first.number == firstNumber, entitiesByNumber[first.number] != nil, entitiesByNumber[second.number] != nil
        else { return }
        let forward = NSRelationshipDescription()
        forward.name = firstName.lowercased()
        forward.destinationEntity = entitiesByNumber[second.number]
        forward.maxCount = 0
        forward.isOrdered = columns.contains("Z_FOK_" + second.column.dropFirst(2))
        propertiesByNumber[first.number, default: []].append(forward)
        if first.number == second.number && first.name == firstName {
            forward.inverseRelationship = forward
            return
        }
        let backward = NSRelationshipDescription()
        backward.name = first.name.lowercased()
        backward.destinationEntity = entitiesByNumber[first.number]
        backward.maxCount = 0
        backward.isOrdered = columns.contains("Z_FOK_" + first.column.dropFirst(2))
        forward.inverseRelationship = backward
        backward.inverseRelationship = forward
        propertiesByNumber[second.number, default: []].append(backward)
    }

    // MARK: Helpers

    /// Splits a leading entity number from a name: `"12TAGS"` → `(12, "TAGS")`.
    static func numbered(_ text: Substring) -> (Int, String)? {
        let digits = text.prefix { $0.isASCII && $0.isNumber }
        guard !digits.isEmpty, let number = Int(digits) else { return nil }
        return (number, String(text.dropFirst(digits.count)))
    }

    private func tree(of root: Int) -> [Int] {
        var result = [root]
        var index = 0
        while index < result.count {
            let parent = result[index]
            result += parentNumber.filter { $0.value == parent && $0.key != parent }.keys.sorted()
            index += 1
        }
        return result
    }

    /// The deepest entity that all of `numbers` are or inherit from.
    private func commonAncestor(of numbers: [Int]) -> Int? {
        guard let first = numbers.first else { return nil }
        func chain(_ number: Int) -> [Int] {
            var result: [Int] = []
            var current: Int? = number
            while let value = current, entitiesByNumber[value] != nil, !result.contains(value) {
                result.append(value)
                current = parentNumber[value]
            }
            return result
        }
        var common = chain(first)
        for number in numbers.dropFirst() {
            let other = Set(chain(number))
            common = common.filter(other.contains)
        }
        return common.first
    }

    /// The attribute type a column of this declared type holds, as `SQLSchema` declares them.
    static func attributeType(forDeclaredType declared: String) -> NSAttributeType {
        let type = declared.uppercased()
        switch type {
        case "INTEGER": return .integer64AttributeType
        case "FLOAT": return .doubleAttributeType
        case "TIMESTAMP": return .dateAttributeType
        case "DECIMAL": return .decimalAttributeType
        case "BLOB", "": return .binaryDataAttributeType
        default: break
        }
        // Other declarations follow SQLite's affinity rules.
        if type.contains("INT") { return .integer64AttributeType }
        if type.contains("CHAR") || type.contains("CLOB") || type.contains("TEXT") { return .stringAttributeType }
        if type.contains("BLOB") { return .binaryDataAttributeType }
        if type.contains("REAL") || type.contains("FLOA") || type.contains("DOUB") { return .doubleAttributeType }
        return .decimalAttributeType
    }
}
