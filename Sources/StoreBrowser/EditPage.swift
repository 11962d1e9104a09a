import CDToolCore
import Foundation
import GRDB
import OpenCoreData

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
            let fields = try reading { context in
                try editor.fields(of: context.existingObject(with: id), describing: self)
            }
            return .html(
                HTML.page(
                    title: "Edit \(entity)/\(key)", store: storeURL.lastPathComponent,
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
        case .saved:
            var response = BrowserResponse(status: 303, contentType: "text/plain; charset=utf-8", body: Data())
            response.headers.append(("Location", address + "?saved=1"))
            return response
        case .unchanged:
            var response = BrowserResponse(status: 303, contentType: "text/plain; charset=utf-8", body: Data())
            response.headers.append(("Location", address))
            return response
        case .invalid(let problems), .conflict(let problems):
            let status = if case .conflict = outcome { 409 } else { 422 }
            do {
                let version = try rowVersion(of: id)
                let fields = try reading { context in
                    try editor.fields(of: context.existingObject(with: id), describing: self)
                }
                // After a conflict the form shows the store's values, the reader's beside them.
                let submitted = status == 409 ? [:] : form
                let intro =
                    status == 409
                    ? "<p class=\"error\">Nothing was saved: \(HTML.escape(problems[""] ?? "the object changed"))</p>"
                        + editor.attemptTable(form, fields: fields)
                    : "<p class=\"error\">Nothing was saved: correct the values marked below.</p>"
                return .html(
                    HTML.page(
                        title: "Edit \(entity)/\(key)", store: storeURL.lastPathComponent,
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

    static let readOnlyMessage = "This server is read-only: start it with --allow-edits to change objects."

    /// The object ID of `Entity/pKEY` when the model has the entity and the key is one.
    func storedObjectID(entity: String, key: String) -> NSManagedObjectID? {
        guard key.hasPrefix("p"), Int64(key.dropFirst()) != nil, model.entitiesByName[entity] != nil else { return nil }
        return objectID(forPath: "\(entity)/\(key)")
    }

    /// The row's optimistic-lock version (`Z_OPT`), read from the store as it is now.
    func rowVersion(of id: NSManagedObjectID) throws -> Int64 {
        guard let row = storeRow(of: id) else { throw CDToolError("\(path(of: id)) has no table in this store") }
        let table = "\"" + row.table.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        let version = try database.read {
            try Int64.fetchOne($0, sql: "SELECT Z_OPT FROM \(table) WHERE Z_PK = ?", arguments: [row.key])
        }
        guard let version else { throw CDToolError("\(path(of: id)) is not in the store") }
        return version
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
                control =
                    "<select name=\"\(name)\">"
                    + ["true", "false"].map { "<option\(text == $0 ? " selected" : "")>\($0)</option>" }.joined()
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

/// One property as the edit form shows it.
struct EditField {
    enum Kind: Equatable {
        case text, single, boolean, toMany
        /// A string a form cannot carry back unchanged: shown, not offered for editing.
        case locked
    }
    let name: String
    let type: String
    let kind: Kind
    let isOptional: Bool
    /// The value as the form's text, `nil` for nil.
    let text: String?
}

/// The store browser's writing side (`--allow-edits`): its own read-write opening of the
/// store and the CSRF token its forms carry.
final class StoreEditor: @unchecked Sendable {
    /// The token every form carries and every write must return (besides the access cookie).
    let csrfToken: String
    /// The context edits are made and saved in, on its own queue; its author names the tool
    /// in the store's history.
    let context: NSManagedObjectContext

    init(storeURL: URL, model: NSManagedObjectModel, trackingHistory: Bool) throws {
        csrfToken = StoreBrowser.newToken()
        let container = NSPersistentContainer(name: "cdtool-serve", managedObjectModel: model)
        let description = NSPersistentStoreDescription(url: storeURL)
        if trackingHistory { description.setOption(true as NSNumber, forKey: NSPersistentHistoryTrackingKey) }
        container.persistentStoreDescriptions = [description]
        var loadError: (any Error)?
        container.loadPersistentStores { _, error in loadError = error }
        if let loadError { throw loadError }
        context = container.newBackgroundContext()
        context.transactionAuthor = "cdtool serve"
        context.name = "store browser edit"
    }

    /// What a save came to.
    enum Outcome {
        case saved
        /// The form changed nothing.
        case unchanged
        /// Values that do not parse or fail validation, by property name (`""` for the object).
        case invalid([String: String])
        /// Saved meanwhile by someone else; the message is under `""`.
        case conflict([String: String])
        case failed(String)
    }

    /// The editable properties of `object`: stored attributes of a type text can say, and
    /// relationships; by name.
    func fields(of object: NSManagedObject, describing browser: StoreBrowser) -> [EditField] {
        object.entity.properties.sorted { $0.name < $1.name }.compactMap { property -> EditField? in
            guard let kind = Self.kind(of: property) else { return nil }
            let text = text(of: object, property, browser)
            return EditField(
                name: property.name, type: Self.typeName(of: property),
                kind: text.map(Self.survivesForm) == false ? .locked : kind, isOptional: property.isOptional,
                text: text)
        }
    }

    static func kind(of property: NSPropertyDescription) -> EditField.Kind? {
        if property.isTransient || property is NSDerivedAttributeDescription { return nil }
        if let relationship = property as? NSRelationshipDescription {
            return relationship.isToMany ? .toMany : .single
        }
        guard let attribute = property as? NSAttributeDescription else { return nil }
        switch attribute.attributeType {
        case .stringAttributeType: return .text
        case .booleanAttributeType: return .boolean
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType, .decimalAttributeType,
            .doubleAttributeType, .floatAttributeType, .dateAttributeType, .UUIDAttributeType, .URIAttributeType:
            return .single
        default: return nil
        }
    }

    static func typeName(of property: NSPropertyDescription) -> String {
        if let relationship = property as? NSRelationshipDescription {
            let destination = relationship.destinationEntity?.name ?? ""
            return relationship.isToMany ? "to-many \(destination)" : "to-one \(destination)"
        }
        return (property as? NSAttributeDescription)?.attributeType.displayName ?? ""
    }

    /// The property's value as the form's text (`nil` for nil): what parsing it gives back.
    func text(of object: NSManagedObject, _ property: NSPropertyDescription, _ browser: StoreBrowser) -> String? {
        if let relationship = property as? NSRelationshipDescription {
            let ids = object.objectIDs(forRelationshipNamed: relationship.name)
            if relationship.isToMany { return ids.map(browser.path(of:)).joined(separator: "\n") }
            return ids.first.map(browser.path(of:))
        }
        guard let value = object.value(forKey: property.name) else { return nil }
        switch value {
        case let date as Date: return Self.isoTime(fractions: true).string(from: date)
        case let uuid as UUID: return uuid.uuidString
        case let url as URL: return url.absoluteString
        case let string as String: return string
        case let number as NSNumber:
            switch (property as? NSAttributeDescription)?.attributeType {
            case .booleanAttributeType: return number.boolValue ? "true" : "false"
            case .doubleAttributeType: return "\(number.doubleValue)"
            case .floatAttributeType: return "\(number.floatValue)"
            case .decimalAttributeType: return "\(number.decimalValue)"
            default: return "\(number.int64Value)"
            }
        case let decimal as Decimal: return "\(decimal)"
        default: return "\(value)"
        }
    }

    /// Parses the form, checks the row is still at `shownVersion`, applies what changed and saves.
    func save(
        _ form: [String: String], to id: NSManagedObjectID, shownVersion: Int64, browser: StoreBrowser
    )
        -> Outcome
    {
        context.performAndWait {
            defer { context.reset() }
            let object: NSManagedObject
            do {
                object = try context.existingObject(with: id)
                // Read the version after the object: equal to the form's, the object as just
                // read is the one the form showed, and the store's optimistic lock (Z_OPT at
                // saving) catches any later save.
                let version = try browser.rowVersion(of: id)
                guard version == shownVersion else {
                    return .conflict([
                        "":
                            "another process saved \(browser.path(of: id)) since this form was shown (version \(shownVersion), now \(version))."
                    ])
                }
            } catch {
                return .failed("\(CDToolError(wrapping: error))")
            }
            var problems: [String: String] = [:]
            var changes: [(String, Any?)] = []
            for property in object.entity.properties.sorted(by: { $0.name < $1.name }) {
                guard Self.kind(of: property) != nil, let submitted = form["value:\(property.name)"] else { continue }
                let wantsNil = form["nil:\(property.name)"] != nil
                let current = text(of: object, property, browser)
                if let current, !Self.survivesForm(current) {
                    problems[property.name] = "this value is not editable here (it holds control characters)"
                    continue
                }
                let given = Self.normalized(submitted, property)
                // Untouched (same text as shown): left as it is, so formatting never rewrites a value.
                if wantsNil ? current == nil : given == current.map({ Self.normalized($0, property) }) { continue }
                if wantsNil {
                    changes.append((property.name, nil))
                    continue
                }
                do throws(EditError) {
                    changes.append((property.name, try value(of: given, for: property, browser)))
                } catch {
                    problems[property.name] = error.message
                }
            }
            guard problems.isEmpty else { return .invalid(problems) }
            guard !changes.isEmpty else { return .unchanged }
            for (name, value) in changes { object.setValue(value, forKey: name) }
            do {
                try context.save()
                return .saved
            } catch let error as NSError {
                context.rollback()
                return Self.outcome(of: error)
            }
        }
    }

    /// A save's error as the form reports it: validation errors by property, conflicts apart.
    static func outcome(of error: NSError) -> Outcome {
        if error.domain == NSCocoaErrorDomain,
            [NSManagedObjectMergeError, NSManagedObjectConstraintMergeError, NSPersistentStoreSaveConflictsError]
                .contains(error.code)
        {
            return .conflict(["": "the store changed under this save (\(error.localizedDescription))"])
        }
        let details = (error.userInfo[NSDetailedErrorsKey] as? [NSError]) ?? [error]
        let validation = details.filter { (NSValidationErrorMinimum...NSValidationErrorMaximum).contains($0.code) }
        guard !validation.isEmpty else { return .failed(error.localizedDescription) }
        var problems: [String: String] = [:]
        for detail in validation {
            let key = detail.userInfo[NSValidationKeyErrorKey] as? String ?? ""
            problems[key] = [problems[key], detail.localizedDescription].compactMap { $0 }.joined(separator: " ")
        }
        return .invalid(problems)
    }

    /// Whether a form gives `text` back as it is: no control characters (a page shows them as
    /// U+FFFD) and no carriage returns (a page reads them as line breaks).
    static func survivesForm(_ text: String) -> Bool {
        text.unicodeScalars.allSatisfy { scalar in
            scalar == "\t" || scalar == "\n" || !(scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value))
        }
    }

    /// Text areas come back with CRLF line breaks; relationships' paths in any spacing.
    static func normalized(_ text: String, _ property: NSPropertyDescription) -> String {
        let lines = text.replacingOccurrences(of: "\r\n", with: "\n")
        guard property is NSRelationshipDescription else {
            return property is NSAttributeDescription && kind(of: property) != .text
                ? lines.trimmingCharacters(in: .whitespacesAndNewlines) : lines
        }
        return lines.split(whereSeparator: \.isWhitespace).joined(separator: "\n")
    }

    /// The value `text` gives `property`, or an error saying why it gives none.
    func value(of text: String, for property: NSPropertyDescription, _ browser: StoreBrowser) throws(EditError) -> Any?
    {
        if let relationship = property as? NSRelationshipDescription {
            let objects = try text.split(separator: "\n").map { path throws(EditError) -> NSManagedObject in
                guard let id = browser.objectID(forPath: String(path)),
                    let object = try? context.existingObject(with: id)
                else { throw EditError("there is no object \(path)") }
                guard let destination = relationship.destinationEntity, object.entity.isKindOf(entity: destination)
                else { throw EditError("\(path) is not a \(relationship.destinationEntity?.name ?? "")") }
                return object
            }
            if !relationship.isToMany {
                guard objects.count <= 1 else { throw EditError("a to-one relationship takes one object") }
                return objects.first
            }
            return relationship.isOrdered ? NSOrderedSet(array: objects) : NSSet(array: objects)
        }
        let attribute = property as! NSAttributeDescription
        func whole(_ range: ClosedRange<Int64>) throws(EditError) -> NSNumber {
            guard let number = Int64(text), range.contains(number) else {
                throw EditError("'\(text)' is not a whole number from \(range.lowerBound) to \(range.upperBound)")
            }
            return NSNumber(value: number)
        }
        switch attribute.attributeType {
        case .stringAttributeType: return text
        case .integer16AttributeType: return try whole(Int64(Int16.min)...Int64(Int16.max))
        case .integer32AttributeType: return try whole(Int64(Int32.min)...Int64(Int32.max))
        case .integer64AttributeType: return try whole(Int64.min...Int64.max)
        case .doubleAttributeType:
            guard let number = Double(text) else { throw EditError("'\(text)' is not a number") }
            return NSNumber(value: number)
        case .floatAttributeType:
            guard let number = Float(text) else { throw EditError("'\(text)' is not a number") }
            return NSNumber(value: number)
        case .decimalAttributeType:
            guard let number = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")), !number.isNaN else {
                throw EditError("'\(text)' is not a decimal number")
            }
            return NSDecimalNumber(decimal: number)
        case .booleanAttributeType:
            switch text.lowercased() {
            case "true", "yes", "1": return NSNumber(value: true)
            case "false", "no", "0": return NSNumber(value: false)
            default: throw EditError("'\(text)' is not true or false")
            }
        case .dateAttributeType:
            guard
                let date = Self.isoTime(fractions: true).date(from: text)
                    ?? Self.isoTime(fractions: false).date(from: text)
            else {
                throw EditError("'\(text)' is not an ISO 8601 date and time (2026-11-30T09:15:00+01:00)")
            }
            return date
        case .UUIDAttributeType:
            guard let uuid = UUID(uuidString: text) else { throw EditError("'\(text)' is not a UUID") }
            return uuid
        case .URIAttributeType:
            guard let url = URL(string: text), url.scheme != nil else { throw EditError("'\(text)' is not a URI") }
            return url
        default: throw EditError("\(attribute.attributeType.displayName) values cannot be edited here")
        }
    }

    /// The reader's values beside the store's, after a conflict: what they tried to save.
    func attemptTable(_ form: [String: String], fields: [EditField]) -> String {
        let rows = fields.compactMap { field -> [String]? in
            guard let submitted = form["value:\(field.name)"] else { return nil }
            let yours = form["nil:\(field.name)"] != nil ? "nil" : submitted
            let stored = field.text ?? "nil"
            guard Self.normalizedText(yours) != Self.normalizedText(stored) else { return nil }
            return [HTML.escape(field.name), HTML.escape(yours), HTML.escape(stored)]
        }
        guard !rows.isEmpty else { return "" }
        return HTML.table(header: ["Property", "Your value", "In the store now"], rows: rows)
    }

    private static func normalizedText(_ text: String) -> String {
        text.replacingOccurrences(of: "\r\n", with: "\n").trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Dates in the form: ISO 8601 in local time, with milliseconds; parsing takes them with
    /// or without. A new formatter each time: the read and the edit contexts' queues both use it.
    static func isoTime(fractions: Bool) -> ISO8601DateFormatter {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = fractions ? [.withInternetDateTime, .withFractionalSeconds] : [.withInternetDateTime]
        formatter.timeZone = .current
        return formatter
    }
}

/// Why a form's text gives no value.
struct EditError: Error {
    let message: String
    init(_ message: String) { self.message = message }
}
