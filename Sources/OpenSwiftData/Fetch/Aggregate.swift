import OpenCoreData

/// An aggregate over the models of type `Model`, whatever the type of its value: what a list of
/// aggregates of different value types holds (as `PartialKeyPath` is to `KeyPath`).
///
/// Make one with the static members (`count`, `sum(_:)`, `average(_:)`, `min(_:)`, `max(_:)`),
/// usually with the leading-dot syntax, and pass it to
/// ``ModelContext/aggregate(_:groupedBy:where:sortBy:)``. Two aggregates are equal when they apply
/// the same function to the same property, so an ``AggregateRow`` can be read with an aggregate
/// made again at the reading site.
public class PartialAggregate<Model: PersistentModel>: Hashable, @unchecked Sendable {
    // `@unchecked`: every stored property is immutable, and key paths are immutable values.

    /// The SQL aggregate function.
    enum Function: String, Sendable {
        case count, sum, average, min, max

        /// The name Core Data's `NSExpression(forFunction:arguments:)` gives it.
        var coreDataName: String { rawValue == "average" ? "average:" : rawValue + ":" }
    }

    let function: Function
    /// The aggregated property, or `nil` for the number of models.
    let keyPath: AnyKeyPath?

    init(_ function: Function, _ keyPath: AnyKeyPath?) {
        self.function = function
        self.keyPath = keyPath
    }

    /// The aggregate's value for one row of the store's results, as `Any` (the typed subclass
    /// decodes it). `stored` is the store's value, `nil` when SQL gave NULL.
    func decodeAny(_ stored: Any?, codec: ValueCodec?) throws -> Any {
        preconditionFailure("PartialAggregate is only made through Aggregate")
    }

    /// Whether two aggregates apply the same function to the same property (or both count models).
    public static func == (lhs: PartialAggregate, rhs: PartialAggregate) -> Bool {
        lhs.function == rhs.function && lhs.keyPath == rhs.keyPath
    }

    /// Hashes the function and the key path, as `==` compares them.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(function)
        hasher.combine(keyPath)
    }
}

/// An aggregate over the models of type `Model` whose value is a `Value`: a count, or the sum,
/// average, minimum or maximum of one stored attribute, computed by the store in SQL.
///
/// ```swift
/// let total = try context.aggregate(.sum(\Trip.cost))             // Double
/// let latest = try context.aggregate(.max(\Trip.endDate))         // Date?
/// let trips = try context.aggregate(.count, where: #Predicate { $0.cost > 100 })   // Int
/// ```
///
/// As in SQL, `nil` values of an optional attribute are skipped. A sum over no values is `0`;
/// an average, minimum or maximum over no values is `nil`.
public final class Aggregate<Model: PersistentModel, Value>: PartialAggregate<Model>, @unchecked Sendable {
    // `@unchecked`: as PartialAggregate; `decode` is a `@Sendable` closure.

    /// Converts the store's value (`nil` for SQL NULL) through the property's codec.
    private let convert: @Sendable (Any?, ValueCodec?) throws -> Value

    init(_ function: Function, _ keyPath: AnyKeyPath?, decode: @escaping @Sendable (Any?, ValueCodec?) throws -> Value)
    {
        convert = decode
        super.init(function, keyPath)
    }

    override func decodeAny(_ stored: Any?, codec: ValueCodec?) throws -> Any {
        try convert(stored, codec)
    }

    /// The typed value of one row of the store's results.
    func decode(_ stored: Any?, codec: ValueCodec?) throws -> Value {
        try convert(stored, codec)
    }
}

extension PartialAggregate {
    /// The number of models.
    ///
    /// With no predicate or key path to name the model type, name it:
    /// `context.aggregate(PartialAggregate<Trip>.count)` (or use ``ModelContext/fetchCount(_:)``).
    public static var count: Aggregate<Model, Int> {
        Aggregate(.count, nil) { stored, _ in storedInt(stored) ?? 0 }
    }

    /// The number of models whose `keyPath` is not `nil`.
    public static func count<V>(_ keyPath: KeyPath<Model, V?>) -> Aggregate<Model, Int> {
        Aggregate(.count, keyPath) { stored, _ in storedInt(stored) ?? 0 }
    }

    /// The sum of a numeric attribute; `0` when no model matches.
    ///
    /// The sum has the attribute's type; an integer sum is computed in 64 bits by SQLite (which
    /// fails the query on overflow), and a total the attribute's type cannot hold throws rather
    /// than wrapping, as adding the values in Swift would trap.
    public static func sum<V: AdditiveArithmetic>(_ keyPath: KeyPath<Model, V>) -> Aggregate<Model, V> {
        let name = PredicateTranslationContext.describe(keyPath)
        return Aggregate(.sum, keyPath) { stored, codec in try summed(stored, codec, as: V.self, of: name) }
    }

    /// The sum of an optional numeric attribute, skipping `nil`s; `0` when no value is there.
    public static func sum<V: AdditiveArithmetic>(_ keyPath: KeyPath<Model, V?>) -> Aggregate<Model, V> {
        let name = PredicateTranslationContext.describe(keyPath)
        return Aggregate(.sum, keyPath) { stored, codec in try summed(stored, codec, as: V.self, of: name) }
    }

    /// The mean of a numeric attribute, as a `Double`; `nil` when no model matches.
    public static func average<V: AdditiveArithmetic>(_ keyPath: KeyPath<Model, V>) -> Aggregate<Model, Double?> {
        Aggregate(.average, keyPath) { stored, _ in storedDouble(stored) }
    }

