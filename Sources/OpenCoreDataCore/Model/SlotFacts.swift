/// What the hot paths (accessors, validation, saving, reading rows) need to know about
/// one property slot of an entity, copied out of the property description when the
/// model is frozen.
///
/// The descriptions are open classes with observed, mutable properties: every read of
/// `name` or `attributeType` there is a dynamic call with an exclusivity check. A frozen
/// model never changes, so a plain struct of constants answers the same questions for
/// a fraction of the cost, once per value instead of once per model.
package final class SlotFacts {
    /// What a slot holds.
    package enum Kind: Equatable {
        case attribute
        case toOne
        case toMany
    }

    package let property: NSPropertyDescription
    package let name: String
    package let kind: Kind
    /// The attribute's type; `.undefinedAttributeType` for relationships.
    package let attributeType: NSAttributeType
    package let isOptional: Bool
    /// Whether the store has a column (or join rows) for the slot.
    package let isStored: Bool
    /// Whether the property has validation predicates to evaluate on save.
    package let hasValidationPredicates: Bool
    /// Whether large binary values of the attribute may live in files beside the store.
    package let allowsExternalStorage: Bool
    /// The transformer of a transformable attribute (`nil`: the secure default).
    package let valueTransformerName: String?

    package init(_ property: NSPropertyDescription) {
        self.property = property
        name = property.name
        isOptional = property.isOptional
        isStored = property.isStored
        hasValidationPredicates = !property.validationPredicates.isEmpty
        if let relationship = property as? NSRelationshipDescription {
            kind = relationship.isToMany ? .toMany : .toOne
            attributeType = .undefinedAttributeType
            allowsExternalStorage = false
            valueTransformerName = nil
        } else {
            let attribute = property as? NSAttributeDescription
            kind = .attribute
            attributeType = attribute?.attributeType ?? .undefinedAttributeType
            allowsExternalStorage = attribute?.allowsExternalBinaryDataStorage ?? false
            valueTransformerName = attribute?.valueTransformerName
        }
    }

    /// Whether the slot is a column of its object's own row (attributes and to-ones).
    package var isRowColumn: Bool { kind != .toMany && isStored }
}
