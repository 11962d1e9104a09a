import Foundation

/// A type that describes a SwiftData error.
///
/// As in SwiftData, each error is one of the static members below, and two errors are equal
/// when they are the same member: `catch SwiftDataError.unsupportedPredicate` and
/// `error == .unsupportedPredicate` work as on Apple platforms. An error thrown here also
/// carries a sentence naming what went wrong (for a predicate, the construct SQL cannot
/// express); ``description`` and `localizedDescription` show it. The sentence takes no
/// part in equality or hashing. An error converted from one of Core Data's (a failed save)
/// keeps that error under `NSUnderlyingErrorKey` of its `NSError` form.
public struct SwiftDataError: Error, Hashable, Sendable, CustomStringConvertible, LocalizedError, CustomNSError {
    /// The member of Apple's list this error is.
    private enum Kind: Int, Hashable, Sendable {
        case includePendingChangesWithBatchSize = 1
        case sortingPendingChangesWithIdentifiers
        case unsupportedKeyPath
        case unsupportedPredicate
        case unsupportedSortDescriptor
        case configurationFileNameContainsInvalidCharacters
        case configurationFileNameTooLong
        case configurationSchemaNotFoundInContainerSchema
        case duplicateConfiguration
        case loadIssueModelContainer
        case modelValidationFailure
        case missingModelContext
        case backwardMigration
        case unknownSchema
        case historyTokenExpired
        case invalidTransactionFetchRequest
        case unknownDataStoreSchema

        var name: String {
            switch self {
            case .includePendingChangesWithBatchSize: "includePendingChangesWithBatchSize"
            case .sortingPendingChangesWithIdentifiers: "sortingPendingChangesWithIdentifiers"
            case .unsupportedKeyPath: "unsupportedKeyPath"
            case .unsupportedPredicate: "unsupportedPredicate"
            case .unsupportedSortDescriptor: "unsupportedSortDescriptor"
            case .configurationFileNameContainsInvalidCharacters: "configurationFileNameContainsInvalidCharacters"
            case .configurationFileNameTooLong: "configurationFileNameTooLong"
            case .configurationSchemaNotFoundInContainerSchema: "configurationSchemaNotFoundInContainerSchema"
            case .duplicateConfiguration: "duplicateConfiguration"
            case .loadIssueModelContainer: "loadIssueModelContainer"
            case .modelValidationFailure: "modelValidationFailure"
            case .missingModelContext: "missingModelContext"
            case .backwardMigration: "backwardMigration"
            case .unknownSchema: "unknownSchema"
            case .historyTokenExpired: "historyTokenExpired"
            case .invalidTransactionFetchRequest: "invalidTransactionFetchRequest"
            case .unknownDataStoreSchema: "unknownDataStoreSchema"
            }
        }

        /// What the error means when no sentence says more.
        var summary: String {
            switch self {
            case .includePendingChangesWithBatchSize:
                "a fetch with a batch size cannot include the context's pending changes"
            case .sortingPendingChangesWithIdentifiers:
                "a fetch of identifiers that includes pending changes cannot be sorted"
            case .unsupportedKeyPath: "the key path does not name a stored property the store can read"
            case .unsupportedPredicate: "the predicate uses a construct the store cannot run in SQL"
            case .unsupportedSortDescriptor: "the sort descriptor cannot be run by the store"
            case .configurationFileNameContainsInvalidCharacters:
                "the configuration's store file name contains invalid characters"
            case .configurationFileNameTooLong: "the configuration's store file name is too long"
            case .configurationSchemaNotFoundInContainerSchema:
                "the configuration's schema is not part of the container's schema"
            case .duplicateConfiguration: "two configurations of the container have the same name or store"
            case .loadIssueModelContainer: "the model container could not load its stores"
            case .modelValidationFailure: "a model failed validation"
            case .missingModelContext: "the model is not in a model context"
            case .backwardMigration: "the store was made by a newer schema version than the migration plan knows"
            case .unknownSchema: "the schema is not known to the migration plan"
            case .historyTokenExpired: "the history token has expired"
            case .invalidTransactionFetchRequest: "the history fetch request is not valid"
            case .unknownDataStoreSchema: "the data store's schema is not recognized"
            }
        }
    }

    private let kind: Kind
    /// The sentence naming what went wrong, when the thrower gave one.
    private let message: String?
    /// The error this one was made from (Core Data's, for a save), so callers who need its
    /// codes and userInfo still reach them.
    private let underlying: (any Error)?

    private init(_ kind: Kind, message: String? = nil, underlying: (any Error)? = nil) {
        self.kind = kind
        self.message = message
        self.underlying = underlying
    }

