import OpenCoreDataCore

/// What a SQL value stands for in the predicate language, as far as comparisons care.
///
/// The store keeps dates and numbers alike as SQLite numbers, UUIDs and data alike as
/// blobs; in memory a date never equals a number. Knowing each operand's kind lets the
/// translator decide such comparisons as in-memory evaluation does, and emit plain SQL
/// operators only where both sides really are comparable.
package enum SQLValueKind {
    case string
    /// Integers, floating-point numbers, decimals and Booleans (predicates treat Booleans as 0 and 1).
    case number
    case date
    case uuid
    case data
    case url
    /// A managed object, stored as its primary key; the entity is the declared one.
    case object(NSEntityDescription)
    /// An object's entity (the `entity` key path), stored as its entity number (`Z_ENT`).
    case entity
    /// Always `nil`.
    case null
    /// A value SQL cannot compare (transformable, external binary data, object IDs);
    /// the string names it in errors.
    case opaque(String)
    /// A composite attribute (or a nested composite element) of a row: its elements are
    /// columns that key paths continue into; the value itself is only `nil` or not.
    case composite(SQLCompositeReference)

    /// Whether values of the two kinds can be equal or ordered at all.
    package func isComparable(with other: SQLValueKind) -> Bool {
        switch (self, other) {
        case (.string, .string), (.number, .number), (.date, .date), (.uuid, .uuid), (.data, .data), (.url, .url):
            return true
        case let (.object(a), .object(b)):
            return a.facts.root === b.facts.root
        case (.entity, .entity):
            return true
        default:
            return false
        }
    }

    /// Whether `<` and friends mean something for the kind (objects only compare for equality).
    package var isOrdered: Bool {
        switch self {
        case .string, .number, .date, .uuid, .data, .url: true
        case .object, .entity, .null, .opaque, .composite: false
        }
    }

    /// Whether SQLite must compare the kind's text with Swift's string semantics.
    package var isText: Bool {
        switch self {
        case .string, .url: true
        default: false
        }
    }

    /// How `OCD_FUNCTION` must decode a SQL value of this kind into a Swift value.
    package var functionHint: String {
        switch self {
        case .string: "s"
        case .number: "n"
        case .date: "d"
        case .uuid: "u"
        case .data: "b"
        case .url: "l"
        case .object, .entity, .null, .opaque, .composite: "z"
        }
    }

    /// Whether the value is always nil.
    package var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The entity of an object value.
    package var entity: NSEntityDescription? {
        if case .object(let entity) = self { return entity }
        return nil
    }
}

/// A composite attribute (or a nested composite element of one) as read on one row:
/// the columns of its leaf elements, with their paths relative to this composite.
package struct SQLCompositeReference {
    /// The attribute, or the nested composite element `keyPath` ends at.
    package let composite: NSCompositeAttributeDescription
    /// The key path that led here, for messages (`location`, `location.position`).
    package let keyPath: String
    /// The row's alias.
    package let alias: String
    /// The columns of `composite`'s leaf elements, their paths relative to `composite`.
    package let columns: [SQLSchema.CompositeColumn]

    /// The element `key`: a column, or a nested composite; `nil` when there is no such element.
    package func element(_ key: String) -> SQLValue? {
        guard let element = composite.elements.first(where: { $0.name == key }) else { return nil }
        if let nested = element as? NSCompositeAttributeDescription {
            let inner = columns.filter { $0.path.first == key }.map {
                SQLSchema.CompositeColumn(path: Array($0.path.dropFirst()), element: $0.element, name: $0.name)
            }
            return SQLCompositeReference(composite: nested, keyPath: keyPath + "." + key, alias: alias, columns: inner)
                .value
        }
        guard let column = columns.first(where: { $0.path == [key] }) else { return nil }
        return SQLValue("\(raw: alias).\(raw: column.name)", kind: SQLConstantEncoding.kind(of: column.element))
    }

    /// The composite as a value: NULL when every column is NULL (the composite is `nil`), 1 otherwise.
    package var value: SQLValue {
        let tests = columns.map { "\(alias).\($0.name) IS NULL" }
        let fragment: SQLFragment =
            tests.isEmpty ? "NULL" : "(CASE WHEN \(raw: tests.joined(separator: " AND ")) THEN NULL ELSE 1 END)"
        return SQLValue(fragment, kind: .composite(self), rowAlias: nil)
    }
}

/// One SQL value (a column, a computed expression, a scalar subquery) and its kind.
package struct SQLValue {
    package var fragment: SQLFragment
    package var kind: SQLValueKind
    /// Whether the SQL can be NULL.
    package var isNullable: Bool
    /// For an object that is a row of the query (`t3`): lets key paths continue
    /// without another join.
    package var rowAlias: String?
    /// The string when the value is a string constant, so `[c]`/`[d]` fold it here
    /// rather than in SQL.
    package var constantText: String?

    package init(_ fragment: SQLFragment, kind: SQLValueKind, isNullable: Bool = true, rowAlias: String? = nil) {
        self.fragment = fragment
        self.kind = kind
        self.isNullable = isNullable
        self.rowAlias = rowAlias
    }
}

/// A collection in a fetch: the rows of a correlated subquery, one element per row.
///
/// To-many key paths, `SUBQUERY(...)` and flattened paths (`photos.tags.name`) all
/// become one of these; ANY/ALL, IN, CONTAINS and collection operators read it
/// through `EXISTS` or a scalar subquery.
package struct SQLCollection {
    /// The subquery's FROM clause and WHERE conditions.
    package let scope: SQLScope
    /// The value each row contributes.
    package var element: SQLValue
    /// When true, the collection is `nil` rather than empty: a to-many reached
    /// through a `nil` to-one (in memory, KVC on `nil` gives `nil`).
    package var nilWhen: SQLFragment?
    /// ORDER BY terms giving an ordered relationship's order; `nil` when unordered.
    package var order: [String]?
    /// How many to-many relationships the collection crossed.
    package var depth: Int

    /// `SELECT <selection> FROM ... WHERE ...` over the collection's rows.
    package func select(_ selection: SQLFragment, suffix: String = "") -> SQLFragment {
        "(SELECT \(selection) \(scope.body())\(raw: suffix))"
    }

    /// `EXISTS` (some row satisfies `condition`).
    package func exists(_ condition: SQLFragment?) -> SQLFragment {
        "EXISTS (SELECT 1 \(scope.body(extra: condition)))"
    }
}

/// What an expression of the predicate language translates to.
package enum SQLOperand {
    /// A value known while translating (a Swift value, possibly a collection).
    case constant(Any?)
    /// A single SQL value.
    case value(SQLValue)
    /// A collection held in the store.
    case collection(SQLCollection)
    /// An aggregate expression `{a, b}` with non-constant items.
    case list([SQLOperand])
}
