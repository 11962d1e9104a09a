import CDToolCore
import Foundation
import OpenCoreData

extension StoreBrowser {
    /// `/export/NAME.csv` and `/export/NAME.json`: the entity's objects matching the page's
    /// query (`?predicate=`, `?sort=`), every one of them, as `cdtool dump` writes them.
    ///
    /// The query is checked first, parsed and counted (a predicate that does not parse or
    /// that the store cannot run is a 400 page); the objects are then read in batches and
    /// sent as they are written, so an export of a million rows holds neither the objects nor
    /// the text whole. A failure after that cuts the response short.
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
            // Run once before the answer starts, so the status can still say what is wrong.
            let counted = request(for: entity, table, limit: 0)
            counted.fetchOffset = 0
            _ = try reading { try $0.count(for: counted) }
            var dump = ObjectDump(storeURL: storeURL)
            dump.storeType = store.type
            dump.storeOptions = store.options
            dump.model = model
            dump.modelIsRecovered = !modelWasGiven
            dump.entityName = name
            dump.predicate = table.predicateText.isEmpty ? nil : table.predicateText
            dump.sortDescriptors = [NSSortDescriptor(key: table.sortKey ?? "self", ascending: table.ascending)]
            dump.format = format
            let export = UncheckedDump(dump: dump)
            var response = BrowserResponse(
                contentType: format == .csv ? "text/csv; charset=utf-8" : "application/json", body: Data())
            response.stream = BodyStream { write in
                // Pieces of about 64 KB: the dump's own pieces are single records.
                var piece = Data()
                try export.dump.run(output: { text in
                    piece.append(contentsOf: text.utf8)
                    guard piece.count >= 65_536 else { return }
                    try write(piece)
                    piece.removeAll(keepingCapacity: true)
                })
                if !piece.isEmpty { try write(piece) }
            }
            response.headers.append(("Content-Disposition", "attachment; filename=\"\(HTML.component(file))\""))
            return response
        } catch let failure as PageError {
            return error(failure.status, failure.message)
        } catch {
            return self.error(400, "The export failed: \(CDToolError(wrapping: error))")
        }
    }
}

/// A dump handed to the thread that streams it. Its model is loaded whole before and only
/// read after, as every context of a store reads its coordinator's model.
private struct UncheckedDump: @unchecked Sendable {
    let dump: ObjectDump
}
