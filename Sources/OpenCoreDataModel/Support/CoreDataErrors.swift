// Core Data's error codes in NSCocoaErrorDomain and its userInfo keys, with Apple's
// names and values, so `error.code == NSValidationMissingMandatoryPropertyError`
// works as it does with Core Data.

/// Generic validation failure.
public let NSManagedObjectValidationError = 1550
/// A uniqueness constraint was violated.
public let NSManagedObjectConstraintValidationError = 1551
/// Several validation errors; the individual errors are under `NSDetailedErrorsKey`.
public let NSValidationMultipleErrorsError = 1560
/// A non-optional property has no value.
public let NSValidationMissingMandatoryPropertyError = 1570
/// A to-many relationship has fewer objects than its minimum count.
public let NSValidationRelationshipLacksMinimumCountError = 1580
/// A to-many relationship has more objects than its maximum count.
public let NSValidationRelationshipExceedsMaximumCountError = 1590
/// A relationship with the deny rule is not empty on delete.
public let NSValidationRelationshipDeniedDeleteError = 1600
/// A number is above its maximum.
public let NSValidationNumberTooLargeError = 1610
/// A number is below its minimum.
public let NSValidationNumberTooSmallError = 1620
/// A date is after its maximum.
public let NSValidationDateTooLateError = 1630
/// A date is before its minimum.
public let NSValidationDateTooSoonError = 1640
/// A value is not a valid date.
public let NSValidationInvalidDateError = 1650
/// A string is longer than its maximum length.
public let NSValidationStringTooLongError = 1660
/// A string is shorter than its minimum length.
public let NSValidationStringTooShortError = 1670
/// A string does not match its regular expression.
public let NSValidationStringPatternMatchingError = 1680
/// A value is not a valid URI.
public let NSValidationInvalidURIError = 1690
/// The context could not be locked.
public let NSManagedObjectContextLockingError = 132_000
/// The coordinator could not be locked.
public let NSPersistentStoreCoordinatorLockingError = 132_010
/// An object refers to an object that no longer exists.
public let NSManagedObjectReferentialIntegrityError = 133_000
/// An object refers to an object in a store the context cannot reach.
public let NSManagedObjectExternalRelationshipError = 133_010
/// A save met a conflicting change (optimistic locking).
public let NSManagedObjectMergeError = 133_020
/// A save met a uniqueness constraint conflict.
public let NSManagedObjectConstraintMergeError = 133_021
/// The store type is unknown or the store could not be created.
public let NSPersistentStoreInvalidTypeError = 134_000
/// The store's type does not match the one asked for.
public let NSPersistentStoreTypeMismatchError = 134_010
/// The store's schema does not match what the model expects.
public let NSPersistentStoreIncompatibleSchemaError = 134_020
/// A store could not save.
public let NSPersistentStoreSaveError = 134_030
/// A save reached some stores but not others.
public let NSPersistentStoreIncompleteSaveError = 134_040
/// Unresolved optimistic-locking conflicts.
public let NSPersistentStoreSaveConflictsError = 134_050
/// A general Core Data error.
public let NSCoreDataError = 134_060
/// A store operation failed.
public let NSPersistentStoreOperationError = 134_070
/// A store could not be opened.
public let NSPersistentStoreOpenError = 134_080
/// A store operation timed out.
public let NSPersistentStoreTimeoutError = 134_090
/// The store does not support a request type.
public let NSPersistentStoreUnsupportedRequestTypeError = 134_091
/// The model does not match the one that made the store.
public let NSPersistentStoreIncompatibleVersionHashError = 134_100
/// A migration failed.
public let NSMigrationError = 134_110
/// A migration's data broke a uniqueness constraint of the destination model.
public let NSMigrationConstraintViolationError = 134_111
/// A migration was cancelled (`NSMigrationManager.cancelMigrationWithError(_:)`).
public let NSMigrationCancelledError = 134_120
/// No model the store could have been made with was found for a migration.
public let NSMigrationMissingSourceModelError = 134_130
/// No mapping model was found (or could be inferred) for a migration.
public let NSMigrationMissingMappingModelError = 134_140
/// The migration manager could not read the source store.
public let NSMigrationManagerSourceStoreError = 134_150
/// The migration manager could not write the destination store.
public let NSMigrationManagerDestinationStoreError = 134_160
/// An entity migration policy failed.
public let NSEntityMigrationPolicyError = 134_170
/// A mapping model could not be inferred between two models.
public let NSInferredMappingModelError = 134_190
/// A persistent-history request named history that was already deleted.
public let NSPersistentHistoryTokenExpiredError = 134_301
/// SQLite reported an error; the SQLite result code is under `NSSQLiteErrorDomain`.
public let NSSQLiteError = 134_180
/// The file is not in a format the store can read (Foundation's `NSFileReadCorruptFileError`).
public let NSFileReadCorruptFileErrorCode = 259

/// userInfo key: the object that failed validation.
public let NSValidationObjectErrorKey = "NSValidationErrorObject"
/// userInfo key: the property key that failed validation.
public let NSValidationKeyErrorKey = "NSValidationErrorKey"
/// userInfo key: the predicate that failed validation.
public let NSValidationPredicateErrorKey = "NSValidationErrorPredicate"
/// userInfo key: the value that failed validation.
public let NSValidationValueErrorKey = "NSValidationErrorValue"
/// userInfo key: the individual errors of a multiple-errors error.
public let NSDetailedErrorsKey = "NSDetailedErrors"
/// userInfo key: the stores an error concerns.
public let NSAffectedStoresErrorKey = "NSAffectedStoresErrorKey"
/// userInfo key: the objects an error concerns.
public let NSAffectedObjectsErrorKey = "NSAffectedObjectsErrorKey"
/// userInfo key and error domain for SQLite result codes.
public let NSSQLiteErrorDomain = "NSSQLiteErrorDomain"

/// Builds the `NSError`s OpenCoreData throws, always in `NSCocoaErrorDomain`.
package enum CoreDataError {
    package static func make(_ code: Int, _ message: String, _ userInfo: [String: Any] = [:]) -> NSError {
        var info = userInfo
        info[NSLocalizedDescriptionKey] = message
        return NSError(domain: NSCocoaErrorDomain, code: code, userInfo: info)
    }

    /// One error for one problem; `NSValidationMultipleErrorsError` wrapping all of them otherwise.
    package static func combine(_ errors: [NSError]) -> NSError? {
        guard errors.count > 1 else { return errors.first }
        let summary = errors.map(\.localizedDescription).joined(separator: "; ")
        return make(
            NSValidationMultipleErrorsError, "Multiple validation errors occurred: \(summary)",
            [NSDetailedErrorsKey: errors])
    }

    /// Wraps an SQLite failure with the store's URL and SQLite's result code.
    package static func sqlite(_ code: Int32, _ message: String, url: URL?) -> NSError {
        var info: [String: Any] = [NSSQLiteErrorDomain: Int(code)]
        if let url { info[NSFilePathErrorKey] = url.path }
        return make(NSSQLiteError, message, info)
    }
}
