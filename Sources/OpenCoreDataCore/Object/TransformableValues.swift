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
        let stored =
            storesInReverse(transformer)
            ? transformer.reverseTransformedValue(value) : transformer.transformedValue(value)
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

    package static func decode(_ data: Data, transformerName: String?) -> Any? {
        guard let transformer = transformer(named: transformerName) else { return nil }
        return storesInReverse(transformer)
            ? transformer.transformedValue(data) : transformer.reverseTransformedValue(data)
    }

    /// Whether `transformer` archives in its reverse direction. Unarchiving transformers
    /// (Core Data's default, its subclasses, the keyed one) turn data into objects going forward, so
    /// Core Data stores through their reverse direction; any other transformer turns the
    /// attribute's value into data going forward.
    private static func storesInReverse(_ transformer: ValueTransformer) -> Bool {
        transformer is any UnarchivingValueTransformer
    }
}
