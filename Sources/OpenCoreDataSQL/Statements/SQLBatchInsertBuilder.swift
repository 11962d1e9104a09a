import OpenCoreDataCore

/// The statements of a batch insert, prepared once and run for every row: the
/// `INSERT`, and for entities with uniqueness constraints the lookup of a stored row
/// with the same constrained values and the `UPDATE` that overwrites it.
/// Templates only: binding and running are the store's job.
package struct SQLBatchInsertBuilder {
    /// A uniqueness constraint the rows can be matched on.
    package struct ConstraintLookup {
        /// `SELECT Z_PK, Z_ENT … WHERE <constrained columns> = ? … LIMIT 1`.
        package let statement: SQLTemplate
        /// Which of the row's values bind the placeholders, in order.
        package let valueIndexes: [Int]
    }

    /// `INSERT INTO … (Z_PK, Z_ENT, Z_OPT, <attribute columns>) VALUES (?, ?, 1, ?, …)`.
    package let insert: SQLTemplate
    /// `UPDATE … SET <attribute columns> = ?, …, Z_OPT = Z_OPT + 1 WHERE Z_PK = ?`.
    package let update: SQLTemplate
    /// `SELECT <external-storage columns> … WHERE Z_PK = ?`: the files a row's update
    /// replaces; `nil` when no attribute allows external storage.
    package let externalValues: SQLTemplate?
    /// One lookup per constraint whose members are all stored attributes of the row.
    package let constraintLookups: [ConstraintLookup]
    /// Per attribute of the request, its columns when it is a composite.
    private let compositeColumns: [[SQLSchema.CompositeColumn]?]

    /// A row's values as the statements bind them: one per attribute, a composite's
    /// dictionary spread over its elements' columns.
    package func boundValues(
        _ row: [Any?], _ attributes: [NSAttributeDescription],
        encode: (Any?, NSAttributeDescription) throws -> SQLScalar
    ) throws -> [SQLScalar] {
        var values: [SQLScalar] = []
        values.reserveCapacity(row.count)
        for (index, (value, attribute)) in zip(row, attributes).enumerated() {
            if let leaves = compositeColumns[index] {
                let dictionary = value as? [String: Any]
                for leaf in leaves {
                    values.append(
                        try encode(dictionary.flatMap { CompositeValue.value(at: leaf.path, in: $0) }, leaf.element))
                }
            } else {
                values.append(try encode(value, attribute))
            }
        }
        return values
    }

    package init(schema: SQLSchema, request: StoreBatchInsert) throws {
        let table = try schema.table(for: request.entity).name
        compositeColumns = request.attributes.map { schema.compositeColumns(for: $0) }
        // A composite attribute spans one column per leaf element.
        let columns = zip(request.attributes, compositeColumns).flatMap { attribute, composite in
            composite?.map(\.name) ?? [schema.column(for: attribute) ?? ""]
        }
        let values = SQLList.of(["?", "?", "1"] + columns.map { _ in "?" })
        insert = SQLTemplate(
            sql: "INSERT INTO \(table) (\(SQLList.of(["Z_PK", "Z_ENT", "Z_OPT"] + columns))) VALUES (\(values))")
        let assignments = SQLList.of(columns.map { "\($0) = ?" } + ["Z_OPT = Z_OPT + 1"])
        update = SQLTemplate(sql: "UPDATE \(table) SET \(assignments) WHERE Z_PK = ?")
        constraintLookups = Self.lookups(for: request, table: table, schema: schema, compositeColumns: compositeColumns)
        let externalColumns = request.attributes.filter(\.allowsExternalBinaryDataStorage).compactMap {
            schema.column(for: $0)
        }
        externalValues = externalColumns.isEmpty ? nil : SQLExternalDataStatements.values(externalColumns, table: table)
    }

    /// Constraints declared on the entity or inherited from its ancestors; each is
    /// matched among rows of the entity that declares it and that entity's subentities.
    private static func lookups(
        for request: StoreBatchInsert, table: String, schema: SQLSchema,
        compositeColumns: [[SQLSchema.CompositeColumn]?]
    ) -> [ConstraintLookup] {
        let indexByName = Dictionary(uniqueKeysWithValues: request.attributes.enumerated().map { ($1.name, $0) })
        // Where each attribute's value is among the bound values (composites take several).
        var positions: [Int] = []
        var next = 0
        for composite in compositeColumns {
            positions.append(next)
            next += composite?.count ?? 1
        }
        var result: [ConstraintLookup] = []
        var owner: NSEntityDescription? = request.entity
        while let entity = owner {
            for constraint in entity.uniquenessConstraints {
                let names = NSEntityDescription.propertyNames(inConstraint: constraint)
                let indexes = names.compactMap { indexByName[$0] }
                // Constraints on relationships cannot match rows that batch inserts never relate.
                guard !indexes.isEmpty, indexes.count == names.count else { continue }
                let conditions = indexes.map { "\(schema.column(for: request.attributes[$0]) ?? "") = ?" }
                let sql =
                    "SELECT Z_PK, Z_ENT FROM \(table) WHERE Z_ENT IN (\(SQLList.entityNumbers(of: entity))) AND \(conditions.joined(separator: " AND ")) LIMIT 1"
                result.append(
                    ConstraintLookup(statement: SQLTemplate(sql: sql), valueIndexes: indexes.map { positions[$0] }))
            }
            owner = entity.superentity
        }
        return result
    }
}
