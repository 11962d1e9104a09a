import OpenCoreDataCore
/// How a model maps onto Core Data's SQLite layout: tables, columns, join tables.
///
/// One table per root entity (`Z<ENTITY>`) holds the rows of its whole inheritance
/// tree, told apart by `Z_ENT`. Attributes and to-one foreign keys are `Z<NAME>`
/// columns (`Z<NAME>1`, … on collisions), a composite attribute one column per leaf
/// element (`Z<NAME>_<ELEMENT>`, see `compositeColumnName`); a to-one whose destination has subentities
/// adds `Z<ent>_<NAME>` with the destination's entity number; ordered to-manys keep
/// positions in `Z_FOK_` columns; many-to-many relationships use `Z_<ent><NAME>` join
/// tables. Pure mapping: the statements creating these tables are
/// `SQLSchemaStatements`'s, and no SQLite calls happen here.
package final class SQLSchema {
    package struct Column {
        package let name: String
        package let type: String

        package init(name: String, type: String) {
            self.name = name
            self.type = type
        }

        /// Groups columns as Core Data orders them: integers, floats/dates, decimals, text, blobs.
        package var rank: Int {
            switch type {
            case "INTEGER": 0
            case "FLOAT", "TIMESTAMP": 1
            case "DECIMAL": 2
            case "VARCHAR": 3
            default: 4
            }
        }
    }

    package final class Table {
        package let name: String
        package unowned let root: NSEntityDescription
        package var columns: [Column] = []
        package var entityCount = 1
        package init(name: String, root: NSEntityDescription) {
            self.name = name
            self.root = root
        }
    }

    /// A join table of a many-to-many relationship, seen from one of its two sides.
    package struct JoinTable {
        package let name: String
        /// The column holding the key of the object that owns the relationship.
        package let sourceColumn: String
        /// The column holding the keys of its destinations.
        package let destinationColumn: String
        /// Position of the destination within the source's ordered relationship.
        package let orderColumn: String?
        /// Whether this side writes the join rows (the other side's changes mirror it).
        package let isWritingSide: Bool
    }

    /// One column of a composite attribute: a leaf element (not itself a composite),
    /// the element names leading to it from the attribute, and the column's name.
    package struct CompositeColumn: Sendable {
        package let path: [String]
        package let element: NSAttributeDescription
        package let name: String
    }

    package private(set) var tables: [Table] = []
    private var compositeColumnsByProperty: [ObjectIdentifier: [CompositeColumn]] = [:]
    private var tableByRoot: [ObjectIdentifier: Table] = [:]
    private var columnByProperty: [ObjectIdentifier: String] = [:]
    private var entityColumnByProperty: [ObjectIdentifier: String] = [:]
    private var orderColumnByProperty: [ObjectIdentifier: String] = [:]
    private var hiddenColumnByToMany: [ObjectIdentifier: String] = [:]
    private var joinTableByRelationship: [ObjectIdentifier: JoinTable] = [:]
    package private(set) var joinTables:
        [(name: String, columns: [Column], primaryKey: [String], index: (String, [String]))] =
            []
    /// The names in ``joinTables``, checked for each new one.
    private var joinTableNames = Set<String>()
    package private(set) var entitiesByNumber: [Int: NSEntityDescription] = [:]
    package let entities: [NSEntityDescription]
    /// The SQL of the engine whose database holds these tables.
    package let dialect: SQLDialect

    package init(entities: [NSEntityDescription], dialect: SQLDialect = .sqlite) {
        self.entities = entities.sorted { $0.facts.entityNumber < $1.facts.entityNumber }
        self.dialect = dialect
        for entity in self.entities { entitiesByNumber[entity.facts.entityNumber] = entity }
        buildTables()
    }

    // MARK: Lookups

    /// The table of an entity's tree; an entity outside this store's configuration throws.
    package func table(for entity: NSEntityDescription) throws -> Table {
        guard let table = tableByRoot[ObjectIdentifier(entity.facts.root)] else {
            throw CoreDataError.make(
                NSCoreDataError, "Entity '\(entity.name ?? "?")' is not in this store's configuration")
        }
        return table
    }
    /// The single column of an attribute or to-one; `nil` for a composite attribute,
    /// which has ``compositeColumns(for:)`` instead.
    package func column(for property: NSPropertyDescription) -> String? { columnByProperty[ObjectIdentifier(property)] }
    /// The columns of a stored composite attribute, one per leaf element in element
    /// order (depth first); `nil` for any other property.
    package func compositeColumns(for property: NSPropertyDescription) -> [CompositeColumn]? {
        compositeColumnsByProperty[ObjectIdentifier(property)]
    }

    /// The name of the column of a composite's element before collisions are resolved
    /// (a taken name gets `1`, `2`, … appended, like any column): `Z`, the attribute's
    /// name and each element name on the way, upper-cased and joined by `_`
    /// (`ZLOCATION_LATITUDE`, nested `ZA_B_C`).
    ///
    /// The one place these names are made. Core Data's own names for composite columns
    /// could not be checked against a store it wrote (see docs/DEVIATIONS.md).
    package static func compositeColumnName(attribute: String, elementPath: [String]) -> String {
        "Z" + ([attribute] + elementPath).map { $0.uppercased() }.joined(separator: "_")
    }
    package func entityColumn(for relationship: NSRelationshipDescription) -> String? {
        entityColumnByProperty[ObjectIdentifier(relationship)]
    }
    package func orderColumn(for relationship: NSRelationshipDescription) -> String? {
        orderColumnByProperty[ObjectIdentifier(relationship)]
    }
    package func hiddenColumn(for relationship: NSRelationshipDescription) -> String? {
        hiddenColumnByToMany[ObjectIdentifier(relationship)]
    }
    package func joinTable(for relationship: NSRelationshipDescription) -> JoinTable? {
        joinTableByRelationship[ObjectIdentifier(relationship)]
    }

    /// The object a row's key and entity number name, or `nil` for a row without a key or
    /// with an entity number the model lacks (skipped, as a damaged row is).
    package func objectID(key: Int64?, entityNumber: Int64?, store: NSPersistentStore) -> NSManagedObjectID? {
        guard let key, let entityNumber, let entity = entitiesByNumber[Int(truncatingIfNeeded: entityNumber)] else {
            return nil
        }
        return NSManagedObjectID(entity: entity, store: store, primaryKey: key)
    }

    // MARK: Building

    private func buildTables() {
        /// `property`: the attribute or to-one whose column this is (`nil` for a to-many's hidden column).
        struct Pending {
            let rank: Int; let entity: Int; let order: Int; let name: String; let type: String;
            let property: ObjectIdentifier?; let assign: (String) -> Void
        }
        var pendingByTable: [ObjectIdentifier: [Pending]] = [:]
        for entity in entities where entity.superentity == nil {
            let table = Table(name: "Z" + (entity.name ?? "").uppercased(), root: entity)
            tables.append(table)
            tableByRoot[ObjectIdentifier(entity)] = table
        }
        for entity in entities {
            let table = tableByRoot[ObjectIdentifier(entity.facts.root)]!
            if entity.superentity != nil { table.entityCount += 1 }
            let number = entity.facts.entityNumber
            let own = entity.facts.slots.filter { $0.entity === entity && $0.isStored }.sorted { $0.name < $1.name }
            for property in own {
                let key = ObjectIdentifier(property)
                let base = "Z" + property.name.uppercased()
                if let composite = property as? NSCompositeAttributeDescription {
                    // One column per leaf element, ranked by its own type like any attribute's.
                    let leaves = CompositeValue.leaves(of: composite)
                    var names = [String?](repeating: nil, count: leaves.count)
                    for (index, leaf) in leaves.enumerated() {
                        let type = Self.sqlType(for: leaf.element.attributeType)
                        let name = Self.compositeColumnName(attribute: property.name, elementPath: leaf.path)
                        pendingByTable[ObjectIdentifier(table), default: []].append(
                            Pending(
                                rank: Column(name: "", type: type).rank, entity: number, order: 0, name: name,
                                type: type, property: nil
                            ) { column in
                                names[index] = column
                                if names.allSatisfy({ $0 != nil }) {
                                    self.compositeColumnsByProperty[key] = zip(leaves, names).map {
                                        CompositeColumn(path: $0.path, element: $0.element, name: $1!)
                                    }
                                }
                            })
                    }
                } else if let attribute = property as? NSAttributeDescription {
                    let type = Self.sqlType(for: attribute.attributeType)
                    pendingByTable[ObjectIdentifier(table), default: []].append(
                        Pending(
                            rank: Column(name: "", type: type).rank, entity: number, order: 0, name: base, type: type,
                            property: key
                        ) { self.columnByProperty[key] = $0 })
                } else if let relationship = property as? NSRelationshipDescription, !relationship.isToMany {
                    let destination = relationship.destinationEntity
                    let needsEntityColumn = !(destination?.facts.selfAndDescendants.count ?? 1 == 1)
                    let destinationNumber = destination?.facts.entityNumber ?? 0
                    let orderedInverse = relationship.inverseRelationship.map { $0.isToMany && $0.isOrdered } ?? false
                    pendingByTable[ObjectIdentifier(table), default: []].append(
                        Pending(rank: 0, entity: number, order: 1, name: base, type: "INTEGER", property: key) {
                            column in
                            self.columnByProperty[key] = column
                            let suffix = String(column.dropFirst())
                            if needsEntityColumn {
                                self.entityColumnByProperty[key] = "Z\(destinationNumber)_\(suffix)"
                            }
                            if orderedInverse { self.orderColumnByProperty[key] = "Z_FOK_\(suffix)" }
                        })
                } else if let relationship = property as? NSRelationshipDescription, relationship.isToMany {
                    if relationship.inverseRelationship == nil, let destination = relationship.destinationEntity {
                        let destinationTable = tableByRoot[ObjectIdentifier(destination.facts.root)]
                        if let destinationTable {
                            pendingByTable[ObjectIdentifier(destinationTable), default: []].append(
                                Pending(
                                    rank: 0, entity: number, order: 2, name: "Z\(number)\(property.name.uppercased())",
                                    type: "INTEGER", property: nil
                                ) { self.hiddenColumnByToMany[key] = $0 })
                        }
                    } else if let inverse = relationship.inverseRelationship, inverse.isToMany {
                        addJoinTable(relationship, inverse)
                    }
                }
            }
        }
        for table in tables {
            var used: Set<String> = ["Z_PK", "Z_ENT", "Z_OPT"]
            var columns: [Column] = []
            // Which property each column holds, so companions find theirs without a search
            // through every property of the model (quadratic in a model of thousands of entities).
            var propertyByColumn: [String: ObjectIdentifier] = [:]
            let pending = (pendingByTable[ObjectIdentifier(table)] ?? []).sorted {
                ($0.rank, $0.entity, $0.order, $0.name) < ($1.rank, $1.entity, $1.order, $1.name)
            }
            for item in pending {
                var name = item.name
                var suffix = 1
                while used.contains(name) { name = item.name + String(suffix); suffix += 1 }
                used.insert(name)
                item.assign(name)
                if let property = item.property { propertyByColumn[name] = property }
                columns.append(Column(name: name, type: item.type))
            }
            // Companion columns follow their foreign key.
            var ordered: [Column] = []
            for column in columns {
                ordered.append(column)
                if let property = propertyByColumn[column.name] {
                    if let entityColumn = entityColumnByProperty[property] {
                        ordered.append(Column(name: entityColumn, type: "INTEGER"))
                    }
                    if let orderColumn = orderColumnByProperty[property] {
                        ordered.append(Column(name: orderColumn, type: "INTEGER"))
                    }
                }
            }
            table.columns = ordered
        }
    }

    private func addJoinTable(_ relationship: NSRelationshipDescription, _ inverse: NSRelationshipDescription) {
        guard joinTableByRelationship[ObjectIdentifier(relationship)] == nil,
            let owner = relationship.entity, let other = inverse.entity
        else { return }
        // The relationship whose name sorts last (ignoring case) names the table, as in
        // stores Core Data wrote (Z_26ASSETS for albums ↔ assets, Z_4SHORTCUTS for
        // parents ↔ shortcuts); equal names fall back to the entity names.
        let names = (relationship.name.uppercased(), inverse.name.uppercased())
        let ownerFirst =
            names.0 != names.1
            ? names.0 > names.1
            : ((owner.name ?? ""), relationship.name) <= ((other.name ?? ""), inverse.name)
        let (first, firstEntity, second, secondEntity) =
            ownerFirst
            ? (relationship, owner, inverse, other) : (inverse, other, relationship, owner)
        var name = "Z_\(firstEntity.facts.entityNumber)\(first.name.uppercased())"
        while joinTableNames.contains(name) { name += "1" }
        joinTableNames.insert(name)
        let firstColumn = "Z_\(firstEntity.facts.entityNumber)\(second.name.uppercased())"
        var secondColumn = "Z_\(secondEntity.facts.entityNumber)\(first.name.uppercased())"
        if secondColumn == firstColumn { secondColumn += "1" }
        let firstOrder = first.isOrdered ? "Z_FOK_" + secondColumn.dropFirst(2) : nil
        let secondOrder = second.isOrdered ? "Z_FOK_" + firstColumn.dropFirst(2) : nil
        // A relationship that is its own inverse (friends ↔ friends) writes both
        // directions itself; otherwise the first side writes the shared rows.
        if first !== second {
            joinTableByRelationship[ObjectIdentifier(second)] = JoinTable(
                name: name, sourceColumn: secondColumn, destinationColumn: firstColumn, orderColumn: secondOrder,
                isWritingSide: false)
        }
        joinTableByRelationship[ObjectIdentifier(first)] = JoinTable(
            name: name, sourceColumn: firstColumn, destinationColumn: secondColumn, orderColumn: firstOrder,
            isWritingSide: true)
        var columns = [Column(name: firstColumn, type: "INTEGER"), Column(name: secondColumn, type: "INTEGER")]
        if let firstOrder { columns.append(Column(name: firstOrder, type: "INTEGER")) }
        if let secondOrder { columns.append(Column(name: secondOrder, type: "INTEGER")) }
        joinTables.append(
            (
                name, columns, [firstColumn, secondColumn],
                ("\(name)_\(secondColumn)_INDEX", [secondColumn, firstColumn])
            ))
    }

    /// Core Data's declared column type for an attribute type.
    package static func sqlType(for type: NSAttributeType) -> String {
        switch type {
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType, .booleanAttributeType: "INTEGER"
        case .doubleAttributeType, .floatAttributeType: "FLOAT"
        case .decimalAttributeType: "DECIMAL"
        case .dateAttributeType: "TIMESTAMP"
        case .stringAttributeType, .URIAttributeType, .objectIDAttributeType: "VARCHAR"
        default: "BLOB"
        }
    }
}
