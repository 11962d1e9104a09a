import Foundation
import OpenCoreData

/// The model's entity–relationship diagram as inline SVG: each entity a box with its
/// attributes, each relationship (with its inverse, one line for the pair) a line labelled
/// with its names and `*` on a to-many end, each inheritance a dashed line to the parent.
enum ModelDiagram {
    static let boxWidth = 210.0
    static let lineHeight = 16.0
    static let margin = 20.0
    /// Space between boxes; wider when relationships loop on their own entity, whose
    /// labels sit to the right of its box.
    static func gap(for entities: [NSEntityDescription]) -> Double {
        entities.contains { entity in entity.relationshipsByName.values.contains { $0.destinationEntity === entity } }
            ? 260 : 90
    }
    /// Attributes listed in a box before "…".
    static let shownAttributes = 8

    static func svg(of model: NSManagedObjectModel) -> String {
        let entities = model.entities.sorted { ($0.name ?? "") < ($1.name ?? "") }
        guard !entities.isEmpty else { return "" }
        let gap = gap(for: entities)
        let columns = max(1, Int(Double(entities.count).squareRoot().rounded(.up)))
        let heights = entities.map { height(of: $0) }
        let rowCount = (entities.count + columns - 1) / columns
        let rowHeights = (0..<rowCount).map { row in
            (0..<columns).compactMap { column in
                let index = row * columns + column
                return index < heights.count ? heights[index] : nil
            }.max() ?? 0
        }
        var boxes: [String: (x: Double, y: Double, height: Double)] = [:]
        for (index, entity) in entities.enumerated() {
            let row = index / columns
            let x = margin + Double(index % columns) * (boxWidth + gap)
            let y = margin + rowHeights[..<row].reduce(0) { $0 + $1 + gap }
            boxes[entity.name ?? ""] = (x, y, heights[index])
        }
        // The last column's gap holds its loops' labels.
        let width = margin + Double(columns) * (boxWidth + gap)
        let totalHeight = 2 * margin + rowHeights.reduce(0, +) + Double(rowCount - 1) * gap
        var lines: [String] = []
        var drawn = Set<ObjectIdentifier>()
        var loops: [String: Int] = [:]
        for entity in entities {
            guard let from = boxes[entity.name ?? ""] else { continue }
            if let parent = entity.superentity?.name, let to = boxes[parent] {
                lines.append(line(from, to, label: "", dashed: true))
            }
            for relationship in entity.relationshipsByName.values.sorted(by: { $0.name < $1.name })
            where relationship.entity === entity {
                guard !drawn.contains(ObjectIdentifier(relationship)),
                    let destination = relationship.destinationEntity?.name, let to = boxes[destination]
                else { continue }
                drawn.insert(ObjectIdentifier(relationship))
                var label = relationship.name + (relationship.isToMany ? " *" : "")
                if let inverse = relationship.inverseRelationship {
                    drawn.insert(ObjectIdentifier(inverse))
                    label += " / " + inverse.name + (inverse.isToMany ? " *" : "")
                }
                if destination == entity.name {
                    // Loops on the box's right side, one under another.
                    lines.append(loop(from, label: label, index: loops[destination, default: 0]))
                    loops[destination, default: 0] += 1
                } else {
                    lines.append(line(from, to, label: label, dashed: false))
                }
            }
        }
        let shapes = entities.compactMap { entity in boxes[entity.name ?? ""].map { box(entity, at: $0) } }
        return """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" height="\(Int(totalHeight))" \
            viewBox="0 0 \(Int(width)) \(Int(totalHeight))" role="img" aria-label="Entity–relationship diagram" \
            font-family="system-ui,sans-serif" font-size="12">
            \(lines.joined(separator: "\n"))
            \(shapes.joined(separator: "\n"))
            </svg>
            """
    }

    private static func height(of entity: NSEntityDescription) -> Double {
        let attributes = entity.attributesByName.count
        let listed = min(attributes, shownAttributes) + (attributes > shownAttributes ? 1 : 0)
        return lineHeight * Double(listed) + 30
    }

    private static func box(_ entity: NSEntityDescription, at place: (x: Double, y: Double, height: Double)) -> String {
        var text = entity.name ?? ""
        if let parent = entity.superentity?.name { text += " : " + parent }
        var parts = [
            "<g class=\"entity\"><rect x=\"\(place.x)\" y=\"\(place.y)\" width=\"\(boxWidth)\" height=\"\(place.height)\" rx=\"4\" fill=\"#fff\" stroke=\"#1d1d1f\"\(entity.isAbstract ? " stroke-dasharray=\"4 2\"" : "")/>",
            "<text x=\"\(place.x + 8)\" y=\"\(place.y + 18)\" font-weight=\"bold\">\(HTML.escape(text))</text>",
        ]
        let attributes = entity.attributesByName.values.sorted { $0.name < $1.name }
        for (index, attribute) in attributes.prefix(shownAttributes).enumerated() {
            parts.append(
                "<text x=\"\(place.x + 8)\" y=\"\(place.y + 36 + lineHeight * Double(index))\">\(HTML.escape(attribute.name)): \(HTML.escape(attribute.attributeType.displayName))</text>"
            )
        }
        if attributes.count > shownAttributes {
            parts.append(
                "<text x=\"\(place.x + 8)\" y=\"\(place.y + 36 + lineHeight * Double(shownAttributes))\">… \(attributes.count - shownAttributes) more</text>"
            )
        }
        return parts.joined() + "</g>"
    }

    /// A relationship from an entity to itself: the `index`th loop on its box's right side.
    private static func loop(_ box: (x: Double, y: Double, height: Double), label: String, index: Int) -> String {
        let right = box.x + boxWidth
        let top = box.y + 8 + 22 * Double(index)
        return
            "<path d=\"M \(right) \(top) C \(right + 40) \(top - 6), \(right + 40) \(top + 18), \(right) \(top + 12)\" fill=\"none\" stroke=\"#0066cc\"/><text x=\"\(right + 44)\" y=\"\(top + 10)\" fill=\"#0066cc\">\(HTML.escape(label))</text>"
    }

    private static func line(
        _ from: (x: Double, y: Double, height: Double), _ to: (x: Double, y: Double, height: Double),
        label: String, dashed: Bool
    ) -> String {
        let (x1, y1) = (from.x + boxWidth / 2, from.y + from.height / 2)
        let (x2, y2) = (to.x + boxWidth / 2, to.y + to.height / 2)
        let style = dashed ? " stroke-dasharray=\"6 4\" stroke=\"#6e6e73\"" : " stroke=\"#0066cc\""
        var svg = "<line x1=\"\(x1)\" y1=\"\(y1)\" x2=\"\(x2)\" y2=\"\(y2)\"\(style)/>"
        if !label.isEmpty {
            svg +=
                "<text x=\"\((x1 + x2) / 2)\" y=\"\((y1 + y2) / 2 - 4)\" text-anchor=\"middle\" fill=\"#0066cc\" stroke=\"#fff\" stroke-width=\"3\" paint-order=\"stroke\">\(HTML.escape(label))</text>"
        }
        return svg
    }
}
