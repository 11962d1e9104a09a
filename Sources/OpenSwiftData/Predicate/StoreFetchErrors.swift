import Foundation
import OpenCoreData
import OpenCoreDataCore

extension SwiftDataError {
    /// The SwiftData error for an error the SQLite store threw because it could not run a
    /// fetch's predicate or sort descriptors in SQL, or `nil` for any other error.
    ///
    /// The store never evaluates a fetch's predicate in memory: what its SQL translation cannot
    /// express fails the fetch with an `NSError` (`NSCoreDataError`, "Unsupported in a store
    /// fetch: …", or "keypath … not found in entity …"). `PredicateTranslator` produces only
    /// constructs the translation handles, but a key path its table names may still not fit the
    /// model (a key naming a transient or missing property, a to-many relationship where a value
    /// is needed); a model context calls this on a fetch's error to report it as SwiftData does,
    /// ``unsupportedPredicate`` or ``unsupportedKeyPath``, with the store's message.
    package static func storeFetchError(_ error: any Error) -> SwiftDataError? {
        let error = error as NSError
        guard error.domain == NSCocoaErrorDomain, error.code == NSCoreDataError else { return nil }
        let message = error.localizedDescription
        if message.hasPrefix("Unsupported in a store fetch: ") {
            return SwiftDataError.unsupportedPredicate.explained(
                "The store cannot run the fetch in SQL: " + message.dropFirst("Unsupported in a store fetch: ".count))
        }
        if message.hasPrefix("keypath ") {
            return SwiftDataError.unsupportedKeyPath.explained("The store cannot read a key path in SQL: " + message)
        }
        return nil
    }
}
