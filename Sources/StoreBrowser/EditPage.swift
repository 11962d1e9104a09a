import CDToolCore
import Foundation
import OpenCoreData
import OpenCoreDataSQL

extension StoreBrowser {
    /// `GET /object/Entity/p12/edit`: a form with the object's attributes and relationships,
    /// each as text, to change through a managed object context (`--allow-edits` only).
    ///
    /// The form carries the CSRF token and the row's version (`Z_OPT`) as it was shown, so a
    /// save made meanwhile by anyone else is reported as a conflict, not overwritten.
    func editPage(entity: String, key: String) -> BrowserResponse {
        guard let editor else { return error(403, Self.readOnlyMessage) }
        guard let id = storedObjectID(entity: entity, key: key) else {
            return error(404, "There is no object \(entity)/\(key) in this store.")
        }
        do {
            // The version first: a save landing between the two reads then shows as a conflict
            // when the form comes back, never as a change silently undone.
            let version = try rowVersion(of: id)
            let fields = try editFields(of: id, editor)
            return .html(
                HTML.page(
                    title: "Edit \(entity)/\(key)", store: store.name,
                    body: editForm(id, version: version, fields: fields, submitted: [:], problems: [:])))
        } catch {
            return self.error(
                404, "There is no object \(entity)/\(key) in this store (\(CDToolError(wrapping: error))).")
        }
    }

    /// `POST /object/Entity/p12/edit`: applies the form's changes and saves, then shows the
    /// object (303); a value that does not parse or fails the model's validation shows the
    /// form again with the reasons (422); a save by someone else since the form was shown, or
    /// a merge conflict at saving, is reported and nothing is saved (409).
    func saveEdit(entity: String, key: String, form: [String: String]) -> BrowserResponse {
        guard let editor else { return error(403, Self.readOnlyMessage) }
        guard let given = form["csrf"], Self.same(given, editor.csrfToken) else {
            return error(403, "The form's CSRF token is missing or wrong: open the object's edit page again.")
        }
        guard let id = storedObjectID(entity: entity, key: key) else {
            return error(404, "There is no object \(entity)/\(key) in this store.")
        }
        guard let shownVersion = form["version"].flatMap({ Int64($0) }) else {
            return error(400, "The form has no row version: open the object's edit page again.")
        }
        let outcome = editor.save(form, to: id, shownVersion: shownVersion, browser: self)
        let address = objectAddress(id)
        switch outcome {
        case .saved: return .seeOther(address + "?saved=1")
        case .unchanged: return .seeOther(address)
        case .gone:
            return error(409, "Nothing was saved: \(entity)/\(key) was deleted since the form was shown.")
        case .invalid(let problems), .conflict(let problems):
            let status = if case .conflict = outcome { 409 } else { 422 }
            do {
                // After a conflict the form starts again from the store as it is now; after
                // invalid values it keeps the version it was shown with, so a save made
                // meanwhile still shows as a conflict when the corrected form comes back.
                let version = status == 409 ? try rowVersion(of: id) : shownVersion
                let fields = try editFields(of: id, editor)
                // After a conflict the form shows the store's values, the reader's beside them.
                let submitted = status == 409 ? [:] : form
                let intro =
                    status == 409
                    ? "<p class=\"error\">Nothing was saved: \(HTML.escape(problems[""] ?? "the object changed"))</p>"
                        + editor.attemptTable(form, fields: fields)
                    : "<p class=\"error\">Nothing was saved: correct the values marked below.</p>"
                        + (problems[""].map { "<p class=\"error\">\(HTML.escape($0))</p>" } ?? "")
                return .html(
                    HTML.page(
                        title: "Edit \(entity)/\(key)", store: store.name,
                        body: intro
                            + editForm(id, version: version, fields: fields, submitted: submitted, problems: problems)),
                    status: status)
            } catch {
                return self.error(
                    409, "\(problems[""] ?? "The save failed"); the object can no longer be read (\(error)).")
            }
        case .failed(let message):
            return error(500, "The save failed: \(message)")
        }
    }

    /// The object's editable fields as the store holds them now, read on the browser's context.
    private func editFields(of id: NSManagedObjectID, _ editor: StoreEditor) throws -> [EditField] {
        try reading { context in try editor.fields(of: context.existingObject(with: id), describing: self) }
    }

