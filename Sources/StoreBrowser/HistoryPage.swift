import CDToolCore
import Foundation
import OpenCoreData
import OpenCoreDataSQL

extension StoreBrowser {
    /// Transactions shown on one history page.
    static let historyPageSize = 100

    /// `/history`: the store's persistent history, newest first, a hundred transactions a
    /// page, with `?from=` and `?to=` bounding the transaction numbers (both included).
    func historyPage(_ query: [String: String]) -> BrowserResponse {
        guard keepsHistory else {
            return .html(
                HTML.page(
                    title: "History", store: store.name,
                    body:
                        "<p>This store keeps no persistent history (it was never opened with NSPersistentHistoryTrackingKey).</p>"
                ))
        }
        var bounds: [String: Int64] = [:]
        for name in ["from", "to"] {
            guard let text = query[name], !text.isEmpty else { continue }
            // Numbers start at 1: a negative one is no transaction (and would overflow the page's arithmetic).
            guard let number = Int64(text), number >= 0 else {
                return error(400, "?\(name)= takes a transaction number (a whole number, 0 or more).")
            }
            bounds[name] = number
        }
        do {
            let body = try reading { context -> String in
                // The newest hundred of the range, read from the store alone: its transaction
                // numbers say where they start.
                let lowest = bounds["from"] ?? 1
                let highest =
                    try bounds["to"] ?? store.read { try $0.integer("SELECT MAX(Z_PK) FROM ATRANSACTION") ?? 0 }
                let total = try store.read { db in
                    try db.integers(
                        "SELECT COUNT(*) FROM ATRANSACTION WHERE Z_PK >= \(.bind(lowest.sqlScalar)) AND Z_PK <= \(.bind(highest.sqlScalar))"
                    ).first.map { Int($0) } ?? 0
                }
                let start = max(lowest, highest - Int64(Self.historyPageSize) + 1)
                let transactions = try self.transactions(in: context, from: start, to: highest)
                let shown = transactions.suffix(Self.historyPageSize).reversed()
                let rows = shown.map { transaction in
                    [
                        String(transaction.transactionNumber),
                        HTML.escape(Self.localTime.string(from: transaction.timestamp)),
                        HTML.escape(transaction.author ?? ""), HTML.escape(transaction.contextName ?? ""),
                        changeList(transaction.changes ?? []),
                    ]
                }
                var html = """
                    <form method="get" action="/history">From transaction <input name="from" size="8" value="\(bounds["from"].map(String.init) ?? "")">
                    to <input name="to" size="8" value="\(bounds["to"].map(String.init) ?? "")"> <button type="submit">Show</button></form>
                    """
                html += HTML.table(header: ["Transaction", "Time", "Author", "Context", "Changes"], rows: rows)
                html += "<p class=\"muted\">\(total) transaction\(total == 1 ? "" : "s") in range"
                if total > shown.count, let oldest = shown.last {
                    let from = bounds["from"].map { [("from", String($0))] } ?? []
                    let older = from + [("to", String(oldest.transactionNumber - 1))]
                    html += "; \(HTML.link("older", to: "/history", query: older))"
                }
                return html + ".</p>"
            }
            return .html(HTML.page(title: "History", store: store.name, body: body))
        } catch {
            return self.error(500, "The history could not be read: \(CDToolError(wrapping: error))")
        }
    }

    /// The transactions numbered `from` through `to`, oldest first, read from `from` on.
    func transactions(
        in context: NSManagedObjectContext, from: Int64, to: Int64
    ) throws
        -> [NSPersistentHistoryTransaction]
    {
        let token = context.persistentStoreCoordinator?.persistentStores.first.map {
            NSPersistentHistoryToken(transactionNumbers: [$0.identifier: from - 1])
        }
        let request = NSPersistentHistoryChangeRequest.fetchHistory(after: token)
        let result = try context.execute(request) as? NSPersistentHistoryResult
        let all = result?.result as? [NSPersistentHistoryTransaction] ?? []
        return all.filter { $0.transactionNumber >= from && $0.transactionNumber <= to }
    }

    /// The numbers of the transactions that changed the object `id`, from the history's
    /// own table (so an object's page reads only those).
    func transactionNumbers(touching id: NSManagedObjectID) throws -> [Int64] {
        guard let row = storeRow(of: id) else { return [] }
        return try store.read { db in
            try db.integers(
                "SELECT DISTINCT ZTRANSACTIONID FROM ACHANGE WHERE ZENTITY = \(.bind(row.entityNumber.sqlScalar)) AND ZENTITYPK = \(.bind(row.key.sqlScalar)) ORDER BY 1"
            )
        }
    }

    /// Where an object's row is: its entity's number, its table and its primary key.
    func storeRow(of id: NSManagedObjectID) -> (entityNumber: Int, table: String, key: Int64)? {
        let parts = path(of: id).split(separator: "/")
        guard parts.count == 2, let key = Int64(parts[1].dropFirst()),
            let number = entityNames.first(where: { $0.value == String(parts[0]) })?.key,
            let table = rowsByEntity[String(parts[0])]?.table
        else { return nil }
        return (number, table, key)
    }

    /// A transaction's changes as a list: the kind, the object (a link unless deleted) and,
    /// for updates, the properties that changed.
    func changeList(_ changes: [NSPersistentHistoryChange]) -> String {
        let items = changes.map { change -> String in
            let kind: String
            switch change.changeType {
            case .insert: kind = "insert"
            case .update: kind = "update"
            case .delete: kind = "delete"
            @unknown default: kind = "change"
            }
            let target =
                change.changeType == .delete
                ? HTML.escape(path(of: change.changedObjectID)) : objectLink(change.changedObjectID)
            let properties = (change.updatedProperties ?? []).map(\.name).sorted()
            return
                "<li>\(kind) \(target)\(properties.isEmpty ? "" : ": " + HTML.escape(properties.joined(separator: ", ")))</li>"
        }
        return "<ul>\(items.joined())</ul>"
    }
}
