/// Applies the transformer a transformable attribute names (or the secure default).
package enum ValueTransformerRegistry {
    private static func transformer(named name: String?) -> ValueTransformer? {
        ValueTransformer.named(
            NSValueTransformerName(name ?? NSValueTransformerName.secureUnarchiveFromDataTransformerName.rawValue))
    }

    package static func encode(_ value: Any, transformerName: String?) throws -> Data {
        guard let transformer = transformer(named: transformerName) else {
            throw CoreDataError.make(
                NSManagedObjectValidationError,
                "No value transformer is registered under the name '\(transformerName ?? "")'")
        }
        let reverse = storesInReverse(transformer)
        guard !reverse || type(of: transformer).allowsReverseTransformation() else {
            throw CoreDataError.make(
                NSManagedObjectValidationError,
                "Value transformer '\(transformerName ?? "")' (\(type(of: transformer))) does not allow reverse transformation, which storing through it needs"
            )
        }
        let stored = reverse ? transformer.reverseTransformedValue(value) : transformer.transformedValue(value)
        guard let data = stored as? Data else {
            let advice =
                transformerName == nil
                ? ": the default transformer stores property-list values and NSSecureCoding objects of its allowed classes; register a CodableValueTransformer (or another transformer) for other types and name it in the model"
                : ""
            throw CoreDataError.make(
                NSManagedObjectValidationError,
                "Value transformer '\(transformerName ?? "NSSecureUnarchiveFromData")' could not encode a value of type \(type(of: value))\(advice)"
            )
        }
        return data
    }

    /// The value `data` stores, or `nil` when no transformer of that name is registered or
    /// the one registered cannot go the way reading needs (a one-way transformer: reading
    /// through it would trap, and a store's values never do).
    package static func decode(_ data: Data, transformerName: String?) -> Any? {
        guard let transformer = transformer(named: transformerName) else { return nil }
        if storesInReverse(transformer) { return transformer.transformedValue(data) }
        guard type(of: transformer).allowsReverseTransformation() else { return nil }
        return transformer.reverseTransformedValue(data)
    }

    /// Whether `transformer` archives in its reverse direction. Unarchiving transformers
    /// (Core Data's default, its subclasses, the keyed one) turn data into objects going forward, so
    /// Core Data stores through their reverse direction; any other transformer turns the
    /// attribute's value into data going forward.
    private static func storesInReverse(_ transformer: ValueTransformer) -> Bool {
        transformer is any UnarchivingValueTransformer
    }
}
