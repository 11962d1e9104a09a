import CDToolCore
import Foundation
import OpenCoreData

extension StoreBrowser {
    /// `/model`: every entity with its attributes (type, optional, default), relationships
    /// (destination, inverse, delete rule, counts), fetched properties, constraints and indexes.
    func modelPage() -> BrowserResponse {
        var sections: [String] = []
        for entity in model.entities.sorted(by: { ($0.name ?? "") < ($1.name ?? "") }) {
            let name = entity.name ?? ""
            var heading = HTML.link(name, to: "/entity/\(HTML.component(name))")
            if let parent = entity.superentity?.name { heading += " : " + HTML.escape(parent) }
            if entity.isAbstract { heading += " <span class=\"muted\">(abstract)</span>" }
            var rows: [[String]] = []
            for property in entity.properties.sorted(by: { $0.name < $1.name }) {
                rows.append([HTML.escape(property.name)] + Self.facts(of: property).map(HTML.escape))
            }
            var extra = ""
            let constraints = entity.uniquenessConstraints.map { tuple in
                tuple.map { ($0 as? String) ?? ($0 as? NSPropertyDescription)?.name ?? "?" }.joined(separator: " + ")
            }
            if !constraints.isEmpty {
                extra += "<p>Unique: \(HTML.escape(constraints.joined(separator: "; ")))</p>"
            }
            if !entity.indexes.isEmpty {
                let indexes = entity.indexes.map { index in
                    "\(index.name) (\(index.elements.map { $0.property?.name ?? $0.propertyName ?? "?" }.joined(separator: ", ")))"
                }
                extra += "<p>Indexes: \(HTML.escape(indexes.joined(separator: "; ")))</p>"
            }
            sections.append(
                "<h2 id=\"\(HTML.escape(name))\">\(heading)</h2>\n"
                    + HTML.table(header: ["Property", "Kind", "Type or destination", "Details"], rows: rows) + extra)
        }
        let diagram = "<h2>Diagram</h2><div class=\"diagram\">\(ModelDiagram.svg(of: model))</div>"
        return .html(
            HTML.page(
                title: "Model", store: store.name, body: diagram + sections.joined(separator: "\n")))
    }

    /// A property's kind, type (or destination) and details, as text.
    static func facts(of property: NSPropertyDescription) -> [String] {
        var details: [String] = [property.isOptional ? "optional" : "required"]
        if property.isTransient { details.append("transient") }
        switch property {
        case let attribute as NSAttributeDescription:
            if let value = attribute.defaultValue { details.append("default \(value)") }
            if let derived = attribute as? NSDerivedAttributeDescription, let expression = derived.derivationExpression
            {
                details.append("derived from \(expression)")
            }
            if let transformer = attribute.valueTransformerName { details.append("transformer \(transformer)") }
            return ["attribute", attribute.attributeType.displayName, details.joined(separator: ", ")]
        case let relationship as NSRelationshipDescription:
            details.append("inverse \(relationship.inverseRelationship?.name ?? "none")")
            details.append("delete rule \(ModelDescription.deleteRuleName(relationship.deleteRule))")
            details.append(
                "count \(relationship.minCount)…\(relationship.maxCount == 0 ? "∞" : String(relationship.maxCount))")
            let kind = relationship.isToMany ? (relationship.isOrdered ? "to-many, ordered" : "to-many") : "to-one"
            return [kind, relationship.destinationEntity?.name ?? "?", details.joined(separator: ", ")]
        case let fetched as NSFetchedPropertyDescription:
            let request = fetched.fetchRequest
            return [
                "fetched property", request?.entityName ?? "?",
                request?.predicate.map { "where \($0.predicateFormat)" } ?? "",
            ]
        default:
            return ["property", "", ""]
        }
    }
}
