import CDToolCore
import Foundation
import OpenCoreDataSQL
import OpenCoreData

extension StoreBrowser {
    /// Objects shown on one page of an entity's table.
    static let pageSize = 100

    /// What an entity page (and its export) asks for: the filter, the order, and where
    /// the page starts.
    struct TableQuery {
        var predicate: NSPredicate?
        var predicateText: String
        /// The sort key, or `nil` for primary-key order.
        var sortKey: String?
        var ascending: Bool
        /// The page shown, from 1 (filtered or sorted tables).
        var page: Int
        /// The primary key after which the page starts (tables in primary-key order).
        var after: Int64?

        /// Whether pages follow one another by primary key: no filter, no sort key, and no
        /// window asked for by number.
        var isKeyset: Bool { predicate == nil && sortKey == nil && page == 1 }

        /// The columns shown (`?columns=a,b`, in that order), or `nil` for all of them.
        var columns: [String]?

        /// The query's parameters as the page's links repeat them.
        var parameters: [(String, String)] {
            var parameters: [(String, String)] = []
            if !predicateText.isEmpty { parameters.append(("predicate", predicateText)) }
            if let sortKey { parameters.append(("sort", ascending ? sortKey : "-" + sortKey)) }
            if let columns { parameters.append(("columns", columns.joined(separator: ","))) }
            return parameters
        }
    }

    /// Reads `?predicate=`, `?sort=` (`key` or `-key`), `?page=`, `?after=` and `?columns=`,
    /// checking the predicate parses, the sort key is a sortable attribute and the columns
    /// are the entity's attributes and relationships.
    func tableQuery(_ query: [String: String], entity: NSEntityDescription) throws(PageError) -> TableQuery {
        let text = query["predicate"]?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        var predicate: NSPredicate?
        if !text.isEmpty {
            do {
                predicate = try NSPredicate.parse(format: text)
            } catch {
                throw PageError(status: 400, message: "The predicate does not parse: \(CDToolError(wrapping: error))")
            }
        }
        var sortKey = query["sort"].flatMap { $0.isEmpty ? nil : $0 }
        var ascending = true
        if let key = sortKey, key.hasPrefix("-") {
            sortKey = String(key.dropFirst())
            ascending = false
        }
        if let sortKey, !(entity.attributesByName[sortKey].map(Self.isSortable) ?? false) {
            throw PageError(status: 400, message: "\(entity.name ?? "") has no attribute '\(sortKey)' to sort by.")
        }
        let page = query["page"].map { Int($0) ?? 0 } ?? 1
        guard page >= 1, page <= Int32.max else {
            throw PageError(status: 400, message: "The page number must be a whole number from 1.")
        }
        var after: Int64?
        if let cursor = query["after"] {
            guard let key = Int64(cursor), key >= 0 else {
                throw PageError(status: 400, message: "The page cursor must be a primary key (a whole number).")
            }
            after = key
        }
        let columns = query["columns"].map {
            $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        }.flatMap { $0.isEmpty ? nil : $0 }
        if let unknown = columns?.first(where: {
            entity.propertiesByName[$0] == nil || entity.propertiesByName[$0] is NSFetchedPropertyDescription
        }) {
            throw PageError(status: 400, message: "\(entity.name ?? "") has no property '\(unknown)' to show.")
        }
        return TableQuery(
            predicate: predicate, predicateText: text, sortKey: sortKey, ascending: ascending, page: page, after: after,
            columns: columns)
    }

