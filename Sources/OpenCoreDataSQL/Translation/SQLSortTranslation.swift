import OpenCoreDataCore
/// Sort descriptors as ORDER BY terms giving `Sequence.sorted(using:)`'s order:
/// strings through collations that call `NSSortDescriptor.compareValues`, other
/// values in SQLite's order (which is theirs), nil first when ascending.
extension SQLTranslator {
    /// The ORDER BY terms of one descriptor, read in the fetch's root scope.
    package func orderTerms(_ descriptor: NSSortDescriptor, in scope: SQLScope) throws -> [SQLFragment] {
        guard let key = descriptor.key else {
            throw SQLTranslationError.unsupported("a sort descriptor without a key")
        }
        guard let selector = descriptor.selector else {
            throw SQLTranslationError.unsupported("the comparator block of the sort descriptor on '\(key)'")
        }
        let direction = schema.dialect.sortDirection(ascending: descriptor.ascending)
        switch try keyPath(key, from: scope.selfValue, in: scope) {
        case .constant:
            // Every object has the same value: no order.
            return []
        case .collection, .list:
            throw SQLTranslationError.badKeyPath(key, "leads to a collection; a sort key needs one value per object")
        case .value(let value):
            switch value.kind {
            case .null:
                return []
            case .opaque(let description):
                throw SQLTranslationError.unsupported("sorting by \(description)")
            case .composite(let composite):
                throw SQLTranslationError.unsupported(
                    "sorting by composite attribute '\(composite.keyPath)' as a whole; sort by its elements (\(composite.keyPath).\(composite.composite.elements.first?.name ?? "element"))"
                )
            case .object, .entity:
                // Objects (and entities) do not order among themselves; only nil comes first,
                // and a value that cannot be nil (the object itself) orders nothing.
                return value.isNullable ? ["(\(value.fragment) IS NOT NULL) \(raw: direction)"] : []
            case .string:
                let text = schema.dialect.comparedText(value.fragment)
                return ["\(text) COLLATE \(raw: Self.collation(for: selector)) \(raw: direction)"]
            case .url:
                // URLs order by their text whatever the selector (compareValues treats only strings specially).
                return ["\(schema.dialect.comparedText(value.fragment)) COLLATE OCD_UNICODE \(raw: direction)"]
            case .number, .date, .uuid, .data:
                return ["\(value.fragment) \(raw: direction)"]
            }
        }
    }

    /// The collation registered by `SQLiteFunctions` for a sort selector; other
    /// selectors fall back to `compare:` as `NSSortDescriptor` does.
    package static func collation(for selector: Selector) -> String {
        switch selector {
        case .caseInsensitiveCompare: "OCD_CASE_INSENSITIVE"
        case .localizedCompare: "OCD_LOCALIZED"
        case .localizedCaseInsensitiveCompare: "OCD_LOCALIZED_CASE_INSENSITIVE"
        case .localizedStandardCompare: "OCD_STANDARD"
        default: "OCD_UNICODE"
        }
    }
}
