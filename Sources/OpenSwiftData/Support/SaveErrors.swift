import Foundation
import OpenCoreData
import OpenCoreDataCore

extension SwiftDataError {
    /// The SwiftData error for an error Core Data threw while saving, or `nil` for an error
    /// that is not about the models (an I/O or SQLite failure, which passes through as is).
    ///
    /// Core Data reports a failed save as an `NSError` whose userInfo holds the object, key
    /// and value at fault (several under `NSDetailedErrorsKey`), or the conflicts under
    /// `"conflictList"`. A SwiftData user knows neither `NSManagedObject` nor those keys, so
    /// this names the model type, property and value in one sentence, as
    /// ``modelValidationFailure`` (the only member of Apple's list about a save), and keeps
    /// Core Data's error underneath. Apple's SwiftData traps in several of these cases.
    package static func saveError(_ error: any Error) -> SwiftDataError? {
        let error = error as NSError
        guard error.domain == NSCocoaErrorDomain else { return nil }
        let sentence: String
        switch error.code {
        case NSManagedObjectConstraintMergeError:
            let conflicts = error.userInfo["conflictList"] as? [NSConstraintConflict] ?? []
            guard !conflicts.isEmpty else { return nil }
            sentence = conflicts.map(SaveErrorWording.constraint).joined(separator: "; ")
        case NSManagedObjectMergeError:
            let conflicts = error.userInfo["conflictList"] as? [NSMergeConflict] ?? []
            guard !conflicts.isEmpty else { return nil }
            sentence = conflicts.map(SaveErrorWording.locking).joined(separator: "; ")
        case NSValidationMultipleErrorsError:
            let details = error.userInfo[NSDetailedErrorsKey] as? [NSError] ?? []
            guard !details.isEmpty else { return nil }
            sentence = "\(details.count) problems: " + details.map(SaveErrorWording.validation).joined(separator: "; ")
        case NSManagedObjectValidationError...2047, NSManagedObjectExternalRelationshipError:
            sentence = SaveErrorWording.validation(error)
        default:
            return nil
        }
        return SwiftDataError.modelValidationFailure.explained("The save failed: " + sentence, underlying: error)
    }
}

/// The sentences of ``SwiftDataError/saveError(_:)``, built from Core Data's userInfo.
private enum SaveErrorWording {
    /// One validation failure: `Model.property`, what is wrong, and the value.
    static func validation(_ error: NSError) -> String {
        let object = error.userInfo[NSValidationObjectErrorKey] as? NSManagedObject
        let key = error.userInfo[NSValidationKeyErrorKey] as? String
        let model = object?.entity.name ?? "a model"
        let subject = key.map { "\(model).\($0)" } ?? model
        let value = error.userInfo[NSValidationValueErrorKey]
        let relationship = key.flatMap { object?.entity.relationshipsByName[$0] }
        switch error.code {
        case NSValidationMissingMandatoryPropertyError:
            return "\(subject) is required, but its value is nil"
        case NSValidationRelationshipLacksMinimumCountError:
            return
                "\(subject) holds \(describe(value)), fewer than its minimumModelCount of \(relationship?.minCount ?? 0)"
        case NSValidationRelationshipExceedsMaximumCountError:
            return
                "\(subject) holds \(describe(value)), more than its maximumModelCount of \(relationship?.maxCount ?? 0)"
        case NSValidationRelationshipDeniedDeleteError:
            return "\(model) cannot be deleted: \(subject) has the delete rule .deny and still holds \(describe(value))"
                + (countSuffix(of: error).map { " (\($0) in all)" } ?? "")
        default:
            // Core Data's sentence already starts with `Entity.key: `; keep only its reason.
            let reason = reasonText(error.localizedDescription, subject: subject)
            return "\(subject): \(reason)" + (value.map { "; the value is \(describe($0))" } ?? "")
        }
    }

