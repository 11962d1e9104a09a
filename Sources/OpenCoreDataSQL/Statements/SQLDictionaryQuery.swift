import OpenCoreDataCore

/// The one SELECT of a dictionary fetch, and how each result row turns back into a
/// dictionary: which result columns feed which key, decoded how.
///
/// The select list, GROUP BY and HAVING are translated in the fetch's root scope by
/// `SQLDictionaryTranslation`, so key paths through to-one relationships join once
/// and the predicate, sort descriptors, limit and subentity filter apply as in any
/// fetch. SQL text and arguments only: running it is the store's job.
package struct SQLDictionaryQuery {
    /// How the result columns of one dictionary entry become its value.
    package enum Decoding {
        /// An attribute's stored value (one column), decoded exactly as a fetched object's would be.
        case attribute(NSAttributeDescription)
        /// The primary key of an object whose entity is known (one column).
        case object(NSEntityDescription)
        /// The primary key and entity number (`Z_ENT`) of an object (two columns).
        case objectOfAnyEntity
        /// A computed value (one column) of `kind`, returned as `resultType`
        /// (with `.undefinedAttributeType`, as the store computed it).
        case value(SQLValueKind, resultType: NSAttributeType)
        /// A composite attribute (or nested composite element): one column per leaf
        /// element, assembled into its dictionary.
        case composite(SQLCompositeReference)

        /// How many result columns the entry spans.
        package var width: Int {
            if case .objectOfAnyEntity = self { return 2 }
            if case .composite(let composite) = self { return composite.columns.count }
            return 1
        }
    }

    /// One entry of the result dictionaries.
    package struct Column {
        package let key: String
        package let decoding: Decoding
    }

    /// The statement, the fetch's LIMIT and OFFSET included.
    package let statement: SQLFragment
    /// The entries in select-list order.
    package let columns: [Column]

    package init(_ request: StoreDictionaryFetch, schema: SQLSchema) throws {
        let builder = SQLQueryBuilder(schema: schema, entity: request.fetch.entity)
        var columns: [Column] = []
        let select = try builder.select(request.fetch) { translator, scope in
            let translation = SQLDictionaryTranslation(translator: translator, scope: scope)
            let selected = try request.columns.map { column in
                try builder.naming("propertiesToFetch entry '\(column.key)'") { try translation.translate(column) }
            }
            columns = zip(request.columns, selected).map { Column(key: $0.key, decoding: $1.decoding) }
            let list = selected.flatMap { request.distinct ? $0.comparedFragments : $0.fragments }
            var selection = SQLSelection(columns: .joined(list, separator: ", "), distinct: request.distinct)
            if !request.groupBy.isEmpty {
                selection.groupBy = try Self.groupBy(
                    request, selected: selected, translation: translation, builder: builder)
            }
            if let having = request.having {
                selection.having = try builder.naming("havingPredicate \(having.predicateFormat)") {
                    try translation.having(having)
                }
            }
            return selection
        }
        statement = "\(select)\(raw: SQLQueryBuilder.window(request.fetch, schema.dialect))"
        self.columns = columns
    }

    /// The GROUP BY terms, after checking Core Data's rule that every fetched value
    /// is grouped by, an aggregate, or a constant.
    private static func groupBy(
        _ request: StoreDictionaryFetch, selected: [SQLDictionaryTranslation.Translated],
        translation: SQLDictionaryTranslation, builder: SQLQueryBuilder
    ) throws -> SQLFragment {
        let fetchedByKey = Dictionary(
            zip(request.columns.map(\.key), selected), uniquingKeysWith: { first, _ in first })
        var terms: [SQLFragment] = []
        for item in request.groupBy {
            let translated =
                try fetchedByKey[item.key]
                ?? builder.naming("propertiesToGroupBy entry '\(item.key)'") { try translation.translate(item) }
            if translated.isAggregate {
                throw CoreDataError.make(
                    NSCoreDataError,
                    "propertiesToGroupBy holds '\(item.key)', an aggregate; results can only be grouped by properties and non-aggregate expressions"
                )
            }
            terms += translated.comparedFragments
        }
        let grouped = Set(request.groupBy.map(\.key))
        for (column, translated) in zip(request.columns, selected)
        where !translated.isAggregate && !translated.isConstant && !grouped.contains(column.key) {
            throw CoreDataError.make(
                NSCoreDataError,
                "propertiesToFetch holds '\(column.key)', which is neither in propertiesToGroupBy nor an aggregate; with propertiesToGroupBy every fetched value must be one of the grouped properties, an aggregate function or a constant"
            )
        }
        return .joined(terms, separator: ", ")
    }
}
