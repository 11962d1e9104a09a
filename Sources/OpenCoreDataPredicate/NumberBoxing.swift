/// Turns the plain Swift numbers the evaluator computes with into the `NSNumber`s
/// (and `NSDecimalNumber`s) Foundation and Core Data hand out.
///
/// Evaluation, comparison and SQL translation work on Swift numbers, which are faster;
/// values cross to users boxed, because ported code casts them: on Linux an `NSNumber`
/// answers `as? Int`, `as? Double` and (for 0 and 1) `as? Bool`, where a Swift `Double`
/// refuses `as? Int` and a Swift `Bool` refuses `as? Int`.
package enum NumberBoxing {
    /// `value` with a Swift number or Boolean boxed in an `NSNumber`, a `Decimal` in an
    /// `NSDecimalNumber`, and the elements of an array of `Any` boxed alike; any other
    /// value unchanged.
    package static func boxed(_ value: Any?) -> Any? {
        guard let value else { return nil }
        return boxed(value)
    }

    /// `value` boxed as ``boxed(_:)-(Any?)`` describes.
    package static func boxed(_ value: Any) -> Any {
        // Metatype comparisons first: a cast through `as?` to a bridged type costs far more.
        let type = Swift.type(of: value)
        if type is AnyObject.Type { return value }
        if type == String.self || type == Date.self || type == Data.self { return value }
        if type == Int.self { return NSNumber(value: value as! Int) }
        if type == Double.self { return NSNumber(value: value as! Double) }
        if type == Bool.self { return NSNumber(value: value as! Bool) }
        if type == Int64.self { return NSNumber(value: value as! Int64) }
        if type == Int32.self { return NSNumber(value: value as! Int32) }
        if type == Int16.self { return NSNumber(value: value as! Int16) }
        if type == Int8.self { return NSNumber(value: value as! Int8) }
        if type == UInt.self { return NSNumber(value: value as! UInt) }
        if type == UInt64.self { return NSNumber(value: value as! UInt64) }
        if type == UInt32.self { return NSNumber(value: value as! UInt32) }
        if type == UInt16.self { return NSNumber(value: value as! UInt16) }
        if type == UInt8.self { return NSNumber(value: value as! UInt8) }
        if type == Float.self { return NSNumber(value: value as! Float) }
        if type == Decimal.self { return NSDecimalNumber(decimal: value as! Decimal) }
        if type == [Any?].self { return (value as! [Any?]).map { boxed($0) } }
        if type == [Any].self { return (value as! [Any]).map { boxed($0) } }
        return value
    }
}
