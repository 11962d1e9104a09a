import CDToolCore
import Foundation
import OpenCoreData

extension StoreBrowser {
    /// `/export/NAME.csv` and `/export/NAME.json`: the entity's objects matching the page's
    /// query (`?predicate=`, `?sort=`), every one of them, as `cdtool dump` writes them.
    func export(_ file: String, _ query: [String: String]) -> BrowserResponse {
        let format: ObjectDump.Format
        let name: String
        if file.hasSuffix(".csv") {
            (format, name) = (.csv, String(file.dropLast(4)))
        } else if file.hasSuffix(".json") {
            (format, name) = (.json, String(file.dropLast(5)))
        } else {
            return error(404, "Exports end in .csv or .json.")
        }
        guard let entity = model.entitiesByName[name] else {
            return error(404, "The model has no entity named '\(name)'.")
        }
        do {
            let table = try tableQuery(query, entity: entity)
            var dump = ObjectDump(storeURL: storeURL)
            // A recovered model is recovered again by the dump, which then skips the version check.
            dump.model = modelWasGiven ? model : nil
            dump.entityName = name
            dump.predicate = table.predicateText.isEmpty ? nil : table.predicateText
            dump.sortDescriptors = [NSSortDescriptor(key: table.sortKey ?? "self", ascending: table.ascending)]
            dump.format = format
            var text = ""
            try dump.run(output: { text += $0 })
            var response = BrowserResponse(
                contentType: format == .csv ? "text/csv; charset=utf-8" : "application/json", body: Data(text.utf8))
            response.headers.append(("Content-Disposition", "attachment; filename=\"\(HTML.component(file))\""))
            return response
        } catch let failure as PageError {
            return error(failure.status, failure.message)
        } catch {
            return self.error(400, "The export failed: \(CDToolError(wrapping: error))")
        }
    }
}
