import OpenCoreData

/// `cdtool model A --diff B`: what changed from one model version to the next, and
/// whether lightweight migration can infer the mapping.
///
/// Entities and properties are matched as migration matches them: by renaming
/// identifier, else by name.
public enum ModelDiff {
    /// The differences, one per line, then the verdict.
    public static func text(from source: NSManagedObjectModel, to destination: NSManagedObjectModel) -> String {
        var lines: [String] = []
        let sources = source.entities
        var matched = Set<ObjectIdentifier>()
        for entity in destination.entities.sorted(by: { ($0.name ?? "") < ($1.name ?? "") }) {
            guard let old = match(entity, in: sources) else {
                lines.append("+ entity \(entity.name ?? "?")")
                continue
            }
            matched.insert(ObjectIdentifier(old))
            let title =
                old.name == entity.name
                ? "entity \(entity.name ?? "?")" : "entity \(old.name ?? "?") → \(entity.name ?? "?") (renamed)"
            let changes = entityChanges(old, entity)
            if !changes.isEmpty || old.name != entity.name {
                lines.append("~ \(title)")
                lines += changes.map { "    \($0)" }
            }
        }
        for entity in sources where !matched.contains(ObjectIdentifier(entity)) {
            lines.append("- entity \(entity.name ?? "?")")
        }
        if lines.isEmpty { lines.append("no differences that change the store (the version hashes are equal)") }
        do {
            _ = try NSMappingModel.inferredMappingModel(forSourceModel: source, destinationModel: destination)
            lines.append(
                source.entityVersionHashesByName == destination.entityVersionHashesByName
                    ? "lightweight migration: not needed" : "lightweight migration: can infer the mapping")
        } catch {
            lines.append("lightweight migration: cannot infer the mapping: \((error as NSError).localizedDescription)")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private static func identifier(_ entity: NSEntityDescription) -> String? {
        entity.renamingIdentifier ?? entity.name
    }
    private static func identifier(_ property: NSPropertyDescription) -> String {
        property.renamingIdentifier ?? property.name
    }

    private static func match(
        _ entity: NSEntityDescription, in candidates: [NSEntityDescription]
    ) -> NSEntityDescription? {
        candidates.first { identifier($0) == identifier(entity) }
    }

    private static func entityChanges(_ old: NSEntityDescription, _ new: NSEntityDescription) -> [String] {
        var changes: [String] = []
        if old.superentity?.name != new.superentity?.name {
            changes.append("parent entity: \(old.superentity?.name ?? "none") → \(new.superentity?.name ?? "none")")
        }
        if old.isAbstract != new.isAbstract { changes.append("abstract: \(old.isAbstract) → \(new.isAbstract)") }
        let oldConstraints = old.uniquenessConstraints.map { $0.map { "\($0)" }.joined(separator: ",") }.sorted()
        let newConstraints = new.uniquenessConstraints.map { $0.map { "\($0)" }.joined(separator: ",") }.sorted()
        if oldConstraints != newConstraints {
            changes.append("uniqueness constraints: \(oldConstraints) → \(newConstraints)")
        }
        let oldProperties = old.properties.filter { $0.entity === old && !$0.isTransient }
        var seen = Set<ObjectIdentifier>()
        for property in new.properties.filter({ $0.entity === new && !$0.isTransient }).sorted(by: { $0.name < $1.name }
        ) {
            guard let before = oldProperties.first(where: { identifier($0) == identifier(property) }) else {
                changes.append("+ \(kind(property)) \(property.name)\(property.isOptional ? "" : " (required)")")
                continue
            }
            seen.insert(ObjectIdentifier(before))
            var facts = propertyChanges(before, property)
            if before.name != property.name { facts.insert("renamed from \(before.name)", at: 0) }
            if !facts.isEmpty {
                changes.append("~ \(kind(property)) \(property.name): \(facts.joined(separator: "; "))")
            }
        }
        for property in oldProperties where !seen.contains(ObjectIdentifier(property)) {
            changes.append("- \(kind(property)) \(property.name)")
        }
        return changes
    }

    private static func kind(_ property: NSPropertyDescription) -> String {
        property is NSRelationshipDescription ? "relationship" : "attribute"
    }

    private static func propertyChanges(_ old: NSPropertyDescription, _ new: NSPropertyDescription) -> [String] {
        var facts: [String] = []
        if old.isOptional != new.isOptional { facts.append(new.isOptional ? "now optional" : "now required") }
        if let old = old as? NSAttributeDescription, let new = new as? NSAttributeDescription {
            if old.attributeType != new.attributeType {
                facts.append("type \(old.attributeType.displayName) → \(new.attributeType.displayName)")
            }
            if old.allowsExternalBinaryDataStorage != new.allowsExternalBinaryDataStorage {
                facts.append(
                    new.allowsExternalBinaryDataStorage
                        ? "now stored outside the database when large" : "no longer stored outside the database")
            }
        }
        if let old = old as? NSRelationshipDescription, let new = new as? NSRelationshipDescription {
            if old.isToMany != new.isToMany { facts.append(new.isToMany ? "to-one → to-many" : "to-many → to-one") }
            // `ordered` counts only on a to-many (the version hash ignores it on a to-one).
            let (wasOrdered, isOrdered) = (old.isOrdered && old.isToMany, new.isOrdered && new.isToMany)
            if wasOrdered != isOrdered { facts.append(isOrdered ? "now ordered" : "no longer ordered") }
            if old.destinationEntity?.name != new.destinationEntity?.name {
                facts.append(
                    "destination \(old.destinationEntity?.name ?? "?") → \(new.destinationEntity?.name ?? "?")")
            }
        }
        return facts
    }
}
