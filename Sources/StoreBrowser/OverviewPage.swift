import CDToolCore
import Foundation
import GRDB
import OpenCoreData

extension StoreBrowser {
    /// `/`: the file, its size and journal mode, the framework version, the model and
    /// whether it fits, the entities with their row counts; `?check=integrity` adds
    /// SQLite's integrity check.
    func overviewPage(_ query: [String: String] = [:]) -> BrowserResponse {
        let inspection: StoreInspection
        do {
            // With the browser's model, so the store's model is not recovered again per request.
            inspection = try StoreInspection.inspect(storeAt: storeURL, model: model)
        } catch {
            return self.error(500, "The store could not be read: \(CDToolError(wrapping: error))")
        }
        let size = (try? FileManager.default.attributesOfItem(atPath: storeURL.path)[.size] as? Int) ?? 0
        let identifiers = (inspection.metadata[NSStoreModelVersionIdentifiersKey] as? [Any] ?? [])
            .map { "\($0)" }.filter { !$0.isEmpty }
        let version = identifiers.isEmpty ? "none" : identifiers.joined(separator: ", ")
        var facts: [(String, String)] = [
            ("File", HTML.escape(storeURL.path)),
            ("Size", HTML.escape(ByteCountFormatter.string(fromByteCount: Int64(size), countStyle: .file))),
            ("Journal mode", HTML.escape(sqlite("PRAGMA journal_mode") ?? "unknown")),
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
                            "no: entities whose hashes differ or are missing: \((compatibility.differing + compatibility.missingFromStore + compatibility.missingFromModel).joined(separator: ", "))"
                        )
                ))
        }
        if query["check"] == "integrity" {
            facts.append(("Integrity check", HTML.escape(sqlite("PRAGMA integrity_check") ?? "could not run")))
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
        let body = """
            \(summary)
            <p>\(HTML.link("Run SQLite's integrity check", to: "/", query: [("check", "integrity")]))</p>
            <h2>Entities</h2>
            \(HTML.table(header: ["Entity", "Rows", "Parent", "Version hash"], rows: rows))
            """
        return .html(HTML.page(title: storeURL.lastPathComponent, store: storeURL.lastPathComponent, body: body))
    }

    /// The values of a SQLite statement, joined, read on the browser's read-only connection.
    private func sqlite(_ statement: String) -> String? {
        try? database.read { db in try String.fetchAll(db, sql: statement).joined(separator: "; ") }
    }
}
