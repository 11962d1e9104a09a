import OpenCoreDataCore

/// The statements of a batch update: one `UPDATE` of every matching row, and the
/// `SELECT`s of the matching rows' IDs or old column values that may run first.
///
/// Rows are matched by the fetch's own `FROM … WHERE …` (`SQLQueryBuilder`), as
/// `Z_PK IN (SELECT t0.Z_PK …)` so predicates that join other tables work. A new
/// value that is not a constant is read per row through a subquery on the row's
/// key, in which `SQLTranslator` resolves key paths as it does in fetches; such
/// values are gathered in a temporary table first (see `plan(encode:)`).
/// SQL text and arguments only: running them is the store's job.
package struct SQLBatchUpdateBuilder {
    package let schema: SQLSchema
    package let request: StoreBatchUpdate
    package let table: String

    package init(schema: SQLSchema, request: StoreBatchUpdate) throws {
        self.schema = schema
        self.request = request
        table = try schema.table(for: request.fetch.entity).name
    }

    /// `SELECT t0.<columns> FROM … WHERE …` over the matching rows.
    package func selectMatching(_ columns: [String]) throws -> SQLFragment {
        let body = try SQLQueryBuilder(schema: schema, entity: request.fetch.entity).fromAndWhere(request.fetch)
        return "SELECT \(raw: SQLList.of(columns.map { "t0." + $0 })) \(body)"
    }

    /// `SELECT t0.Z_PK, t0.Z_ENT … FOR UPDATE OF t0`: the matching rows, locked until the
    /// transaction ends, so no other writer changes them between this read and the
    /// update (PostgreSQL, where writers run at once).
    package func lockMatching() throws -> SQLFragment {
        "\(try selectMatching(["Z_PK", "Z_ENT"])) FOR UPDATE OF t0"
    }

    /// The statements, in order: `before` (empty, or the computation of the new
    /// values), then `update` (whose change count is the number of rows updated),
    /// then `after` (clean-up).
    package struct Plan {
        package var before: [SQLFragment] = []
        package var update: SQLFragment
        package var after: [SQLFragment] = []
    }

    /// The table of computed values, in the connection's own temporary schema.
    package var valuesTable: String {
        switch schema.dialect {
        case .sqlite: "temp.Z_BATCHVALUES"
        case .postgreSQL: "pg_temp.Z_BATCHVALUES"
        }
    }

    /// The statements; `encode` turns a constant into the column's stored value.
    ///
    /// Values read from rows are computed for all matching rows before any row is
    /// written (into the temporary table `Z_BATCHVALUES`): SQLite's `UPDATE` would otherwise let a
    /// later row read what an earlier row just received (`parent.pages` when both are
    /// updated), where a batch update means every value as it was before.
    ///
    /// With `keys`, exactly those rows are updated (the rows ``lockMatching()`` locked);
    /// otherwise the rows the fetch matches when the statements run.
    package func plan(
        encode: (Any?, NSAttributeDescription) throws -> SQLScalar, keys: [Int64]? = nil
    ) throws -> Plan {
        var assignments: [SQLFragment] = []
        var computed: [SQLFragment] = []
        for (attribute, value) in request.assignments {
            if let leaves = schema.compositeColumns(for: attribute) {
                // A composite is set whole: each element's column from the dictionary (NULL when absent).
                guard case .constant(let constant) = value else {
                    throw failure(attribute, "a composite attribute can only be set to a constant dictionary")
                }
                let dictionary = constant as? [String: Any]
                for leaf in leaves {
                    let element = dictionary.flatMap { CompositeValue.value(at: leaf.path, in: $0) }
                    assignments.append("\(raw: leaf.name) = \(SQLFragment.bind(try encode(element, leaf.element)))")
                }
                continue
            }
            guard let column = schema.column(for: attribute) else { continue }
            switch value {
            case .constant(let constant):
                assignments.append("\(raw: column) = \(SQLFragment.bind(try encode(constant, attribute)))")
            case .expression(let expression):
                let name = "V\(computed.count)"
                computed.append("\(try perRow(expression, for: attribute)) AS \(raw: name)")
                assignments.append(
                    "\(raw: column) = (SELECT v.\(raw: name) FROM \(raw: valuesTable) v WHERE v.Z_PK = \(raw: table).Z_PK)"
                )
            }
        }
        assignments.append("Z_OPT = Z_OPT + 1")
        let matching =
            try keys.map { schema.dialect.keyList(schema.dialect.keyListText($0)) } ?? selectMatching(["Z_PK"])
        let set = SQLFragment.joined(assignments, separator: ", ")
        guard !computed.isEmpty else {
            return Plan(update: "UPDATE \(raw: table) SET \(set) WHERE Z_PK IN (\(matching))")
        }
        let values: SQLFragment =
            "SELECT m.Z_PK, \(SQLFragment.joined(computed, separator: ", ")) FROM \(raw: table) m WHERE m.Z_PK IN (\(matching))"
        let fill: [SQLFragment]
        switch schema.dialect {
        case .sqlite:
            let columns = SQLList.of(["Z_PK INTEGER PRIMARY KEY"] + computed.indices.map { "V\($0)" })
            fill = ["CREATE TEMP TABLE Z_BATCHVALUES (\(raw: columns))", "INSERT INTO \(raw: valuesTable) \(values)"]
        case .postgreSQL:
            // PostgreSQL's columns need types: the values' own.
            fill = ["CREATE TEMP TABLE Z_BATCHVALUES AS \(values)"]
        }
        return Plan(
            before: ["DROP TABLE IF EXISTS \(raw: valuesTable)"] + fill,
            update: "UPDATE \(raw: table) SET \(set) WHERE Z_PK IN (SELECT Z_PK FROM \(raw: valuesTable))",
            after: ["DROP TABLE \(raw: valuesTable)"]
        )
    }

    /// `(SELECT <expression> FROM <table> t0 … WHERE t0.Z_PK = m.Z_PK)`: the expression
    /// read on the matching row `m`, key paths resolved as in fetches.
    private func perRow(_ expression: NSExpression, for attribute: NSAttributeDescription) throws -> SQLFragment {
        let target = SQLConstantEncoding.kind(of: attribute)
        if case .opaque(let what) = target {
            throw failure(attribute, "\(what) can only be set to a constant")
        }
        let translator = SQLTranslator(schema: schema)
        let scope = try translator.rootScope(for: request.fetch.entity)
        let value: SQLValue
        do {
            value = try translator.scalar(try translator.operand(expression, in: scope), for: "a new value")
        } catch let error as NSError where error.domain == NSCocoaErrorDomain {
            throw failure(attribute, "cannot compute \(expression) in the store: \(error.localizedDescription)")
        }
        guard value.kind.isNull || value.kind.isComparable(with: target) else {
            throw failure(
                attribute,
                "\(expression) gives \(SQLConstantEncoding.kindDescription(value.kind)) values, not \(attribute.attributeType.displayName)"
            )
        }
        return "(SELECT \(value.fragment) \(scope.body(extra: "t0.Z_PK = m.Z_PK")))"
    }

    private func failure(_ attribute: NSAttributeDescription, _ message: String) -> NSError {
        CoreDataError.make(
            NSManagedObjectValidationError,
            "Batch update of \(request.fetch.entity.name ?? "?").\(attribute.name): \(message)",
            [NSValidationKeyErrorKey: attribute.name])
    }
}
