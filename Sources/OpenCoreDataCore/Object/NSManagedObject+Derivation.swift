// Derived attributes and fetched properties: values Core Data computes rather than
// stores from the app.
extension NSManagedObject {
    /// Recomputes the object's derived attributes; the save calls it for every inserted
    /// and updated object before validation, as Core Data derives values at save.
    ///
    /// A value is written only when it changed, so an unchanged derivation does not
    /// mark the object changed again.
    func applyDerivations() {
        let derived = entityFacts.derivedAttributes
        guard !derived.isEmpty, !isFaultStorage else { return }
        for attribute in derived {
            guard let expression = attribute.derivationExpression else { continue }
            // The evaluator's own value, not the boxed one `expressionValue` hands users:
            // it is coerced to the attribute's stored type next.
            let value = ExpressionEvaluator.value(of: expression, object: self, bindings: [:])
            let stored = value.flatMap { AttributeValue.coerce(CollectionValue.unwrapNull($0) ?? $0, to: attribute) }
            if !AttributeValue.isEqual(storage[attribute.slot], stored) {
                assign(value, to: attribute, maintainingInverse: false)
            }
        }
    }

    /// The results of a fetched property's request for this object, kept in its slot
    /// until the object turns into a fault; `nil` outside a context.
    func fetchedValue(_ property: NSFetchedPropertyDescription) -> Any? {
        // The description hands out a copy, which this read may change.
        guard let context = managedObjectContext, let request = property.storedRequest?.copied(as: NSManagedObject.self)
        else { return nil }
        let variables: [String: Any] = ["FETCH_SOURCE": self, "FETCHED_PROPERTY": property]
        request.predicate = request.predicate.map {
            DerivationKeys.resolvingSourceKeys($0.withSubstitutionVariables(variables))
        }
        do {
            let results = try context.fetch(request)
            storage[property.slot] = results
            return results
        } catch {
            // Not kept: the next read tries again. Fetched properties are never saved, so the
            // failure does not hold the object's saves back as an unread row would.
            return [NSManagedObject]()
        }
    }
}

extension DerivationKeys {
    /// `predicate` with key paths of a constant object (`$FETCH_SOURCE.date` once
    /// bound) replaced by their values, which the store can compare.
    static func resolvingSourceKeys(_ predicate: NSPredicate) -> NSPredicate {
        switch predicate.node {
        case .constant, .block:
            return predicate
        case .comparison(var parts):
            parts.left = resolvingSourceKeys(parts.left)
            parts.right = resolvingSourceKeys(parts.right)
            return NSPredicate.make(.comparison(parts))
        case .compound(let type, let subpredicates):
            return NSPredicate.make(.compound(type, subpredicates.map(resolvingSourceKeys)))
        }
    }

    private static func resolvingSourceKeys(_ expression: NSExpression) -> NSExpression {
        guard case .keyPath(let operand?, _) = expression.node,
            case .constant(let object as NSManagedObject) = operand.node
        else {
            return expression
        }
        return NSExpression(forConstantValue: ExpressionEvaluator.value(of: expression, object: object, bindings: [:]))
    }
}
