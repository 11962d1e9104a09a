import OpenCoreData

extension ModelContext {
    /// One aggregate — a count, or the sum, average, minimum or maximum of a stored attribute —
    /// over the models `predicate` selects, computed by the store in one SQL query.
    ///
    /// Where Apple's SwiftData has models fetched and reduced in memory, this reads no model:
    /// the query is a Core Data dictionary fetch whose value is `SUM(…)`, `AVG(…)`, and so on.
    ///
    /// ```swift
    /// let spent = try context.aggregate(.sum(\Trip.cost), where: #Predicate { $0.cost > 0 })
    /// let first = try context.aggregate(.min(\Trip.startDate))        // Date?
    /// ```
    ///
    /// The store's saved data is aggregated: as with Core Data's dictionary results, the
    /// context's unsaved inserts, changes and deletes do not count. Save first to include them.
    ///
    /// - Parameters:
    ///   - aggregate: What to compute.
    ///   - predicate: Which models take part (all when `nil`).
    /// - Returns: The value: `0` for a count or sum over no models, `nil` for an average,
    ///   minimum or maximum over none. `nil` values of an optional attribute are skipped.
    /// - Throws: ``SwiftDataError/unsupportedPredicate`` for a predicate the store cannot run
    ///   in SQL; ``SwiftDataError/unsupportedKeyPath`` when the key path is not a stored
    ///   attribute of a type the function applies to; the store's error.
    public func aggregate<T: PersistentModel, Value>(
        _ aggregate: Aggregate<T, Value>, where predicate: Predicate<T>? = nil
    ) throws -> Value {
        let rows = try self.aggregate([aggregate], where: predicate)
        // An ungrouped SQL aggregate always yields its one row.
        if let row = rows.first { return row[aggregate] }
        return try aggregate.decode(nil, codec: nil)
    }

    /// Aggregates over the models `predicate` selects, one row per distinct combination of the
    /// `groupedBy` properties' values (or one row when `groupedBy` is empty), computed by the
    /// store in one SQL query (`SELECT … GROUP BY …`).
    ///
    /// ```swift
    /// let rows = try context.aggregate([.sum(\Trip.cost), .average(\Trip.cost), .count],
    ///                                  groupedBy: [\Trip.destination],
    ///                                  sortBy: [SortDescriptor(\Trip.destination)])
    /// for row in rows {
    ///     print(row[\Trip.destination], row[.sum(\Trip.cost)], row[.count])
    /// }
    /// ```
    ///
    /// Models whose grouped property is `nil` form a group of their own, as in SQL; strings
    /// group as Swift's `==` compares them. As with Core Data's dictionary results, the
    /// context's unsaved changes do not count: the store's saved data is aggregated.
    ///
    /// - Parameters:
    ///   - aggregates: What to compute for each group.
    ///   - groupedBy: Stored attributes of `T` (not relationships or composite attributes).
    ///   - predicate: Which models take part (all when `nil`).
    ///   - sortBy: The order of the groups, by grouped properties only. Without it, the order
    ///     is the store's. To order by an aggregate, sort the returned rows.
    /// - Returns: The groups, each read with ``AggregateRow``'s subscripts.
    /// - Throws: ``SwiftDataError/unsupportedPredicate`` for a predicate the store cannot run
    ///   in SQL; ``SwiftDataError/unsupportedKeyPath`` for a key path that is not a stored
    ///   attribute a function or a grouping applies to; ``SwiftDataError/unsupportedSortDescriptor``
    ///   for a sort by a property the results are not grouped by; the store's error.
    public func aggregate<T: PersistentModel>(
        _ aggregates: [PartialAggregate<T>], groupedBy: [PartialKeyPath<T>] = [],
        where predicate: Predicate<T>? = nil,
        sortBy: [SortDescriptor<T>] = []
    ) throws -> [AggregateRow<T>] {
        let table = ModelTable.of(T.self)
        var groups: [(keyPath: AnyKeyPath, name: String, codec: ValueCodec)] = []
        for keyPath in groupedBy where !groups.contains(where: { $0.keyPath == keyPath }) {
            let (property, codec) = try Self.aggregatedAttribute(keyPath, of: T.self, in: table, for: "groupedBy")
            groups.append((keyPath, property.name, codec))
        }
        var columns: [(aggregate: PartialAggregate<T>, key: String, codec: ValueCodec?)] = []
        var properties: [Any] = groups.map(\.name)
        for aggregate in aggregates where !columns.contains(where: { $0.aggregate == aggregate }) {
            // A name no property can have, so it never collides with a grouped property's key.
            let key = "aggregate #\(columns.count)"
            let (description, codec) = try Self.expressionDescription(aggregate, named: key, in: table)
            columns.append((aggregate, key, codec))
            properties.append(description)
        }
        guard !properties.isEmpty else { return [] }

        let request = NSFetchRequest<NSDictionary>(entityName: Schema.entityName(for: T.self))
        request.resultType = .dictionaryResultType
        request.predicate = try predicate.map { try Self.translator.predicate($0) }
        request.propertiesToFetch = properties
        if !groups.isEmpty { request.propertiesToGroupBy = groups.map(\.name) }
        request.sortDescriptors = try Self.translator.sortDescriptors(sortBy)
        // SQL would order groups by a value of an arbitrary model of the group: refuse.
        for sort in sortBy where !groups.contains(where: { $0.keyPath == sort.keyPath.map { $0 as AnyKeyPath } }) {
            throw SwiftDataError.unsupportedSortDescriptor.explained(
                "aggregate results can be sorted only by the properties they are grouped by; \(sort.keyPath.map { PredicateTranslationContext.describe($0) } ?? "a key-path-less sort") is not one (sort the returned rows to order them by an aggregate)"
            )
        }

        let results: [NSDictionary]
        do {
            results = try objectContext.fetch(request)
        } catch {
            throw SwiftDataError.storeFetchError(error) ?? error
        }
        return try results.map { dictionary in
            var groupValues: [AnyKeyPath: Any?] = [:]
            for group in groups {
                // The store left the key out for NULL, the value of a `nil` property.
                groupValues[group.keyPath] = try dictionary[group.name].flatMap { stored -> Any? in
                    // A value of another type is damage in the store: say so rather than trap.
                    guard let value = group.codec.decode(stored) else {
                        throw SwiftDataError.unknownDataStoreSchema.explained(
                            "the store holds a \(type(of: stored)) for the grouped property '\(group.name)' of \(T.self), which is not a value of the property's type"
                        )
                    }
                    return value
                }
            }
            var aggregateValues: [PartialAggregate<T>: Any] = [:]
            for column in columns {
                aggregateValues[column.aggregate] = try column.aggregate.decodeAny(
                    dictionary[column.key], codec: column.codec)
            }
            return AggregateRow(groupValues: groupValues, aggregateValues: aggregateValues)
        }
    }