    /// The same kind of error, explained by `message` (which names the construct, key path or
    /// setting at fault). Equality ignores the message.
    package func explained(_ message: String) -> SwiftDataError {
        SwiftDataError(kind, message: message)
    }

    /// The same kind of error, explained by `message` and made from `underlying`, which
    /// stays reachable. Equality ignores both.
    package func explained(_ message: String, underlying: any Error) -> SwiftDataError {
        SwiftDataError(kind, message: message, underlying: underlying)
    }

    /// The error this one was made from, if any.
    package var underlyingError: (any Error)? { underlying }

    /// The sentence this error was thrown with, if any.
    package var reason: String? { message }

    // MARK: Fetch errors

    /// A fetch asked for a batch size while including the context's pending changes.
    public static let includePendingChangesWithBatchSize = SwiftDataError(.includePendingChangesWithBatchSize)
    /// A fetch of identifiers that includes pending changes asked to be sorted.
    public static let sortingPendingChangesWithIdentifiers = SwiftDataError(.sortingPendingChangesWithIdentifiers)
    /// A predicate or sort descriptor uses a key path the store cannot read.
    public static let unsupportedKeyPath = SwiftDataError(.unsupportedKeyPath)
    /// A predicate uses a construct the store cannot run; here, one that SQL cannot express.
    public static let unsupportedPredicate = SwiftDataError(.unsupportedPredicate)
    /// A sort descriptor cannot be run by the store.
    public static let unsupportedSortDescriptor = SwiftDataError(.unsupportedSortDescriptor)
    /// A history token no longer names a transaction the store keeps.
    public static let historyTokenExpired = SwiftDataError(.historyTokenExpired)
    /// A history fetch request is not valid.
    public static let invalidTransactionFetchRequest = SwiftDataError(.invalidTransactionFetchRequest)

    // MARK: Configuration errors

    /// A configuration's store file name contains characters a file name cannot hold.
    public static let configurationFileNameContainsInvalidCharacters = SwiftDataError(
        .configurationFileNameContainsInvalidCharacters)
    /// A configuration's store file name is longer than the file system allows.
    public static let configurationFileNameTooLong = SwiftDataError(.configurationFileNameTooLong)
    /// A configuration's schema holds models the container's schema does not.
    public static let configurationSchemaNotFoundInContainerSchema = SwiftDataError(
        .configurationSchemaNotFoundInContainerSchema)
    /// Two configurations of one container have the same name or store.
    public static let duplicateConfiguration = SwiftDataError(.duplicateConfiguration)

    // MARK: Container errors

    /// A model container could not load its stores.
    public static let loadIssueModelContainer = SwiftDataError(.loadIssueModelContainer)

    // MARK: Context errors

    /// A model failed validation when its context saved.
    public static let modelValidationFailure = SwiftDataError(.modelValidationFailure)
    /// A model was used where it needs a model context and has none.
    public static let missingModelContext = SwiftDataError(.missingModelContext)

    // MARK: Migration errors

    /// A store was made by a schema version newer than the migration plan knows.
    public static let backwardMigration = SwiftDataError(.backwardMigration)
    /// A schema is not known to the migration plan.
    public static let unknownSchema = SwiftDataError(.unknownSchema)
    /// A data store's schema matches neither the current schema nor any of the migration plan's.
    public static let unknownDataStoreSchema = SwiftDataError(.unknownDataStoreSchema)

    // MARK: Comparing errors

    /// Whether two errors are the same member of the list; their messages do not count.
    public static func == (lhs: SwiftDataError, rhs: SwiftDataError) -> Bool {
        lhs.kind == rhs.kind
    }

    /// Whether `error` is a `SwiftDataError` of the same kind, so that
    /// `case SwiftDataError.unsupportedPredicate` matches in a `catch` or `switch`.
    public static func ~= (lhs: SwiftDataError, rhs: any Error) -> Bool {
        (rhs as? SwiftDataError)?.kind == lhs.kind
    }

    /// Hashes the error's kind (not its message).
    public func hash(into hasher: inout Hasher) {
        hasher.combine(kind)
    }

    // MARK: Describing errors

    /// The error's kind and the sentence it was thrown with (or what the kind means).
    public var description: String {
        "SwiftDataError.\(kind.name): \(message ?? kind.summary)"
    }

    /// The sentence naming what went wrong; `localizedDescription` shows it.
    public var errorDescription: String? {
        message ?? kind.summary
    }

    /// The sentence, and the error this one was made from under `NSUnderlyingErrorKey`, so
    /// `(error as NSError).userInfo` reaches Core Data's error as on Apple platforms.
    public var errorUserInfo: [String: Any] {
        var info: [String: Any] = [NSLocalizedDescriptionKey: message ?? kind.summary]
        if let underlying { info[NSUnderlyingErrorKey] = underlying as NSError }
        return info
    }
}