    /// A uniqueness conflict: the model, the constrained properties and the shared values.
    static func constraint(_ conflict: NSConstraintConflict) -> String {
        let model = (conflict.conflictingObjects.first ?? conflict.databaseObject)?.entity.name ?? "a model"
        let values = conflict.constraintValues
        let shown = conflict.constraint.map { describe(values[$0]) }
        let subject: String
        let what: String
        if conflict.constraint.count == 1 {
            subject = "\(model).\(conflict.constraint[0])"
            what = "the value \(shown[0]) is"
        } else {
            subject = "\(model).(\(conflict.constraint.joined(separator: ", ")))"
            what = "the values (\(shown.joined(separator: ", "))) are"
        }
        if conflict.databaseObject != nil {
            return "\(subject): \(what) already used by another saved \(model) (unique)"
        }
        return "\(subject): \(what) used by \(conflict.conflictingObjects.count) \(model) models in one save (unique)"
    }

    /// An optimistic-locking conflict: the model changed or deleted elsewhere since it was read.
    static func locking(_ conflict: NSMergeConflict) -> String {
        let object = conflict.sourceObject
        let model = describe(object)
        guard let stored = conflict.persistedSnapshot else {
            return "\(model) was deleted by another context since this one read it"
        }
        let read = conflict.cachedSnapshot ?? conflict.objectSnapshot ?? [:]
        let changed = stored.keys.sorted().filter { key in
            // Text forms suffice to tell what changed, for a sentence.
            String(describing: stored[key] ?? NSNull()) != String(describing: read[key] ?? NSNull())
        }
        guard !changed.isEmpty else { return "\(model) was changed by another context since this one read it" }
        let list = changed.map { "\(object.entity.name ?? "?").\($0) is now \(describe(stored[$0]))" }
        return "\(model) was changed by another context since this one read it (\(list.joined(separator: ", ")))"
    }

    /// A value as a SwiftData user knows it: text quoted, models by type, nil as `nil`.
    static func describe(_ value: Any?) -> String {
        guard let value, !(value is NSNull) else { return "nil" }
        if let text = value as? String { return "\"\(clipped(text))\"" }
        if let object = value as? NSManagedObject { return describe(object.objectID) }
        if let id = value as? NSManagedObjectID {
            return id.isTemporaryID
                ? "a new \(id.entity.name ?? "model")"
                : "\(id.entity.name ?? "model") \(id.uriRepresentation().lastPathComponent)"
        }
        if let data = value as? Data { return "\(data.count) bytes" }
        if let members = models(in: value) {
            guard !members.isEmpty else { return "no models" }
            let counts = Dictionary(grouping: members) { $0.entity.name ?? "model" }.mapValues(\.count)
            return counts.keys.sorted().map { "\(counts[$0]!) \($0)" }.joined(separator: " and ")
        }
        return clipped(String(describing: value))
    }

    /// The models of a to-many value (a set, ordered set or array), or `nil` for another value.
    private static func models(in value: Any) -> [NSManagedObject]? {
        let items: [Any]
        if let set = value as? NSSet {
            items = set.allObjects
        } else if let set = value as? NSOrderedSet {
            items = set.array
        } else if let array = value as? [Any] {
            items = array
        } else {
            return nil
        }
        let objects = items.compactMap { $0 as? NSManagedObject }
        return objects.count == items.count ? objects : nil
    }

    /// Long values are cut: the sentence should name the value, not reproduce a document.
    private static func clipped(_ text: String) -> String {
        text.count > 80 ? text.prefix(77) + "..." : text
    }

    /// Core Data's sentence without its `Entity.key: ` lead, which the caller words itself.
    private static func reasonText(_ message: String, subject: String) -> String {
        if message.hasPrefix(subject + ": ") { return String(message.dropFirst(subject.count + 2)) }
        return message
    }

    /// The "still has N object(s)" count of a deny error, whose value is only the first object.
    private static func countSuffix(of error: NSError) -> Int? {
        let message = error.localizedDescription
        guard let range = message.range(of: "still has ") else { return nil }
        let count = Int(message[range.upperBound...].prefix { $0.isNumber })
        return count.flatMap { $0 > 1 ? $0 : nil }
    }
}
