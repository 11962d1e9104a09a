import CDToolCore
import Foundation
import OpenCoreData

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
/// store (object IDs from the browser's read-only coordinator are translated to it) and the
/// CSRF token its forms carry.
final class StoreEditor: @unchecked Sendable {
    /// The token every form carries and every write must return (besides the access cookie).
    let csrfToken: String
    /// The context edits are made and saved in, on its own queue; its author names the tool
    /// in the store's history.
    let context: NSManagedObjectContext

    /// Opens `store` read-write with `model`, never migrating it (a model that does not fit
    /// is an error) and keeping how it is kept (a SQLite file's journal mode).
    init(store: any BrowsedStore, model: NSManagedObjectModel, trackingHistory: Bool) throws {
        csrfToken = StoreBrowser.newToken()
        let container = NSPersistentContainer(name: "cdtool-serve", managedObjectModel: model)
        let description = NSPersistentStoreDescription(url: store.url)
        description.type = store.type
        description.shouldMigrateStoreAutomatically = false
        description.shouldInferMappingModelAutomatically = false
        for (key, value) in try store.options.merging(store.writingOptions(), uniquingKeysWith: { $1 }) {
            description.setOption(value, forKey: key)
        }
        if trackingHistory { description.setOption(true as NSNumber, forKey: NSPersistentHistoryTrackingKey) }
        container.persistentStoreDescriptions = [description]
        var loadError: (any Error)?
        container.loadPersistentStores { _, error in loadError = error }
        if let loadError { throw loadError }
        context = container.newBackgroundContext()
        context.transactionAuthor = "cdtool serve"
        context.name = "store browser edit"
    }

    /// `id` (of the browser's read-only coordinator) as the editor's coordinator names it.
    func ownID(_ id: NSManagedObjectID) -> NSManagedObjectID? {
        context.persistentStoreCoordinator?.managedObjectID(forURIRepresentation: id.uriRepresentation())
    }

    /// What a save came to.
    enum Outcome {
        case saved
        /// The object was deleted since the form was shown.
        case gone
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
            // A set's members have no order: sorted, so the same set reads the same each time.
            let paths = ids.map(browser.path(of:))
            if relationship.isToMany {
                return (relationship.isOrdered ? paths : paths.sorted()).joined(separator: "\n")
            }
            return paths.first
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
                guard let own = ownID(id) else { return .failed("\(browser.path(of: id)) is not in this store") }
                guard let before = try browser.currentVersion(of: id) else { return .gone }
                object = try context.existingObject(with: own)
                // Versions only grow: the same as the form's before and after the object is
                // read, the object read is the one the form showed. Every save bumps a row's
                // Z_OPT (an inverse-only change too, here as in Core Data), and the store's
                // optimistic lock compares it when saving: a later save is caught there, which
                // covers the to-many members read below as well.
                guard let version = try browser.currentVersion(of: id) else { return .gone }
                guard before == shownVersion, version == shownVersion else {
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
                // Untouched (the form sent back what it showed: the text, and the nil box as it
                // was; without a box, nil shows as empty text) is left as it is, so formatting
                // never rewrites a value.
                let shown = Self.normalized(current ?? "", property)
                let untouched =
                    property.isOptional
                    ? (wantsNil ? current == nil : current != nil && given == shown) : given == shown
                if untouched { continue }
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
                return Self.outcome(of: error, editing: object)
            }
        }
    }

    /// A save's error as the form reports it: validation errors by property of the edited
    /// object (those of other objects, and of the object as a whole, under `""`); a broken
    /// uniqueness constraint is an invalid value too; a row changed meanwhile is a conflict.
    static func outcome(of error: NSError, editing object: NSManagedObject) -> Outcome {
        if error.domain == NSCocoaErrorDomain,
            [NSManagedObjectMergeError, NSPersistentStoreSaveConflictsError].contains(error.code)
        {
            return .conflict(["": "the store changed under this save (\(error.localizedDescription))"])
        }
        if error.domain == NSCocoaErrorDomain, error.code == NSManagedObjectConstraintMergeError {
            return .invalid(["": "a uniqueness constraint would be broken (\(error.localizedDescription))"])
        }
        let details = (error.userInfo[NSDetailedErrorsKey] as? [NSError]) ?? [error]
        let validation = details.filter { validationCodes.contains($0.code) }
        guard !validation.isEmpty else { return .failed(error.localizedDescription) }
        var problems: [String: String] = [:]
        for detail in validation {
            let ofObject = (detail.userInfo[NSValidationObjectErrorKey] as? NSManagedObject) === object
            let key = ofObject ? detail.userInfo[NSValidationKeyErrorKey] as? String ?? "" : ""
            problems[key] = [problems[key], detail.localizedDescription].compactMap { $0 }.joined(separator: " ")
        }
        return .invalid(problems)
    }

    /// Foundation's range of validation error codes, `NSValidationErrorMinimum` to
    /// `NSValidationErrorMaximum` (Core Data's lie inside it).
    static let validationCodes =
        1024...2047

    /// Whether `text` asks for an infinity or NaN by name.
    static func saysNonFinite(_ text: String) -> Bool {
        ["inf", "+inf", "-inf", "infinity", "+infinity", "-infinity", "nan"].contains(text.lowercased())
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
        let paths = lines.split(whereSeparator: \.isWhitespace).map(String.init)
        let ordered = (property as? NSRelationshipDescription)?.isOrdered ?? true
        return (ordered ? paths : paths.sorted()).joined(separator: "\n")
    }

    /// The value `text` gives `property`, or an error saying why it gives none.
    func value(of text: String, for property: NSPropertyDescription, _ browser: StoreBrowser) throws(EditError) -> Any?
    {
        if let relationship = property as? NSRelationshipDescription {
            let objects = try text.split(separator: "\n").map { path throws(EditError) -> NSManagedObject in
                guard let id = browser.objectID(forPath: String(path)).flatMap(ownID) else {
                    throw EditError("there is no object \(path)")
                }
                let object: NSManagedObject
                do {
                    object = try context.existingObject(with: id)
                } catch let error as NSError where error.code == NSManagedObjectReferentialIntegrityError {
                    throw EditError("there is no object \(path)")
                } catch {
                    throw EditError("\(path) could not be read: \(CDToolError(wrapping: error))")
                }
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
            // Too large for the type is refused, not made infinite; "inf" and "nan" ask for those.
            guard let number = Double(text), number.isFinite || Self.saysNonFinite(text) else {
                throw EditError("'\(text)' is not a number a Double holds")
            }
            return NSNumber(value: number)
        case .floatAttributeType:
            guard let number = Float(text), number.isFinite || Self.saysNonFinite(text) else {
                throw EditError("'\(text)' is not a number a Float holds")
            }
            return NSNumber(value: number)
        case .decimalAttributeType:
            // Decimal(string:) reads a prefix ("1,5" as 1): the whole text must be the number.
            guard text.wholeMatch(of: /[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?/) != nil,
                let number = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")), !number.isNaN
            else {
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
