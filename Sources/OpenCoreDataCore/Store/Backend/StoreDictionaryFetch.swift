/// A dictionary fetch in the store's terms: which values to return under which
/// keys, how to group them, and the fetch (entity, predicate, order, window) they
/// are read from. Built by the context from an `NSFetchRequest` with
/// `.dictionaryResultType`; every store engine answers it without the context's
/// unsaved changes, as Core Data does.
package struct StoreDictionaryFetch {
    /// One entry of the result dictionaries.
    package struct Column {
        /// The key in each dictionary: the property name, the key path, or the
        /// expression description's name.
        package let key: String
        package let content: Content
    }

    /// What a column reads.
    package enum Content {
        /// An attribute or to-one relationship, possibly through to-one relationships (`family.name`).
        case keyPath(String)
        /// An `NSExpressionDescription`'s expression and the type it returns.
        case expression(NSExpression, resultType: NSAttributeType)
    }

    package var fetch: StoreFetch
    package var columns: [Column]
    /// Empty when the results are not grouped.
    package var groupBy: [Column]
    package var having: NSPredicate?
    /// `SELECT DISTINCT`; Core Data honours it only when `propertiesToFetch` is set.
    package var distinct: Bool

    /// Reads a request's `propertiesToFetch` and `propertiesToGroupBy`. Without
    /// `propertiesToFetch`, every stored attribute and to-one relationship of the
    /// entity is returned.
    package init(
        fetch: StoreFetch, propertiesToFetch: [Any]?, propertiesToGroupBy: [Any]?, having: NSPredicate?,
        returnsDistinctResults: Bool
    ) throws {
        self.fetch = fetch
        if let propertiesToFetch {
            columns = try propertiesToFetch.map { try Self.column($0, in: "propertiesToFetch") }
        } else {
            columns = fetch.entity.facts.slots.compactMap { property in
                guard property.isStored, !((property as? NSRelationshipDescription)?.isToMany ?? false) else {
                    return nil
                }
                return Column(key: property.name, content: .keyPath(property.name))
            }
        }
        groupBy = try (propertiesToGroupBy ?? []).map { try Self.column($0, in: "propertiesToGroupBy") }
        if having != nil, groupBy.isEmpty {
            throw CoreDataError.make(NSCoreDataError, "havingPredicate filters groups: it needs propertiesToGroupBy")
        }
        self.having = having
        distinct = returnsDistinctResults && propertiesToFetch != nil
    }

    /// One item of `propertiesToFetch` or `propertiesToGroupBy`.
    private static func column(_ item: Any, in list: String) throws -> Column {
        if let description = item as? NSExpressionDescription {
            guard let expression = description.expression else {
                throw CoreDataError.make(
                    NSCoreDataError,
                    "\(list) holds the NSExpressionDescription '\(description.name)', which has no expression")
            }
            guard !description.name.isEmpty else {
                throw CoreDataError.make(
                    NSCoreDataError,
                    "\(list) holds an NSExpressionDescription without a name (\(expression)); the name is its key in the results"
                )
            }
            return Column(
                key: description.name, content: .expression(expression, resultType: description.expressionResultType))
        }
        if let property = item as? NSPropertyDescription {
            if let relationship = property as? NSRelationshipDescription, relationship.isToMany {
                throw CoreDataError.make(
                    NSCoreDataError,
                    "\(list) holds the to-many relationship '\(property.name)'; only attributes, to-one relationships and expressions can be fetched as dictionary values"
                )
            }
            return Column(key: property.name, content: .keyPath(property.name))
        }
        if let keyPath = item as? String {
            return Column(key: keyPath, content: .keyPath(keyPath))
        }
        throw CoreDataError.make(
            NSCoreDataError,
            "\(list) holds a \(type(of: item)); it takes property names, key paths, NSPropertyDescriptions and NSExpressionDescriptions"
        )
    }
}
