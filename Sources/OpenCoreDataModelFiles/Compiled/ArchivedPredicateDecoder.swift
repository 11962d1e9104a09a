/// Rebuilds predicates and expressions archived inside a compiled model (validation
/// rules, fetch request templates, derivations) as this library's `NSPredicate` and
/// `NSExpression` objects.
///
/// Archived predicates name Foundation's private classes (`NSComparisonPredicate` with
/// an operator object, `NSKeyPathExpression`, …); each is read by its class name and
/// keys. An unknown class is an error naming it, never a guess.
///
/// One decoder reads one model, on one thread. Archives share objects by reference, so
/// a small file can name the same subtree many times over: the decoder counts every
/// node it builds and stops at a budget no real model comes near.
package final class ArchivedPredicateDecoder {
    /// Deeper nesting is refused: a damaged archive must not exhaust the stack.
    package static let maximumDepth = 64
    /// Predicates, expressions and values one model may hold in all.
    package static let nodeBudget = 200_000
    private var nodesLeft = ArchivedPredicateDecoder.nodeBudget

    /// Counts one node against the budget.
    private func spend() throws {
        nodesLeft -= 1
        guard nodesLeft >= 0 else { throw failure("more than \(Self.nodeBudget) predicate and value nodes") }
    }

    package func predicate(_ value: ArchivedValue, depth: Int = 0) throws -> NSPredicate {
        guard depth < Self.maximumDepth else {
            throw failure("a predicate nested more than \(Self.maximumDepth) levels")
        }
        try spend()
        switch value.className {
        case "NSComparisonPredicate":
            guard let left = try value.field("NSLeftExpression"), let right = try value.field("NSRightExpression"),
                let operation = try value.field("NSPredicateOperator")
            else { throw failure("a comparison predicate without both expressions and an operator") }
            let code = try operation.integer("NSOperatorType") ?? -1
            guard code >= 0, let type = NSComparisonPredicate.Operator(rawValue: UInt(code)) else {
                throw failure("unknown predicate operator type \(code)")
            }
            let modifierCode = try operation.integer("NSModifier") ?? 0
            guard modifierCode >= 0, let modifier = NSComparisonPredicate.Modifier(rawValue: UInt(modifierCode)) else {
                throw failure("unknown predicate modifier \(modifierCode)")
            }
            let options = try operation.integer("NSOptions") ?? operation.integer("NSFlags") ?? 0
            return NSComparisonPredicate(
                leftExpression: try expression(left, depth: depth + 1),
                rightExpression: try expression(right, depth: depth + 1),
                modifier: modifier, type: type,
                options: NSComparisonPredicate.Options(rawValue: UInt(truncatingIfNeeded: options) & 0x7)
            )
        case "NSCompoundPredicate":
            let subpredicates = try (value.field("NSSubpredicates")?.members() ?? []).map {
                try predicate($0, depth: depth + 1)
            }
            switch try value.integer("NSCompoundPredicateType") {
            case 0?:
                guard subpredicates.count == 1 else {
                    throw failure("a NOT predicate with \(subpredicates.count) subpredicates")
                }
                return NSCompoundPredicate(notPredicateWithSubpredicate: subpredicates[0])
            case 1?: return NSCompoundPredicate(andPredicateWithSubpredicates: subpredicates)
            case 2?: return NSCompoundPredicate(orPredicateWithSubpredicates: subpredicates)
            case let other: throw failure("unknown compound predicate type \(other.map(String.init) ?? "(none)")")
            }
        case "NSTruePredicate": return NSPredicate(value: true)
        case "NSFalsePredicate": return NSPredicate(value: false)
        case let other: throw failure("unsupported predicate class \(other ?? "(not an object)")")
        }
    }

    package func expression(_ value: ArchivedValue, depth: Int) throws -> NSExpression {
        guard depth < Self.maximumDepth else {
            throw failure("an expression nested more than \(Self.maximumDepth) levels")
        }
        try spend()
        switch value.className {
        case "NSConstantValueExpression":
            return NSExpression(
                forConstantValue: try (value.field("NSConstantValue")).map { try constant($0, depth: depth + 1) } ?? nil
            )
        case "NSSelfExpression":
            return NSExpression.expressionForEvaluatedObject()
        case "NSVariableExpression":
            guard let name = try value.string("NSVariable") else {
                throw failure("a variable expression without a name")
            }
            return NSExpression(forVariable: name)
        case "NSKeyPathSpecifierExpression":
            guard let path = try value.string("NSKeyPath") else {
                throw failure("a key path expression without a path")
            }
            return NSExpression(forKeyPath: path)
        case "NSKeyPathExpression", "NSFunctionExpression":
            guard let selector = try value.string("NSSelectorName") else {
                throw failure("a function expression without a selector")
            }
            let arguments = try (value.field("NSArguments")?.members() ?? []).map {
                try expression($0, depth: depth + 1)
            }
            // A key path is archived as `valueForKeyPath:` (`valueForKey:` for a single
            // key, as Core Data's archives hold it) applied to its operand: SELF, or a
            // variable for paths such as `$FETCH_SOURCE.name`.
            if selector == "valueForKeyPath:" || selector == "valueForKey:", arguments.count == 1,
                arguments[0].expressionType == .keyPath
            {
                let operand = try value.field("NSOperand").map { try expression($0, depth: depth + 1) }
                guard let operand, operand.expressionType != .evaluatedObject else { return arguments[0] }
                return NSExpression(node: .keyPath(operand: operand, path: arguments[0].keyPath))
            }
            // `FUNCTION(target, "selector:", …)` keeps the object it is sent to; built-in
            // functions (`sum:`, `now`) are archived with an operand of Foundation's own.
            if let operand = try value.field("NSOperand").map({ try expression($0, depth: depth + 1) }),
                [.variable, .keyPath, .function].contains(operand.expressionType)
                    || (operand.expressionType == .evaluatedObject && !PredicateFunctions.names.contains(selector))
            {
                return NSExpression(forFunction: operand, selectorName: selector, arguments: arguments)
            }
            return NSExpression(forFunction: selector, arguments: arguments)
        case "NSFetchRequestExpression":
            guard let request = try value.field("NSFRExpression"), let context = try value.field("NSMOCExpression")
            else {
                throw failure("a fetch request expression without its request and context")
            }
            return NSFetchRequestExpression.expressionForFetch(
                try expression(request, depth: depth + 1), context: try expression(context, depth: depth + 1),
                countOnly: try value.bool("NSCountOnlyFlag") ?? false)
        case "NSAggregateExpression":
            let members = try (value.field("NSCollection")?.members() ?? []).map {
                try expression($0, depth: depth + 1)
            }
            return NSExpression(forAggregate: members)
        case "NSSetExpression":
            guard let left = try value.field("NSLeftExpression"), let right = try value.field("NSRightExpression")
            else {
                throw failure("a set expression without both sides")
            }
            let (lhs, rhs) = (try expression(left, depth: depth + 1), try expression(right, depth: depth + 1))
            switch try value.integer("NSExpressionType") {
            case 5?: return NSExpression(forUnionSet: lhs, with: rhs)
            case 6?: return NSExpression(forIntersectSet: lhs, with: rhs)
            case 7?: return NSExpression(forMinusSet: lhs, with: rhs)
            case let other: throw failure("unknown set expression type \(other.map(String.init) ?? "(none)")")
            }
        case let other: throw failure("unsupported expression class \(other ?? "(not an object)")")
        }
    }

    /// An archived user info dictionary, its values read as constants; `nil` when it is
    /// absent or empty (as models and mapping models leave it).
    package func userInfo(_ info: ArchivedValue?) throws -> [AnyHashable: Any]? {
        guard let info else { return nil }
        var result: [AnyHashable: Any] = [:]
        for (key, value) in try info.entries() { result[key] = try constant(value) }
        return result.isEmpty ? nil : result
    }

    /// A constant archived as a plain value or a Foundation object, as a Swift value.
    package func constant(_ value: ArchivedValue, depth: Int = 0) throws -> Any? {
        guard depth < Self.maximumDepth else { throw failure("a value nested more than \(Self.maximumDepth) levels") }
        try spend()
        switch value.value {
        case nil: return nil
        case let .bool(flag)?: return NSNumber(value: flag)
        case let .integer(number)?: return NSNumber(value: number)
        case let .real(number)?: return NSNumber(value: number)
        case let .string(text)?: return text
        case let .data(bytes)?: return bytes
        case let .date(seconds)?: return Date(timeIntervalSinceReferenceDate: seconds)
        default: break
        }
        switch value.className {
        case "NSString", "NSMutableString": return value.stringValue
        case "NSDate":
            guard case let .real(seconds)? = try value.field("NS.time")?.value else {
                throw failure("a date without a time")
            }
            return Date(timeIntervalSinceReferenceDate: seconds)
        case "NSData", "NSMutableData":
            guard case let .data(bytes)? = try value.field("NS.data")?.value else {
                throw failure("a data object without bytes")
            }
            return bytes
        case "NSUUID":
            guard case let .data(bytes)? = try value.field("NS.uuidbytes")?.value, bytes.count == 16 else {
                throw failure("a UUID without 16 bytes")
            }
            return UUID(uuid: bytes.withUnsafeBytes { $0.loadUnaligned(as: uuid_t.self) })
        case "NSURL":
            guard let text = try value.string("NS.relative"), let url = URL(string: text) else {
                throw failure("a URL without text")
            }
            return url
        case "NSDecimalNumber", "NSDecimalNumberPlaceholder": return try decimal(value)
        case "NSNull": return NSNull()
        case "NSArray", "NSMutableArray", "NSSet", "NSMutableSet", "NSOrderedSet", "NSMutableOrderedSet":
            return try value.members().map { try constant($0, depth: depth + 1) as Any }
        case "NSDictionary", "NSMutableDictionary":
            var result: [String: Any] = [:]
            for (key, member) in try value.entries() { result[key] = try constant(member, depth: depth + 1) }
            return result
        case let other: throw failure("unsupported value class \(other ?? "(unknown)")")
        }
    }

    /// An archived `NSDecimalNumber`: exponent, sign and a 128-bit mantissa as eight
    /// 16-bit words (`NS.mantissa`, little-endian unless `NS.mantissa.bo` says otherwise).
    private func decimal(_ value: ArchivedValue) throws -> Decimal {
        guard let exponent = try value.integer("NS.exponent"), (-128...127).contains(exponent),
            case let .data(bytes)? = try value.field("NS.mantissa")?.value
        else { throw failure("a decimal number without exponent and mantissa") }
        let bigEndian = try value.integer("NS.mantissa.bo") == 0
        var words = [UInt16](repeating: 0, count: 8)
        for index in 0..<min(8, bytes.count / 2) {
            let (first, second) = (
                UInt16(bytes[bytes.startIndex + 2 * index]), UInt16(bytes[bytes.startIndex + 2 * index + 1])
            )
            words[index] = bigEndian ? first << 8 | second : second << 8 | first
        }
        var mantissa = Decimal.zero
        for word in words.reversed() { mantissa = mantissa * 65_536 + Decimal(Int(word)) }
        let result = Decimal(
            sign: try value.bool("NS.negative") == true ? .minus : .plus, exponent: Int(exponent), significand: mantissa
        )
        guard !result.isNaN else { throw failure("a decimal number out of range") }
        return result
    }

    private func failure(_ reason: String) -> BinaryPropertyListError {
        BinaryPropertyListError(description: reason)
    }
}
