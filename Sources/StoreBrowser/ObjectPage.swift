import CDToolCore
import Foundation
import OpenCoreData

extension StoreBrowser {
    /// `/object/Entity/p12`: every property of one object, its relationships followed
    /// (each related object a link), its object ID URI, and with edits allowed a link to its
    /// edit form (`saved` after that form was saved).
    func objectPage(entity: String, key: String, saved: Bool = false) -> BrowserResponse {
        let path = "\(entity)/\(key)"
        guard let id = storedObjectID(entity: entity, key: key) else {
            return error(404, "There is no object \(path) in this store.")
        }
        do {
            let body = try reading { context -> String in
                let object = try context.existingObject(with: id)
                var rows: [[String]] = []
                var sections: [String] = []
                for property in object.entity.properties.sorted(by: { $0.name < $1.name }) {
                    if let relationship = property as? NSRelationshipDescription, relationship.isToMany {
                        let related = object.objectIDs(forRelationshipNamed: relationship.name)
                        let links = related.map { "<li>\(objectLink($0))</li>" }.joined()
                        sections.append(
                            "<h2 id=\"\(HTML.escape(relationship.name))\">\(HTML.escape(relationship.name)) (\(related.count) \(HTML.escape(relationship.destinationEntity?.name ?? "")))</h2><ul>\(links)</ul>"
                        )
                        rows.append([
                            HTML.escape(property.name),
                            HTML.link("\(related.count) objects", to: objectAddress(id), fragment: relationship.name),
                        ])
                    } else if property is NSFetchedPropertyDescription {
                        continue
                    } else {
                        rows.append([HTML.escape(property.name), cell(object, property)])
                    }
                }
                if keepsHistory {
                    let numbers = try transactionNumbers(touching: id)
                    let read =
                        try numbers.first.map { try transactions(in: context, from: $0, to: numbers.last ?? $0) } ?? []
                    let touching = read.filter { numbers.contains($0.transactionNumber) }.compactMap {
                        transaction -> [String]? in
                        let changes = (transaction.changes ?? []).filter { $0.changedObjectID == id }
                        guard !changes.isEmpty else { return nil }
                        return [
                            String(transaction.transactionNumber),
                            HTML.escape(Self.localTime.string(from: transaction.timestamp)),
                            HTML.escape(transaction.author ?? ""), changeList(changes),
                        ]
                    }
                    sections.append(
                        "<h2 id=\"history\">History</h2>"
                            + HTML.table(
                                header: ["Transaction", "Time", "Author", "Change"], rows: touching.reversed()))
                }
                let uri = id.uriRepresentation().absoluteString
                let editing =
                    editor == nil
                    ? ""
                    : "<p>\(saved ? "Saved. " : "")\(HTML.link("Edit this object", to: objectAddress(id) + "/edit"))</p>"
                return editing
                    + "<p>Object ID: <code>\(HTML.escape(uri))</code> · entity \(HTML.link(object.entity.name ?? "", to: "/entity/\(HTML.component(object.entity.name ?? ""))"))</p>"
                    + HTML.table(header: ["Property", "Value"], rows: rows) + sections.joined(separator: "\n")
            }
            return .html(HTML.page(title: path, store: store.name, body: body))
        } catch {
            return self.error(404, "There is no object \(path) in this store (\(CDToolError(wrapping: error))).")
        }
    }
}
