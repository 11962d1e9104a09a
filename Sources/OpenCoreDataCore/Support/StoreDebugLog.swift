internal import Synchronization

/// Core Data's SQL debug output (`-com.apple.CoreData.SQLDebug 1`), for every store engine.
///
/// Set `OPENCOREDATA_SQL_DEBUG=1` to print every statement engines run, and the
/// decisions no statement shows (annotations), to standard error. Tests observe the
/// annotations; engines report their statements through their own per-store logs.
package enum StoreDebugLog {
    /// Whether `OPENCOREDATA_SQL_DEBUG` asks for statements and annotations on standard error.
    package static let printsStatements =
        (ProcessInfo.processInfo.environment["OPENCOREDATA_SQL_DEBUG"].flatMap(Int.init) ?? 0) > 0

    /// Observers of annotations, for tests (annotations are rare: one per store opened
    /// under another model version, so one global list is enough).
    private static let annotationObservers = Mutex<[Int: @Sendable (String) -> Void]>([:])
    private static let nextAnnotationToken = Atomic<Int>(0)

    /// Reports a decision a store or migration made that no statement shows (which rule
    /// opened a store, where a migration's source model came from), as Core Data's SQL
    /// debug output prints its annotations.
    package static func annotate(_ message: String) {
        for observer in annotationObservers.withLock({ Array($0.values) }) { observer(message) }
        if printsStatements {
            FileHandle.standardError.write(Data("OpenCoreData: annotation: \(message)\n".utf8))
        }
    }

    /// Starts reporting annotations to `observer`; returns a token for `removeAnnotationObserver`.
    package static func addAnnotationObserver(_ observer: @escaping @Sendable (String) -> Void) -> Int {
        let token = nextAnnotationToken.add(1, ordering: .relaxed).newValue
        annotationObservers.withLock { $0[token] = observer }
        return token
    }

    /// Stops reporting to the observer `token` names.
    package static func removeAnnotationObserver(_ token: Int) {
        annotationObservers.withLock { $0[token] = nil }
    }
}
