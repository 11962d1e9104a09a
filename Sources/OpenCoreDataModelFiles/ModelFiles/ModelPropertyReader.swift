/// Reads what every property element shares, and the relationship and fetched
/// property elements (their destinations and inverses are linked later, once every
/// entity has its properties).
package enum ModelPropertyReader {
    /// Flags and identifiers common to attributes, relationships and fetched properties.
    ///
    /// Xcode writes `optional="YES"` for optional properties and nothing for required
    /// ones, so a property without the flag is required. Its "Renaming ID" field is
    /// written as `elementID` (older files say `renamingIdentifier`).
    package static func readCommon(_ values: ModelElementValues, into property: NSPropertyDescription) throws {
        property.isOptional = try values.flag("optional")
        property.isTransient = try values.flag("transient")
        property.isIndexed = try values.flag("indexed")
        property.isIndexedBySpotlight = try values.flag("spotlightIndexingEnabled")
        property.versionHashModifier = values["versionHashModifier"]
        property.renamingIdentifier = values["renamingIdentifier"] ?? values["elementID"]
        property.userInfo = try values.userInfo()
    }

    /// Xcode's names for delete rules.
    package static let deleteRulesByName: [String: NSDeleteRule] = [
        "Nullify": .nullifyDeleteRule, "Cascade": .cascadeDeleteRule, "Deny": .denyDeleteRule,
        "No Action": .noActionDeleteRule,
    ]

    /// A relationship without its destination and inverse.
    ///
    /// `toMany="YES"` makes it to-many (unbounded unless `maxCount` says otherwise);
    /// otherwise it is to-one whatever `maxCount` says.
    package static func relationship(_ values: ModelElementValues) throws -> NSRelationshipDescription {
        try values.checkChildren(["userInfo"])
        let relationship = NSRelationshipDescription()
        relationship.name = try values.identifier()
        try readCommon(values, into: relationship)
        relationship.minCount = try values.integer("minCount") ?? 0
        let isToMany = try values.flag("toMany")
        let maxCount = try values.integer("maxCount")
        // A to-many bounded to one object cannot be told from a to-one here (maxCount 1 is to-one).
        relationship.maxCount = isToMany ? (maxCount == 1 ? 0 : maxCount ?? 0) : 1
        let ruleName = values["deletionRule"] ?? "Nullify"
        guard let rule = deleteRulesByName[ruleName] else {
            throw values.error("has deletionRule \"\(ruleName)\", which is not Nullify, Cascade, Deny or No Action")
        }
        relationship.deleteRule = rule
        // Kept as written even on a to-one (Xcode writes it when a to-many is made to-one);
        // Core Data ignores it there, and so does everything here (`isOrdered` only counts
        // with `isToMany`).
        relationship.isOrdered = try values.flag("ordered")
        return relationship
    }

    /// A fetched property and its `<fetchRequest>`.
    package static func fetchedProperty(
        _ values: ModelElementValues, entitiesByName: [String: NSEntityDescription]
    ) throws -> NSFetchedPropertyDescription {
        try values.checkChildren(["fetchRequest", "userInfo"])
        let property = NSFetchedPropertyDescription()
        property.name = try values.identifier()
        try readCommon(values, into: property)
        let requests = values.element.children(named: "fetchRequest")
        if requests.count > 1 {
            throw values.child(requests[1]).error("is a second fetch request of the fetched property")
        }
        if let request = requests.first {
            property.fetchRequest = try ModelFetchRequestReader.request(
                values.child(request), entitiesByName: entitiesByName)
        }
        return property
    }
}