    // MARK: Building the request

    /// The `NSExpressionDescription` that computes `aggregate` under `key`, and the codec of the
    /// aggregated attribute (`nil` for the count of models).
    private static func expressionDescription<T: PersistentModel>(
        _ aggregate: PartialAggregate<T>, named key: String,
        in table: ModelTable
    ) throws -> (NSExpressionDescription, ValueCodec?) {
        let function = aggregate.function
        let argument: NSExpression
        let resultType: NSAttributeType
        var codec: ValueCodec?
        if let keyPath = aggregate.keyPath {
            let (property, attributeCodec) = try aggregatedAttribute(
                keyPath, of: T.self, in: table, for: "\(function.rawValue)(_:)")
            codec = attributeCodec
            argument = NSExpression(forKeyPath: property.name)
            let type = attributeCodec.attributeType
            switch function {
            case .count:
                resultType = .integer64AttributeType
            case .sum, .average:
                guard let sumType = summedType(of: type) else {
                    throw SwiftDataError.unsupportedKeyPath.explained(
                        "\(function.rawValue)(_:) needs a numeric attribute; \(property.label) is stored as \(type) (\(PredicateTranslationContext.describe(keyPath)))"
                    )
                }
                resultType = function == .average ? .doubleAttributeType : sumType
            case .min, .max:
                guard isOrdered(type) else {
                    throw SwiftDataError.unsupportedKeyPath.explained(
                        "\(function.rawValue)(_:) needs an attribute stored as a number, a string or a date; \(property.label) is stored as \(type) (\(PredicateTranslationContext.describe(keyPath)))"
                    )
                }
                // Decoded as the attribute is, so the codec reads it back as the property's type.
                resultType = type
            }
        } else {
            argument = NSExpression.expressionForEvaluatedObject()
            resultType = .integer64AttributeType
        }
        let description = NSExpressionDescription()
        description.name = key
        description.expression = NSExpression(forFunction: function.coreDataName, arguments: [argument])
        description.expressionResultType = resultType
        return (description, codec)
    }

    /// The stored, non-composite attribute at `keyPath`, with its codec.
    ///
    /// - Throws: ``SwiftDataError/unsupportedKeyPath`` for anything else (a relationship, a
    ///   property that is not persisted, a composite attribute SQL cannot aggregate as a whole).
    private static func aggregatedAttribute<T: PersistentModel>(
        _ keyPath: AnyKeyPath, of _: T.Type, in table: ModelTable,
        for use: String
    ) throws -> (ModelProperty, ValueCodec) {
        guard let property = table.property(at: keyPath) else {
            throw SwiftDataError.unsupportedKeyPath.explained(
                "\(use) names \(PredicateTranslationContext.describe(keyPath)), which is not a stored property of \(T.self)"
            )
        }
        guard case .attribute(let codec) = property.kind, codec.composite == nil else {
            let what = property.isRelationship ? "a relationship" : "not an attribute SQL can aggregate or group by"
            throw SwiftDataError.unsupportedKeyPath.explained(
                "\(use) names \(property.label), which is \(what); aggregates and groups read stored attributes of \(T.self)"
            )
        }
        return (property, codec)
    }

    /// The attribute type a sum of `type` values is returned as, or `nil` if `type` is not a number.
    private static func summedType(of type: NSAttributeType) -> NSAttributeType? {
        switch type {
        // Integer sums are computed in 64 bits whatever the attribute's width.
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType: .integer64AttributeType
        case .doubleAttributeType, .floatAttributeType: .doubleAttributeType
        case .decimalAttributeType: .decimalAttributeType
        default: nil
        }
    }

    /// Whether SQL orders stored values of `type` as Swift orders the values.
    private static func isOrdered(_ type: NSAttributeType) -> Bool {
        summedType(of: type) != nil || type == .dateAttributeType || type == .stringAttributeType
    }
}
