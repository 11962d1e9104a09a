import CDToolCore
import Foundation
import OpenCoreData

extension StoreBrowser {
    /// `/`: where the store is and what its engine says of it (a file's size and journal
    /// mode, a database's server), the framework version, the model and whether it fits, the
    /// entities with their row counts; `?check=integrity` adds SQLite's integrity check.
    func overviewPage(_ query: [String: String] = [:]) -> BrowserResponse {
        let inspection: StoreInspection
        do {
            // With the browser's model, so the store's model is not recovered again per request.
            inspection = try store.inspect(model: model)
        } catch {
            return self.error(500, "The store could not be read: \(CDToolError(wrapping: error))")
        }
        let identifiers = (inspection.metadata[NSStoreModelVersionIdentifiersKey] as? [Any] ?? [])
            .map { "\($0)" }.filter { !$0.isEmpty }
        let version = identifiers.isEmpty ? "none" : identifiers.joined(separator: ", ")
        var facts = store.facts().map { ($0.0, HTML.escape($0.1)) }
        facts += [
            (
                "Framework version",
                HTML.escape(inspection.metadata["NSPersistenceFrameworkVersion"].map { "\($0)" } ?? "unknown")
            ),
            ("Store UUID", HTML.escape(inspection.storeUUID ?? "none")),
            ("Model", HTML.escape("\(model.entities.count) entities, \(modelSource)")),
            ("Model version identifiers", HTML.escape(version)),
        ]
        if let compatibility {
            facts.append(
                (
                    "Given model fits the store",
                    compatibility.isCompatible
                        ? "yes"
                        : HTML.escape(
                            "no: entities whose hashes differ or are missing: \(compatibility.mismatchedEntities.joined(separator: ", "))"
                        )
                ))
        }
        let check = store.integrityCheck
        if query["check"] == "integrity" {
            facts.append(("Integrity check", HTML.escape(check?.run() ?? "not run: this store's engine checks itself")))
        }
        let summary = HTML.table(header: [], rows: facts.map { ["<b>\($0.0)</b>", $0.1] })
        let hashes = model.entityVersionHashesByName
        let rows = inspection.entities.sorted { $0.name < $1.name }.map { entity in
            [
                model.entitiesByName[entity.name] == nil
                    ? HTML.escape(entity.name) : HTML.link(entity.name, to: "/entity/\(HTML.component(entity.name))"),
                String(entity.rows), HTML.escape(entity.parent ?? ""),
                "<code>\(HTML.escape(hashes[entity.name]?.base64EncodedString() ?? "—"))</code>",
            ]
        }
        let checkLink = check.map {
            "<p>\(HTML.link("Run \($0.name)", to: "/", query: [("check", "integrity")]))</p>\n"
        }
        let body = """
            \(summary)
            \(checkLink ?? "")<h2>Entities</h2>
            \(HTML.table(header: ["Entity", "Rows", "Parent", "Version hash"], rows: rows))
            """
        return .html(HTML.page(title: store.name, store: store.name, body: body))
    }
}
