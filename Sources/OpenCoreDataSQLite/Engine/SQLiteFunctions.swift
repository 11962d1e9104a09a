import OpenCoreDataCore
import OpenCoreDataSQL
internal import GRDB

/// SQL functions and collations that give the store the predicate language's
/// semantics, reusing the in-memory evaluator's code so both agree: folding and
/// string operators (`StringMatching`), built-in functions (`PredicateFunctions`),
/// Swift's string equality and order, and the sort selectors' orders
/// (`NSSortDescriptor.compareValues`).
enum SQLiteFunctions {
    static func install(in db: Database) throws {
        db.add(function: fold)
        db.add(function: stringMatch)
        db.add(function: function)
        db.add(function: utf16Length)
        db.add(function: sum)
        db.add(collation: unicode)
        db.add(collation: caseInsensitive)
        db.add(collation: localized)
        db.add(collation: localizedCaseInsensitive)
        db.add(collation: standard)
    }

    private static func options(_ flags: Int) -> NSComparisonPredicate.Options {
        var options: NSComparisonPredicate.Options = []
        if flags & 1 != 0 { options.insert(.caseInsensitive) }
        if flags & 2 != 0 { options.insert(.diacriticInsensitive) }
        return options
    }

    private static let fold = DatabaseFunction("OCD_FOLD", argumentCount: 2, pure: true) { values in
        guard let string = String.fromDatabaseValue(values[0]) else { return values[0] }
        return StringMatching.fold(string, options: options(Int.fromDatabaseValue(values[1]) ?? 0))
    }

    private static let stringMatch = DatabaseFunction("OCD_STRING_MATCH", argumentCount: 4, pure: true) { values in
        guard let string = String.fromDatabaseValue(values[0]), let pattern = String.fromDatabaseValue(values[1]) else {
            return false
        }
        let opts = options(Int.fromDatabaseValue(values[3]) ?? 0)
        switch Int.fromDatabaseValue(values[2]) ?? 0 {
        case 0: return StringMatching.hasPrefix(string, pattern, options: opts)
        case 1: return StringMatching.hasSuffix(string, pattern, options: opts)
        case 2: return StringMatching.contains(string, pattern, options: opts)
        case 3: return StringMatching.like(string, pattern: pattern, options: opts)
        default:
            // An invalid pattern from a column fails the query, as Core Data raises.
            return try StringMatching.checkedMatch(string, pattern: pattern, options: opts)
        }
    }

    /// `OCD_FUNCTION(name, hints, arguments…)`: `PredicateFunctions.call(name, …)` on
    /// the arguments decoded by their kind hints (`SQLValueKind.functionHint`).
    /// Not pure: `random` and `random:` go through it.
    private static let function = DatabaseFunction("OCD_FUNCTION", argumentCount: nil, pure: false) { values in
        guard values.count >= 2, let name = String.fromDatabaseValue(values[0]),
            let hints = String.fromDatabaseValue(values[1]).map(Array.init)
        else { return nil }
        let arguments = values.dropFirst(2).enumerated().map { index, value in
            decode(value, hint: index < hints.count ? hints[index] : "z")
        }
        return encode(PredicateFunctions.call(name, arguments))
    }

    /// NSString's `length` (UTF-16 units), which `KeyPathEvaluation` gives for `string.length`.
    private static let utf16Length = DatabaseFunction("OCD_UTF16_LENGTH", argumentCount: 1, pure: true) { values in
        String.fromDatabaseValue(values[0])?.utf16.count
    }

    /// `OCD_SUM(x)`: `@sum` as memory computes it (integers while they fit, then
    /// doubles; 0 for no rows), where SQLite's SUM fails with "integer overflow".
    private static let sum = DatabaseFunction("OCD_SUM", argumentCount: 1, pure: true, aggregate: Sum.self)

    private struct Sum: DatabaseAggregate {
        var total = NumericValue.integer(0)

        mutating func step(_ values: [DatabaseValue]) {
            switch values[0].storage {
            case .int64(let integer): total = PredicateFunctions.add(total, .integer(integer))
            case .double(let double): total = PredicateFunctions.add(total, .double(double))
            default: break
            }
        }

        func finalize() -> (any DatabaseValueConvertible)? { encode(total.anyValue) }
    }

    /// A stored value as the Swift value the in-memory evaluator would see.
    private static func decode(_ value: DatabaseValue, hint: Character) -> Any? {
        switch value.storage {
        case .null:
            return nil
        case .int64(let integer):
            return hint == "d" ? Date(timeIntervalSinceReferenceDate: Double(integer)) : Int(integer)
        case .double(let double):
            return hint == "d" ? Date(timeIntervalSinceReferenceDate: double) : double
        case .string(let string):
            return hint == "l" ? URL(string: string) : string
        case .blob(let data):
            guard hint == "u" else { return data }
            return SQLValueCoding.value(SQLScalar(value), type: .UUIDAttributeType)
        }
    }

    /// A function result in the store's encoding (dates as seconds since 2001, …).
    private static func encode(_ value: Any?) -> DatabaseValue {
        guard let value = CollectionValue.unwrapNull(value) else { return .null }
        if let string = StringMatching.string(from: value) { return string.databaseValue }
        if let number = NumericValue(value) {
            if case .integer(let integer) = number { return integer.databaseValue }
            return number.doubleValue.databaseValue
        }
        switch value {
        case let date as Date: return date.timeIntervalSinceReferenceDate.databaseValue
        case let uuid as UUID:
            return (try? SQLValueCoding.scalar(uuid, type: .UUIDAttributeType))?.databaseValue ?? .null
        case let data as Data: return data.databaseValue
        case let url as URL: return url.absoluteString.databaseValue
        default: return .null
        }
    }

    /// Swift's string equality and order (canonical equivalence), used by `==`, `<`,
    /// `IN`, `@min`/`@max` and `compare:` sorting, where SQLite's BINARY compares bytes.
    private static let unicode = collation("OCD_UNICODE", .compare)
    private static let caseInsensitive = collation("OCD_CASE_INSENSITIVE", .caseInsensitiveCompare)
    private static let localized = collation("OCD_LOCALIZED", .localizedCompare)
    private static let localizedCaseInsensitive = collation(
        "OCD_LOCALIZED_CASE_INSENSITIVE", .localizedCaseInsensitiveCompare)
    private static let standard = collation("OCD_STANDARD", .localizedStandardCompare)

    private static func collation(_ name: String, _ selector: Selector) -> DatabaseCollation {
        DatabaseCollation(name) { lhs, rhs in NSSortDescriptor.compareStrings(lhs, rhs, selector: selector) }
    }
}
