/// Archives predicates, expressions and constant values into a compiled model as
/// Foundation's `NSKeyedArchiver` does: the inverse of ``ArchivedPredicateDecoder``.
///
/// Each kind becomes the private Foundation class (and keys) Core Data's archives hold:
/// `NSComparisonPredicate` with an operator object, `NSKeyPathExpression` applying
/// `valueForKey:` to a key path specifier, and so on. What an archive cannot carry (a
/// block, a subquery, a custom-selector comparison) throws a ``CompiledModelEncodingError``
/// naming it, rather than write something no reader would rebuild.
package struct ArchivedPredicateEncoder {
    /// Deeper nesting is refused, as the decoder refuses it.
    package static let maximumDepth = ArchivedPredicateDecoder.maximumDepth

    package func predicate(
        _ predicate: NSPredicate, into archive: inout KeyedArchiveWriter, depth: Int = 0
    ) throws -> PropertyListValue {
        guard depth < Self.maximumDepth else {
            throw failure("a predicate nested more than \(Self.maximumDepth) levels")
        }
        switch predicate.node {
        case let .constant(value):
            return archive.object(
                classChain: [value ? "NSTruePredicate" : "NSFalsePredicate", "NSPredicate", "NSObject"], fields: [:])
        case let .compound(type, subpredicates):
            let members = try subpredicates.map { try self.predicate($0, into: &archive, depth: depth + 1) }
            let list = archive.array(members)
            return archive.object(
                classChain: ["NSCompoundPredicate", "NSPredicate", "NSObject"],
                fields: ["NSCompoundPredicateType": .integer(Int64(type.rawValue)), "NSSubpredicates": list])
        case let .comparison(parts):
            guard parts.operatorType != .customSelector else {
                throw failure(
                    "the predicate \(predicate.predicateFormat) compares with a custom selector, which an archived model cannot name"
                )
            }
            let left = try expression(parts.left, into: &archive, depth: depth + 1)
            let right = try expression(parts.right, into: &archive, depth: depth + 1)
            let operation = comparisonOperator(parts, into: &archive)
            return archive.object(
                classChain: ["NSComparisonPredicate", "NSPredicate", "NSObject"],
                fields: ["NSLeftExpression": left, "NSRightExpression": right, "NSPredicateOperator": operation])
        case .block:
            throw failure("a block predicate cannot be archived")
        }
    }

    /// The operator object: its class says the kind of comparison, as Foundation's does;
    /// readers go by `NSOperatorType`, `NSModifier` and `NSOptions`.
    private func comparisonOperator(
        _ parts: ComparisonNode, into archive: inout KeyedArchiveWriter
    ) -> PropertyListValue {
        let stringOperator = ["NSStringPredicateOperator", "NSPredicateOperator", "NSObject"]
        let chain: [String]
        switch parts.operatorType {
        case .equalTo, .notEqualTo: chain = ["NSEqualityPredicateOperator", "NSPredicateOperator", "NSObject"]
        case .like: chain = ["NSLikePredicateOperator"] + stringOperator
        case .beginsWith: chain = ["NSBeginsWithPredicateOperator"] + stringOperator
        case .endsWith: chain = ["NSEndsWithPredicateOperator"] + stringOperator
        case .matches: chain = ["NSMatchingPredicateOperator"] + stringOperator
        case .in: chain = ["NSInPredicateOperator", "NSPredicateOperator", "NSObject"]
        case .contains: chain = ["NSContainsPredicateOperator", "NSPredicateOperator", "NSObject"]
        case .between: chain = ["NSBetweenPredicateOperator", "NSPredicateOperator", "NSObject"]
        default: chain = ["NSComparisonPredicateOperator", "NSPredicateOperator", "NSObject"]
        }
        return archive.object(
            classChain: chain,
            fields: [
                "NSOperatorType": .integer(Int64(parts.operatorType.rawValue)),
                "NSModifier": .integer(Int64(parts.modifier.rawValue)),
                "NSNegate": .bool(parts.operatorType == .notEqualTo),
                "NSOptions": .integer(Int64(parts.options.rawValue)),
            ])
    }

    package func expression(
        _ expression: NSExpression, into archive: inout KeyedArchiveWriter, depth: Int
    ) throws -> PropertyListValue {
        guard depth < Self.maximumDepth else {
            throw failure("an expression nested more than \(Self.maximumDepth) levels")
        }
        let chain = { (name: String) in [name, "NSExpression", "NSObject"] }
        let type = { (code: UInt) in PropertyListValue.integer(Int64(code)) }
        switch expression.node {
        case let .constant(value):
            let archived = try constant(value, into: &archive, depth: depth + 1)
            return archive.object(
                classChain: chain("NSConstantValueExpression"),
                fields: ["NSExpressionType": type(0), "NSConstantValue": archived])
        case .evaluatedObject:
            return selfExpression(into: &archive)
        case let .variable(name):
            let archivedName = archive.string(name)
            return archive.object(
                classChain: chain("NSVariableExpression"),
                fields: ["NSExpressionType": type(2), "NSVariable": archivedName])
        case let .keyPath(operand, path):
            let target =
                try operand.map { try self.expression($0, into: &archive, depth: depth + 1) }
                ?? selfExpression(into: &archive)
            let archivedPath = archive.string(path)
            let specifier = archive.object(
                classChain: chain("NSKeyPathSpecifierExpression"),
                fields: ["NSExpressionType": type(10), "NSKeyPath": archivedPath])
            let arguments = archive.array([specifier], className: "NSMutableArray")
            // A single key is sent `valueForKey:`, a dotted path `valueForKeyPath:`, as Foundation archives them.
            let selector = archive.string(path.contains(".") ? "valueForKeyPath:" : "valueForKey:")
            return archive.object(
                classChain: ["NSKeyPathExpression", "NSFunctionExpression", "NSExpression", "NSObject"],
                fields: [
                    "NSExpressionType": type(3), "NSSelectorName": selector, "NSOperand": target,
                    "NSArguments": arguments,
                ])
        case let .function(operand, name, arguments):
            // Built-in functions are sent to Foundation's own utility class, archived as a
            // constant expression naming it; `FUNCTION(target, …)` keeps its target.
            let target: PropertyListValue
            if let operand {
                target = try self.expression(operand, into: &archive, depth: depth + 1)
            } else {
                let utilities = archive.string("_NSPredicateUtilities")
                target = archive.object(
                    classChain: chain("NSConstantValueExpression"),
                    fields: ["NSExpressionType": type(0), "NSConstantValueClassName": utilities])
            }
            let members = try arguments.map { try self.expression($0, into: &archive, depth: depth + 1) }
            let list = archive.array(members, className: "NSMutableArray")
            let selector = archive.string(name)
            return archive.object(
                classChain: chain("NSFunctionExpression"),
                fields: [
                    "NSExpressionType": type(4), "NSSelectorName": selector, "NSOperand": target, "NSArguments": list,
                ])
        case let .aggregate(members):
            let archived = try members.map { try self.expression($0, into: &archive, depth: depth + 1) }
            let list = archive.array(archived)
            return archive.object(
                classChain: chain("NSAggregateExpression"),
                fields: ["NSExpressionType": type(14), "NSCollection": list])
        case let .union(left, right), let .intersect(left, right), let .minus(left, right):
            let code: UInt =
                if case .union = expression.node { 5 } else if case .intersect = expression.node { 6 } else { 7 }
            let lhs = try self.expression(left, into: &archive, depth: depth + 1)
            let rhs = try self.expression(right, into: &archive, depth: depth + 1)
            return archive.object(
                classChain: chain("NSSetExpression"),
                fields: ["NSExpressionType": type(code), "NSLeftExpression": lhs, "NSRightExpression": rhs])
        case let .fetch(request, context, countOnly):
            let archivedRequest = try self.expression(request, into: &archive, depth: depth + 1)
            let archivedContext = try self.expression(context, into: &archive, depth: depth + 1)
            return archive.object(
                classChain: chain("NSFetchRequestExpression"),
                fields: [
                    "NSExpressionType": type(50), "NSFRExpression": archivedRequest, "NSMOCExpression": archivedContext,
                    "NSCountOnlyFlag": .bool(countOnly),
                ])
        case .subquery, .conditional, .anyKey, .block, .symbol:
            throw failure(
                "the expression \(expression.description) is of a kind (\(expression.expressionType)) an archived model here cannot hold"
            )
        }
    }

    private func selfExpression(into archive: inout KeyedArchiveWriter) -> PropertyListValue {
        archive.object(
            classChain: ["NSSelfExpression", "NSExpression", "NSObject"], fields: ["NSExpressionType": .integer(1)])
    }

    /// A user info dictionary as an `NSDictionary` of archived constants (empty when `nil`,
    /// as Core Data writes it).
    package func userInfo(
        _ info: [AnyHashable: Any]?, into archive: inout KeyedArchiveWriter
    ) throws -> PropertyListValue {
        var entries: [(key: String, value: PropertyListValue)] = []
        for (key, value) in (info ?? [:]).sorted(by: { "\($0.key)" < "\($1.key)" }) {
            guard let name = key.base as? String else { throw failure("a user info key that is not a string (\(key))") }
            entries.append((name, try constant(value, into: &archive, depth: 1)))
        }
        return archive.dictionary(entries)
    }

    /// A constant as Foundation archives it: numbers, Booleans, strings and data as plain
    /// values; dates, UUIDs, URLs, decimals, nulls and collections as their classes.
    package func constant(
        _ value: Any?, into archive: inout KeyedArchiveWriter, depth: Int = 0
    ) throws -> PropertyListValue {
        guard depth < Self.maximumDepth else { throw failure("a value nested more than \(Self.maximumDepth) levels") }
        guard let value else { return KeyedArchiveWriter.null }
        switch value {
        case let text as String: return archive.string(text)
        case let decimal as Decimal: return self.decimal(decimal, into: &archive)
        case let number as NSDecimalNumber: return self.decimal(number.decimalValue, into: &archive)
        // Before `Bool`: on Linux an `NSNumber` holding 1 casts to `true`.
        case let number as NSNumber: return archive.plain(plainNumber(number))
        case let flag as Bool: return archive.plain(.bool(flag))
        case let number as Int: return archive.plain(.integer(Int64(number)))
        case let number as Int16: return archive.plain(.integer(Int64(number)))
        case let number as Int32: return archive.plain(.integer(Int64(number)))
        case let number as Int64: return archive.plain(.integer(number))
        case let number as Double: return archive.plain(.real(number))
        case let number as Float: return archive.plain(.real(Double(number)))
        case let data as Data: return archive.plain(.data(data))
        case let date as Date:
            return archive.object(
                classChain: ["NSDate", "NSObject"], fields: ["NS.time": .real(date.timeIntervalSinceReferenceDate)])
        case let uuid as UUID:
            let bytes = withUnsafeBytes(of: uuid.uuid) { Data($0) }
            return archive.object(classChain: ["NSUUID", "NSObject"], fields: ["NS.uuidbytes": .data(bytes)])
        case let url as URL:
            let text = archive.string(url.absoluteString)
            return archive.object(
                classChain: ["NSURL", "NSObject"], fields: ["NS.base": KeyedArchiveWriter.null, "NS.relative": text])
        case is NSNull:
            return archive.object(classChain: ["NSNull", "NSObject"], fields: [:])
        case let items as [Any]:
            let members = try items.map { try constant($0, into: &archive, depth: depth + 1) }
            return archive.array(members)
        case let items as Set<AnyHashable>:
            let members = try items.sorted { "\($0)" < "\($1)" }.map {
                try constant($0.base, into: &archive, depth: depth + 1)
            }
            return archive.object(classChain: ["NSSet", "NSObject"], fields: ["NS.objects": .array(members)])
        case let entries as [String: Any]:
            var archived: [(key: String, value: PropertyListValue)] = []
            for (key, member) in entries.sorted(by: { $0.key < $1.key }) {
                archived.append((key, try constant(member, into: &archive, depth: depth + 1)))
            }
            return archive.dictionary(archived)
        case let entries as [AnyHashable: Any]:
            return try userInfo(entries, into: &archive)
        default:
            throw failure("a value of type \(type(of: value)) (\(value)) cannot be archived in a compiled model")
        }
    }

    /// An `NSNumber` as the plain value its type calls for (`c`, Objective-C's `BOOL`, a Boolean).
    private func plainNumber(_ number: NSNumber) -> PropertyListValue {
        switch UInt8(bitPattern: number.objCType.pointee) {
        case UInt8(ascii: "d"), UInt8(ascii: "f"): .real(number.doubleValue)
        case UInt8(ascii: "c") where number.int64Value == 0 || number.int64Value == 1: .bool(number.boolValue)
        default: .integer(number.int64Value)
        }
    }

    /// An `NSDecimalNumber` as Core Data's archives hold it: exponent, sign, and the
    /// mantissa as eight little-endian 16-bit words, with the count of words in use.
    private func decimal(_ value: Decimal, into archive: inout KeyedArchiveWriter) -> PropertyListValue {
        var words = [UInt16](repeating: 0, count: 8)
        var mantissa = value.significand.magnitude
        var exponent = value.exponent
        // Normalize away a fractional significand (Decimal keeps it integral; be safe).
        var rounded = Decimal()
        NSDecimalRound(&rounded, &mantissa, 0, .plain)
        mantissa = rounded
        var index = 0
        while mantissa > 0, index < 8 {
            var quotient = Decimal()
            var divisor = Decimal(65_536)
            var dividend = mantissa
            NSDecimalDivide(&quotient, &dividend, &divisor, .down)
            var truncated = Decimal()
            NSDecimalRound(&truncated, &quotient, 0, .down)
            let remainder = mantissa - truncated * 65_536
            words[index] = NSDecimalNumber(decimal: remainder).uint16Value
            mantissa = truncated
            index += 1
        }
        if value.isZero { exponent = 0 }
        var bytes = Data()
        for word in words { bytes += [UInt8(word & 0xFF), UInt8(word >> 8)] }
        return archive.object(
            classChain: ["NSDecimalNumberPlaceholder", "NSDecimalNumber", "NSNumber", "NSValue", "NSObject"],
            fields: [
                "NS.exponent": .integer(Int64(exponent)), "NS.length": .integer(Int64(index)),
                "NS.negative": .bool(value.sign == .minus && !value.isZero),
                "NS.compact": .bool(true), "NS.mantissa.bo": .integer(1), "NS.mantissa": .data(bytes),
            ]
        )
    }

    private func failure(_ reason: String) -> CompiledModelEncodingError {
        CompiledModelEncodingError(element: nil, reason: reason)
    }
}