    /// `/entity/NAME`: the entity's objects as rows, a page at a time.
    func entityPage(_ name: String, _ query: [String: String]) -> BrowserResponse {
        guard let entity = model.entitiesByName[name] else {
            return error(404, "The model has no entity named '\(name)'.")
        }
        do {
            let table = try tableQuery(query, entity: entity)
            let all = entity.properties.filter { !($0 is NSFetchedPropertyDescription) }.sorted { $0.name < $1.name }
            let byName = Dictionary(all.map { ($0.name, $0) }) { first, _ in first }
            let columns = table.columns.map { names in names.compactMap { byName[$0] } } ?? all
            let page = try reading { context in try self.page(of: entity, table, columns: columns, in: context) }
            return .html(
                HTML.page(
                    title: name, store: store.name,
                    body: filterForm(entity, table) + page))
        } catch let failure as PageError {
            return error(failure.status, failure.message)
        } catch {
            return self.error(400, "The store could not run this query: \(CDToolError(wrapping: error))")
        }
    }

    private func filterForm(_ entity: NSEntityDescription, _ table: TableQuery) -> String {
        let name = HTML.escape(entity.name ?? "")
        let sort = table.sortKey.map { HTML.escape(table.ascending ? $0 : "-" + $0) } ?? ""
        // Exports hold whole objects, every column: the query without the column choice.
        let exported = table.parameters.filter { $0.0 != "columns" }
        return """
            <form method="get" action="/entity/\(HTML.escape(HTML.component(entity.name ?? "")))">
            <input name="predicate" size="60" placeholder="NSPredicate, e.g. name BEGINSWITH 'A'" value="\(HTML.escape(table.predicateText))">
            <input type="hidden" name="sort" value="\(sort)">
            <input name="columns" size="30" placeholder="columns, e.g. name,date (all by default)" value="\(HTML.escape(table.columns?.joined(separator: ",") ?? ""))">
            <button type="submit">Filter \(name)</button>
            \(HTML.link("Export CSV", to: "/export/\(HTML.component(entity.name ?? "")).csv", query: exported))
            \(HTML.link("Export JSON", to: "/export/\(HTML.component(entity.name ?? "")).json", query: exported))
            </form>
            """
    }

    /// The fetch request for one page: the filter, the order (ties, and no sort key, in
    /// primary-key order), the window.
    ///
    /// Filtered or sorted pages are windows (`fetchOffset`), which SQLite reaches by
    /// stepping over the rows before them; a table in primary-key order pages by key
    /// instead (``keysetPage(of:after:limit:in:)``): predicates cannot say "after this
    /// row", as objects do not order among themselves.
    func request(for entity: NSEntityDescription, _ table: TableQuery, limit: Int) -> NSFetchRequest<NSManagedObject> {
        let request = NSFetchRequest<NSManagedObject>(entityName: entity.name ?? "")
        request.predicate = table.predicate
        // Objects do not order among themselves, so sorting by `self` leaves every row tied:
        // primary-key order, which the store uses for ties.
        request.sortDescriptors = [NSSortDescriptor(key: table.sortKey ?? "self", ascending: table.ascending)]
        request.fetchOffset = (table.page - 1) * Self.pageSize
        request.fetchLimit = limit
        return request
    }