    /// The mean of an optional numeric attribute, skipping `nil`s; `nil` when no value is there.
    public static func average<V: AdditiveArithmetic>(_ keyPath: KeyPath<Model, V?>) -> Aggregate<Model, Double?> {
        Aggregate(.average, keyPath) { stored, _ in storedDouble(stored) }
    }

    /// The smallest value of an attribute (a number, a `String`, a `Date`, or a type stored as
    /// its raw value of one of those, compared by that raw value); `nil` when no model matches.
    ///
    /// Strings compare as Swift compares them, as sort descriptors do.
    public static func min<V: Comparable>(_ keyPath: KeyPath<Model, V>) -> Aggregate<Model, V?> {
        Aggregate(.min, keyPath) { stored, codec in try decoded(stored, codec, as: V.self) }
    }

    /// The smallest value of an optional attribute, skipping `nil`s; `nil` when no value is there.
    public static func min<V: Comparable>(_ keyPath: KeyPath<Model, V?>) -> Aggregate<Model, V?> {
        Aggregate(.min, keyPath) { stored, codec in try decoded(stored, codec, as: V.self) }
    }

    /// The largest value of an attribute (of the types `min(_:)` takes); `nil` when no model
    /// matches.
    public static func max<V: Comparable>(_ keyPath: KeyPath<Model, V>) -> Aggregate<Model, V?> {
        Aggregate(.max, keyPath) { stored, codec in try decoded(stored, codec, as: V.self) }
    }

    /// The largest value of an optional attribute, skipping `nil`s; `nil` when no value is there.
    public static func max<V: Comparable>(_ keyPath: KeyPath<Model, V?>) -> Aggregate<Model, V?> {
        Aggregate(.max, keyPath) { stored, codec in try decoded(stored, codec, as: V.self) }
    }
}

/// One group of a grouped aggregate query (or the single row of an ungrouped one): the values of
/// the properties the models were grouped by, and the aggregates over the group's models.
///
/// ```swift
/// for row in rows {
///     print(row[\Trip.destination], row[.sum(\Trip.cost)], row[.count])
/// }
/// ```
public struct AggregateRow<Model: PersistentModel> {
    /// The grouped properties' values, keyed by key path (`nil` for a `nil` group).
    let groupValues: [AnyKeyPath: Any?]
    /// The aggregates' typed values, boxed.
    let aggregateValues: [PartialAggregate<Model>: Any]

    /// The value of a property the results were grouped by, shared by every model of the group.
    ///
    /// `keyPath` must be one of the key paths passed as `groupedBy`; any other is a programmer
    /// error and traps, as the value was not read.
    public subscript<Value>(_ keyPath: KeyPath<Model, Value>) -> Value {
        guard let value = groupValues[keyPath] else {
            preconditionFailure(
                "\(PredicateTranslationContext.describe(keyPath)) is not one of the key paths the aggregate results were grouped by"
            )
        }
        // `Any?` to `Value`: an absent value becomes `nil` of an optional `Value`.
        guard let typed = value as? Value else {
            preconditionFailure(
                "\(PredicateTranslationContext.describe(keyPath)) has no value in this group, but \(Value.self) is not optional"
            )
        }
        return typed
    }

    /// The value of one of the aggregates that were computed.
    ///
    /// `aggregate` must equal one of the aggregates passed to the query (the same function of the
    /// same key path); any other is a programmer error and traps, as it was not computed.
    public subscript<Value>(_ aggregate: Aggregate<Model, Value>) -> Value {
        guard let value = aggregateValues[aggregate] else {
            preconditionFailure(
                "\(aggregate.function) of \(aggregate.keyPath.map { PredicateTranslationContext.describe($0) } ?? "the models") was not one of the aggregates computed"
            )
        }
        return value as! Value
    }
}

// MARK: Decoding the store's values

/// A number the store returned (as `NSNumber`), as an `Int`.
private func storedInt(_ stored: Any?) -> Int? {
    switch stored {
    case let value as Int: value
    case let value as Int64: Int(value)
    case let value as NSNumber: value.intValue
    default: nil
    }
}

/// A number the store returned, as a `Double`.
private func storedDouble(_ stored: Any?) -> Double? {
    switch stored {
    case let value as Double: value
    case let value as NSNumber: value.doubleValue
    default: nil
    }
}

/// A sum the store returned, as the summed property's type `V`; an integer total `V` cannot
/// hold (the store sums in 64 bits) throws instead of being cut to `V`'s width.
private func summed<V: AdditiveArithmetic>(
    _ stored: Any?, _ codec: ValueCodec?, as _: V.Type, of name: String
) throws -> V {
    if let integer = V.self as? any FixedWidthInteger.Type, let total = storedInt(stored), !fits(total, in: integer) {
        throw SwiftDataError.unsupportedKeyPath.explained(
            "the sum of \(name) is \(total), more than a \(V.self) holds: sum a wider property, or fetch and add the values"
        )
    }
    return try decoded(stored, codec, as: V.self) ?? .zero
}

/// Whether `value` is exactly representable as an `I`.
private func fits<I: FixedWidthInteger>(_ value: Int, in _: I.Type) -> Bool {
    I(exactly: value) != nil
}

/// The Swift value of a value the store returned for an attribute, converted by the attribute's
/// codec as reading a model's property converts it; `nil` for SQL NULL. A value of another
/// type is damage in the store, reported rather than trapped on.
private func decoded<V>(_ stored: Any?, _ codec: ValueCodec?, as _: V.Type) throws -> V? {
    guard let stored, let codec else { return nil }
    guard let value = codec.decode(stored) as? V else {
        throw SwiftDataError.unknownDataStoreSchema.explained(
            "the store returned a \(type(of: stored)) for an aggregate of \(V.self) values, which is not a \(V.self)")
    }
    return value
}
