/// A number taken out of any Swift or Foundation numeric representation, so that
/// predicates can compare and combine numbers regardless of their original type.
package enum NumericValue: Sendable {
    case integer(Int64)
    case unsigned(UInt64)
    case double(Double)
    case decimal(Decimal)

    /// Extracts a number from `value`, or returns `nil` when `value` is not numeric.
    ///
    /// Booleans count as the integers 0 and 1, as `NSNumber` treats them.
    package init?(_ value: Any?) {
        guard let value else { return nil }
        switch value {
        case let number as NSDecimalNumber: self = .decimal(number.decimalValue)
        case let decimal as Decimal: self = .decimal(decimal)
        case let bool as Bool: self = .integer(bool ? 1 : 0)
        case let int as Int: self = .integer(Int64(int))
        case let int as Int8: self = .integer(Int64(int))
        case let int as Int16: self = .integer(Int64(int))
        case let int as Int32: self = .integer(Int64(int))
        case let int as Int64: self = .integer(int)
        case let uint as UInt: self = .unsigned(UInt64(uint))
        case let uint as UInt8: self = .integer(Int64(uint))
        case let uint as UInt16: self = .integer(Int64(uint))
        case let uint as UInt32: self = .integer(Int64(uint))
        case let uint as UInt64: self = .unsigned(uint)
        case let double as Double: self = .double(double)
        case let float as Float: self = .double(Double(float))
        case let number as NSNumber: self = NumericValue(number: number)
        default: return nil
        }
        self = self.normalized
    }

    private init(number: NSNumber) {
        switch UInt8(bitPattern: number.objCType.pointee) {
        case UInt8(ascii: "d"), UInt8(ascii: "f"): self = .double(number.doubleValue)
        case UInt8(ascii: "Q"), UInt8(ascii: "L"), UInt8(ascii: "I"): self = .unsigned(number.uint64Value)
        default: self = .integer(number.int64Value)
        }
    }

    /// Unsigned values that fit in `Int64` become signed so that integer paths apply.
    private var normalized: NumericValue {
        if case .unsigned(let value) = self, value <= UInt64(Int64.max) { return .integer(Int64(value)) }
        return self
    }

    /// The value as a `Double`, possibly losing precision.
    package var doubleValue: Double {
        switch self {
        case .integer(let value): return Double(value)
        case .unsigned(let value): return Double(value)
        case .double(let value): return value
        case .decimal(let value): return NSDecimalNumber(decimal: value).doubleValue
        }
    }

    /// The value as a `Decimal`; infinities and NaN give `Decimal.nan`, as
    /// `NSDecimalNumber` does on Apple platforms (`Decimal(Double)` traps on them).
    package var decimalValue: Decimal {
        switch self {
        case .integer(let value): return Decimal(value)
        case .unsigned(let value): return Decimal(value)
        case .double(let value): return Self.decimal(value)
        case .decimal(let value): return value
        }
    }

    /// `value` as a `Decimal`, `Decimal.nan` when it is not finite.
    package static func decimal(_ value: Double) -> Decimal {
        value.isFinite ? Decimal(value) : .nan
    }

    /// Whether decimal arithmetic and ordering apply: one side is a decimal and
    /// neither is an infinity or NaN, which `Decimal` cannot hold or order.
    package static func usesDecimal(_ lhs: NumericValue, _ rhs: NumericValue) -> Bool {
        guard lhs.isDecimal || rhs.isDecimal else { return false }
        return lhs.isFinite && rhs.isFinite
    }

    private var isDecimal: Bool {
        if case .decimal = self { return true }
        return false
    }

    private var isFinite: Bool {
        switch self {
        case .double(let value): return value.isFinite
        case .decimal(let value): return !value.isNaN
        case .integer, .unsigned: return true
        }
    }

    /// The value as an integer when it has no fractional part and fits in `Int64`.
    package var exactInteger: Int64? {
        switch self {
        case .integer(let value): return value
        case .unsigned: return nil
        case .double(let value): return value.rounded() == value ? Int64(exactly: value) : nil
        case .decimal(let value):
            let double = NSDecimalNumber(decimal: value).doubleValue
            return double.rounded() == double ? Int64(exactly: double) : nil
        }
    }

    /// The value as a plain Swift number (`Int`, `UInt64`, `Double` or `Decimal`).
    package var anyValue: Any {
        switch self {
        case .integer(let value): return Int(value)
        case .unsigned(let value): return value
        case .double(let value): return value
        case .decimal(let value): return value
        }
    }

    /// Orders two numbers by value across representations.
    package static func compare(_ lhs: NumericValue, _ rhs: NumericValue) -> ComparisonResult {
        switch (lhs, rhs) {
        case let (.integer(a), .integer(b)): return order(a, b)
        case let (.unsigned(a), .unsigned(b)): return order(a, b)
        case (.integer, .unsigned): return .orderedAscending
        case (.unsigned, .integer): return .orderedDescending
        case _ where usesDecimal(lhs, rhs): return order(lhs.decimalValue, rhs.decimalValue)
        default: return order(lhs.doubleValue, rhs.doubleValue)
        }
    }

    private static func order<T: Comparable>(_ a: T, _ b: T) -> ComparisonResult {
        a < b ? .orderedAscending : (a > b ? .orderedDescending : .orderedSame)
    }

    /// A hash consistent with `compare`: numerically equal values hash alike.
    package var hashKey: Double { doubleValue }
}