    private func page(
        of entity: NSEntityDescription, _ table: TableQuery, columns: [NSPropertyDescription],
        in context: NSManagedObjectContext
    ) throws -> String {
        // Keyset pages know from the keys themselves whether more follow and where; a window
        // asks for one row more than it shows.
        var nextKey: Int64?
        let objects: [NSManagedObject]
        if table.isKeyset {
            let page = try keysetPage(of: entity, after: table.after ?? 0, limit: Self.pageSize, in: context)
            objects = page.objects
            nextKey = page.next
        } else {
            objects = try context.fetch(request(for: entity, table, limit: Self.pageSize + 1))
        }
        let shown = objects.prefix(Self.pageSize)
        let header =
            ["Object"]
            + columns.map { column -> String in
                guard let attribute = column as? NSAttributeDescription, Self.isSortable(attribute) else {
                    return HTML.escape(column.name)
                }
                let descending = table.sortKey == column.name && table.ascending
                var parameters = table.parameters.filter { $0.0 != "sort" }
                parameters.append(("sort", descending ? "-" + column.name : column.name))
                let arrow = table.sortKey == column.name ? (table.ascending ? " ▲" : " ▼") : ""
                return HTML.link(
                    column.name + arrow, to: "/entity/\(HTML.component(entity.name ?? ""))", query: parameters)
            }
        let rows = try shown.map { object -> [String] in
            let filled = try context.existingObject(with: object.objectID)
            return [objectLink(filled.objectID)] + columns.map { cell(filled, $0) }
        }
        var html = HTML.table(header: header, rows: rows)
        let count = shown.count
        html += "<p class=\"muted\">\(count) object\(count == 1 ? "" : "s") on this page.</p>"
        let here = "/entity/\(HTML.component(entity.name ?? ""))"
        if let nextKey {
            html +=
                "<p>\(HTML.link("Next page →", to: here, query: table.parameters + [("after", String(nextKey))]))</p>"
        } else if !table.isKeyset, objects.count > Self.pageSize {
            html +=
                "<p>\(HTML.link("Next page →", to: here, query: table.parameters + [("page", String(table.page + 1))]))</p>"
        }
        if table.page > 1 || table.after != nil {
            html += "<p>\(HTML.link("← First page", to: here, query: table.parameters))</p>"
        }
        return html
    }

    /// A page in primary-key order starting after `key`: the keys read from the entity's
    /// table (its primary key's index goes straight there, however far into the table),
    /// then the objects fetched by ID. Page 10,000 costs what page 1 does.
    private func keysetPage(
        of entity: NSEntityDescription, after key: Int64, limit: Int, in context: NSManagedObjectContext
    ) throws -> (objects: [NSManagedObject], next: Int64?) {
        guard let rows = rowsByEntity[entity.name ?? ""], !rows.numbers.isEmpty else { return ([], nil) }
        // Every row of the table is the entity's: no Z_ENT condition, the primary key alone.
        let only = rows.wholeTable ? "" : "Z_ENT IN (\(rows.numbers.map(String.init).joined(separator: ", "))) AND "
        let keys = try store.read { db in
            var keys: [(key: Int64, entity: Int64?)] = []
            try db.forEachRow(
                "SELECT Z_PK, Z_ENT FROM \(raw: db.dialect.quotedStoredName(rows.table)) WHERE \(raw: only)Z_PK > \(.bind(key.sqlScalar)) ORDER BY Z_PK LIMIT \(.bind((limit + 1).sqlScalar))"
            ) { row in
                if let key = row[0].exactInteger { keys.append((key, row[1].exactInteger)) }
            }
            return keys
        }
        let shown = keys.prefix(limit)
        let next: Int64? = keys.count > limit ? shown.last?.key : nil
        let ids = shown.compactMap { row -> NSManagedObjectID? in
            guard let number = row.entity.flatMap({ Int(exactly: $0) }) else { return nil }
            return entityNames[number].flatMap { objectID(forPath: "\($0)/p\(row.key)") }
        }
        guard !ids.isEmpty else { return ([], next) }
        let request = NSFetchRequest<NSManagedObject>(entityName: entity.name ?? "")
        request.predicate = NSPredicate(format: "SELF IN %@", ids)
        request.sortDescriptors = [NSSortDescriptor(key: "self", ascending: true)]
        return (try context.fetch(request), next)
    }