    static let readOnlyMessage = "This server is read-only: start it with --allow-edits to change objects."

    /// The object ID of `Entity/pKEY` when the model has the entity and the key is one.
    func storedObjectID(entity: String, key: String) -> NSManagedObjectID? {
        guard key.hasPrefix("p"), Int64(key.dropFirst()) != nil, model.entitiesByName[entity] != nil else { return nil }
        return objectID(forPath: "\(entity)/\(key)")
    }

    /// The row's optimistic-lock version (`Z_OPT`), read from the store as it is now.
    func rowVersion(of id: NSManagedObjectID) throws -> Int64 {
        guard let version = try currentVersion(of: id) else { throw CDToolError("\(path(of: id)) is not in the store") }
        return version
    }

    /// The row's `Z_OPT` as the store holds it now, `nil` when the row is gone.
    func currentVersion(of id: NSManagedObjectID) throws -> Int64? {
        guard let row = storeRow(of: id) else { throw CDToolError("\(path(of: id)) has no table in this store") }
        return try store.read { db in
            try db.integer(
                "SELECT Z_OPT FROM \(raw: db.dialect.quotedStoredName(row.table)) WHERE Z_PK = \(.bind(row.key.sqlScalar))"
            )
        }
    }

    private func editForm(
        _ id: NSManagedObjectID, version: Int64, fields: [EditField], submitted: [String: String],
        problems: [String: String]
    ) -> String {
        let rows = fields.map { field -> [String] in
            let text = submitted["value:\(field.name)"] ?? field.text ?? ""
            let isNil = submitted.isEmpty ? field.text == nil : submitted["nil:\(field.name)"] != nil
            let name = HTML.escape("value:\(field.name)")
            let control: String
            switch field.kind {
            case .text, .toMany:
                // A line break right after the tag would be dropped by the parser: one is given.
                control =
                    "<textarea name=\"\(name)\" rows=\"\(field.kind == .toMany ? 3 : 1)\" cols=\"50\">\n\(HTML.escape(text))</textarea>"
            case .boolean:
                // Nil is the empty choice, so a form sent back untouched says nil again.
                control =
                    "<select name=\"\(name)\">"
                    + ["", "true", "false"].map { "<option\(text == $0 ? " selected" : "")>\($0)</option>" }.joined()
                    + "</select>"
            case .single:
                control = "<input name=\"\(name)\" size=\"50\" value=\"\(HTML.escape(text))\">"
            case .locked:
                control =
                    "<code>\(HTML.escape(text))</code><br><span class=\"muted\">holds control characters or carriage returns, which a form cannot send back unchanged: not editable here</span>"
            }
            let nilBox =
                field.isOptional && field.kind != .locked
                ? "<label><input type=\"checkbox\" name=\"\(HTML.escape("nil:\(field.name)"))\"\(isNil ? " checked" : "")> nil</label>"
                : ""
            let problem = problems[field.name].map { "<span class=\"error\">\(HTML.escape($0))</span>" } ?? ""
            return [
                HTML.escape(field.name), HTML.escape(field.type), control, nilBox, problem,
            ]
        }
        let other = problems.filter { key, _ in key != "" && !fields.contains { $0.name == key } }
            .sorted { $0.key < $1.key }
            .map { "<p class=\"error\">\(HTML.escape($0.value))</p>" }.joined()
        return """
            <p>Relationships are given as object paths (<code>Entity/p12</code>), a to-many one per line; dates as ISO 8601 (<code>2026-11-30T09:15:00+01:00</code>). Saved through a managed object context: the model's validation applies.</p>
            \(other)<form method="post" action="\(HTML.escape(objectAddress(id) + "/edit"))">
            <input type="hidden" name="csrf" value="\(HTML.escape(editor?.csrfToken ?? ""))">
            <input type="hidden" name="version" value="\(version)">
            \(HTML.table(header: ["Property", "Type", "Value", "", ""], rows: rows))
            <p><button type="submit">Save</button> \(HTML.link("Cancel", to: objectAddress(id)))</p>
            </form>
            """
    }
}