    /// The image type of `data` by its first bytes (PNG, JPEG, GIF, WebP), or `nil`.
    static func imageType(of data: Data) -> String? {
        let head = [UInt8](data.prefix(12))
        if head.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return "image/png" }
        if head.starts(with: [0xFF, 0xD8, 0xFF]) { return "image/jpeg" }
        if head.starts(with: Array("GIF8".utf8)) { return "image/gif" }
        if head.count == 12, head.starts(with: Array("RIFF".utf8)), Array(head[8..<12]) == Array("WEBP".utf8) {
            return "image/webp"
        }
        return nil
    }

    /// Whether the store can sort by `attribute`: a stored value of a type with an order.
    static func isSortable(_ attribute: NSAttributeDescription) -> Bool {
        !attribute.isTransient
            && ![
                .binaryDataAttributeType, .transformableAttributeType, .compositeAttributeType, .undefinedAttributeType,
            ]
            .contains(attribute.attributeType)
    }

    /// One cell: a value, a to-one as a link, a to-many as its count linking to the object.
    func cell(_ object: NSManagedObject, _ property: NSPropertyDescription) -> String {
        guard object.entity.propertiesByName[property.name] != nil else { return "" }
        if let relationship = property as? NSRelationshipDescription {
            let ids = object.objectIDs(forRelationshipNamed: relationship.name)
            if relationship.isToMany {
                return HTML.link(
                    "\(ids.count) \(relationship.destinationEntity?.name ?? "")",
                    to: objectAddress(object.objectID),
                    fragment: relationship.name)
            }
            return ids.first.map(objectLink) ?? "<span class=\"muted\">nil</span>"
        }
        return display(object.value(forKey: property.name))
    }

    /// A value as HTML: text escaped, dates in local time, data as its size and first bytes.
    func display(_ value: Any?) -> String {
        switch value {
        case nil: return "<span class=\"muted\">nil</span>"
        case let date as Date:
            return HTML.escape(Self.localTime.string(from: date))
        case let data as Data:
            let preview = data.prefix(16).map { String(format: "%02x", $0) }.joined(separator: " ")
            var html = "<code>\(data.count) bytes: \(HTML.escape(preview))\(data.count > 16 ? " …" : "")</code>"
            if let type = Self.imageType(of: data), data.count <= 256 * 1024 {
                // Shown from the bytes themselves (a data: address), which the page's policy allows.
                html +=
                    "<br><img alt=\"image\" style=\"max-height:64px\" src=\"data:\(type);base64,\(data.base64EncodedString())\">"
            }
            return html
        case let value?:
            return HTML.escape(DumpValue.text(DumpValue.plain(value)))
        }
    }

    /// Dates as local time. Used only inside ``reading(_:)``, one page at a time.
    nonisolated(unsafe) static let localTime: DateFormatter = {
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss zzz"
        formatter.timeZone = .current
        return formatter
    }()

    /// A link to an object's page, labelled with its URI's path (`Recipe/p12`).
    func objectLink(_ id: NSManagedObjectID) -> String {
        HTML.link(path(of: id), to: objectAddress(id))
    }

    /// The address of an object's page, its entity's name encoded.
    func objectAddress(_ id: NSManagedObjectID) -> String {
        "/object/\(HTML.component(id.entity.name ?? ""))/\(keyComponent(of: id))"
    }

    /// `Entity/p12`: the path of an object ID's URI, which names it within the store.
    func path(of id: NSManagedObjectID) -> String {
        "\(id.entity.name ?? "")/\(keyComponent(of: id))"
    }

    /// `p12`: the last component of an object ID's URI. A SQL store's is `p` and the primary
    /// key, made here without the URI: every object link asks for it, and building and parsing
    /// a URL each time was a tenth of a page's work.
    private func keyComponent(of id: NSManagedObjectID) -> String {
        if !id.isTemporaryID, let key = id.primaryKey { return "p\(key)" }
        return id.uriRepresentation().lastPathComponent
    }

    /// The object ID of a store object by its URI's path (`Entity/p12`).
    func objectID(forPath path: String) -> NSManagedObjectID? {
        guard let uuid = context.persistentStoreCoordinator?.persistentStores.first?.identifier,
            let url = URL(string: "x-coredata://\(uuid)/\(path)")
        else { return nil }
        return context.persistentStoreCoordinator?.managedObjectID(forURIRepresentation: url)
    }
}

/// A page's failure: the status and the message it shows.
struct PageError: Error {
    let status: Int
    let message: String
}
